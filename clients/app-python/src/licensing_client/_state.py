"""What the client keeps between runs: the offline token, the license file, activation requests, the latest time seen."""

import datetime
import json
import os
import tempfile
import threading
import warnings

from ._errors import LicenseError

# How far the clock may be behind the latest time seen before a stored token or file is refused: time zones,
# a dead clock battery put right by hand.
CLOCK_SLACK_SECONDS = 86400
# Requests made again and again without their file arriving (a lost QR code, a second try) are kept, the oldest
# dropped past this many.
KEPT_REQUESTS = 10


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def replace_file(path, text):
    """Replaces the file whole, mode 0600 (it holds license keys): a crash mid-write leaves the old content, never part of the new."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + "-", dir=directory)  # created with mode 0600
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _read(path):
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def _read_json(path):
    text = _read(path)
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def _is_pending(value):
    return isinstance(value, dict) and all(isinstance(value.get(field), str) for field in ("license", "hwid", "nonce"))


class ClientState:
    """In `state_dir`: the offline token (unless `token_file` names another place), `license.lic`, the activation
    requests waiting for their file and the latest time seen; with only `token_file`, the token and the latest time
    seen beside it."""

    def __init__(self, state_dir, token_file):
        self.dir = state_dir
        # The requests file is read, changed and written again: one client's threads take turns.
        self._requests_lock = threading.Lock()
        self.token_file = token_file or (os.path.join(state_dir, "offline-token.json") if state_dir else None)
        if state_dir:
            self._clock_file = os.path.join(state_dir, "clock.json")
        else:
            self._clock_file = token_file + ".clock" if token_file else None

    def _file(self, name, use):
        if not self.dir:
            raise ValueError("%s needs state_dir: that is where the license file and activation requests are kept" % use)
        return os.path.join(self.dir, name)

    def license_file(self):
        """The stored license file (the compact string), or None."""
        if not self.dir:
            return None
        text = (_read(os.path.join(self.dir, "license.lic")) or "").strip()
        return text or None

    def store_license_file(self, text):
        """The compact string and one newline, so any JOSE library can read the file."""
        replace_file(self._file("license.lic", "Storing a license file"), text.strip() + "\n")

    def drop_license_file(self, text):
        """Deletes the stored file, only if it is still `text` (a newer one loaded meanwhile stays)."""
        if self.license_file() == text.strip():
            try:
                os.unlink(self._file("license.lic", "Deleting the license file"))
            except FileNotFoundError:
                pass

    def pending_requests(self):
        kept = _read_json(self._file("activation-requests.json", "An activation request"))
        return [request for request in kept if _is_pending(request)] if isinstance(kept, list) else []

    def keep_request(self, request):
        with self._requests_lock:
            kept = (self.pending_requests() + [request])[-KEPT_REQUESTS:]
            replace_file(self._file("activation-requests.json", "An activation request"), json.dumps(kept))

    def forget_requests(self, license, hwid):
        """A file arrived for this license and device: every request waiting for one is answered."""
        with self._requests_lock:
            kept = [request for request in self.pending_requests() if request["license"] != license or request["hwid"] != hwid]
            replace_file(self._file("activation-requests.json", "An activation request"), json.dumps(kept))

    def judge_clock(self, now):
        """Before a stored token or file is trusted by the computer's clock: CLOCK_MOVED_BACK when `now` is more than
        a day behind the latest time seen; else `now` is recorded when later. Without a place to keep the time nothing
        is stored to trust."""
        if not self._clock_file:
            return
        latest = self._latest_seen()
        if latest is not None and now < latest - CLOCK_SLACK_SECONDS:
            raise LicenseError(
                "CLOCK_MOVED_BACK",
                data={"latest_seen_at": iso(latest)},
                detail="the computer clock is more than a day behind a time this program has already seen",
            )
        if latest is None or now > latest:
            self._record(now)

    def saw_service_time(self, seconds):
        """The service's `iat` of a token or file that came with this request's nonce: the latest time seen from now
        on, even when earlier than the one kept, so a clock once set ahead and then put right is forgiven at the next
        answer instead of refusing offline use until that date."""
        if self._clock_file and isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            self._record(seconds)

    def _record(self, seconds):
        try:
            replace_file(self._clock_file, json.dumps({"seen": seconds}))
        except OSError as error:
            # The check goes on: an unwritable folder costs this protection, not the program's run.
            warnings.warn("licensing_client: cannot keep the latest time seen in %s: %s" % (self._clock_file, error), RuntimeWarning, stacklevel=4)

    def _latest_seen(self):
        kept = _read_json(self._clock_file)
        seen = kept.get("seen") if isinstance(kept, dict) else None
        return seen if isinstance(seen, (int, float)) and not isinstance(seen, bool) else None
