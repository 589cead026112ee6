"""LicenseClient: the client routes of the licensing service, every answer verified against the pinned key."""

import atexit
import collections
import datetime
import http.client
import json
import random
import secrets
import threading
import time
import urllib.error
import urllib.request
import warnings

from . import _license_file, _offline
from ._answers import PinnedKey, Rejected, content_digest, has_signature, verify_answer
from ._errors import LicenseError
from ._license_file import check_claims, encode_code, mismatch, open_file
from ._machine import machine_id
from ._state import ClientState, iso as _iso

OFFLINE_MESSAGE = "OFFLINE_TOKEN_VALID"
# A token is issued at the service's time (nbf = iat, whole seconds): a client clock a little behind it must not
# refuse a token it has just been given. `exp` gets no such leeway.
NBF_LEEWAY_SECONDS = 60


OFFLINE_FILE_MESSAGE = "LICENSE_FILE_VALID"
MAX_HWID_LENGTH = 256
LIFETIME_SECONDS = (3600, 315360000)


class LicenseResult:
    """A verified success: the service's `message` and `data`, and whether it came from what is stored (offline).

    `claims`: the license file's verified claims, for a result that carries or came from one; else None.
    """

    def __init__(self, message, data, offline=False, claims=None):
        self.message = message
        self.data = data
        self.offline = offline
        self.claims = claims

    def __repr__(self):
        return "LicenseResult(message=%r, offline=%r)" % (self.message, self.offline)


ActivationRequest = collections.namedtuple("ActivationRequest", ["request", "link"])
ActivationRequest.__doc__ = """An activation request (lfr1.…) to hand over, and the portal's link holding it (None without a portal URL)."""


def _epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is no answer of the service: it surfaces as the unsigned 3xx it is."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class LicenseClient:
    """A client of one application, pinned to that application's public key (PEM string or JWK dict).

    `url`: the service; None for a client that never goes online (check answers from what is stored).
    `token_file`: where the last offline token is kept (`offline-token.json` in `state_dir` unless set); without
    either no token is asked for.
    `timeout`: seconds one call may take, retries of 5xx, 429 and network errors included.
    `clock`: seconds since the epoch, for judging offline tokens and license files (tests pass a fake one).
    `state_dir`: the folder the client keeps its state in: the offline token, the license file (`license.lic`),
    activation requests waiting for their file, the latest time seen.
    """

    def __init__(self, url, app_id, public_key, token_file=None, timeout=10, clock=time.time, state_dir=None):
        self.url = url.rstrip("/") if url is not None else None
        self.app_id = app_id
        self._state = ClientState(state_dir, token_file)
        self.token_file = self._state.token_file
        self.timeout = timeout
        self.clock = clock
        self._key = PinnedKey(public_key)
        self._opener = urllib.request.build_opener(_NoRedirect)

    # ----- the routes -------------------------------------------------------------------------

    def check(self, license=None, username=None, password=None, hwid=None):
        """Authenticates (/auth). When the service cannot be reached, a valid stored license file or token answers (offline=True)."""
        fields = self._credentials(license, username, password, hwid)
        if self.token_file:
            fields["offline_token"] = True
        try:
            result, nonce = self._call("/auth", fields, license)
        except LicenseError as error:
            if error.code == "NETWORK_ERROR":
                return self._offline(error, license, username, hwid)
            if error.status == 403 and error.code != "INVALID_SIGNATURE":
                # The service refused this license (paused, expired, another device): what is stored of it must not outlive that.
                if self.token_file:
                    self._forget_token(license, username)
                self._forget_license_file(license, username, hwid)
            raise
        # A floating license answers with a token only when borrowing: its answer (with lease_expires_at) has none to keep.
        if self.token_file and "lease_expires_at" not in result.data:
            self._keep_token(result.data.get("offline_token"), nonce, result.data.get("key"), username, hwid)
        return result

    def borrow(self, license=None, username=None, password=None, *, hwid, seconds):
        """Holds a floating seat for `seconds` to work offline; the token (in data.offline_token) is kept in token_file."""
        fields = self._credentials(license, username, password, hwid)
        fields["borrow_seconds"] = seconds
        result, nonce = self._call("/auth", fields, license)
        if self.token_file:
            self._keep_token(result.data.get("offline_token"), nonce, result.data.get("key"), username, hwid)
        else:
            self._token_claims(result.data.get("offline_token"), nonce, result.data.get("key"), hwid)
        return result

    def release(self, license=None, username=None, password=None, *, hwid):
        """Gives this device's floating seat back at once (/release)."""
        return self._call("/release", self._credentials(license, username, password, hwid), license)[0]

    def reset_hwid(self, license=None, username=None, password=None, hwid=None):
        """Releases the device `hwid`, or every device, so the license can move to another computer (/reset-hwid)."""
        return self._call("/reset-hwid", self._credentials(license, username, password, hwid), license)[0]

    def register(self, license, username, password):
        """Sets or replaces the username and password of a license (/register)."""
        return self._call("/register", {"license": license, "username": username, "password": password}, license)[0]

    def record_usage(self, license=None, username=None, password=None, hwid=None, *, counter, amount=1):
        """Counts `amount` against `counter` (/usage); retries reuse one usage_id, so a lost answer never counts twice."""
        fields = self._credentials(license, username, password, hwid)
        fields.update(counter=counter, amount=amount, usage_id=secrets.token_urlsafe(18))
        return self._call("/usage", fields, license)[0]

    def start_heartbeat(self, license=None, username=None, password=None, *, hwid, on_lost=None, interval=None):
        """Takes a floating seat now (raising LicenseError, e.g. SEATS_EXHAUSTED) and keeps it in a background thread.

        The thread renews at about half the lease, with jitter (or every `interval` seconds). When the seat is
        lost (the service refuses, or it stayed unreachable until the lease ended) it calls on_lost(LicenseError)
        and stops. handle.stop() and a clean interpreter exit release the seat.
        """
        fields = self._credentials(license, username, password, hwid)
        first = self._call("/auth", fields, license)[0]
        return Heartbeat(self, fields, license, first, on_lost, interval)

    def machine_id(self):
        """This machine and user's id for this application (see licensing_client._machine for its sources)."""
        return machine_id(self.app_id)

    # ----- license files, air-gapped activation, trials ---------------------------------------

    def license_file(self, license=None, username=None, password=None, *, hwid, lifetime_seconds=None, encrypt=None):
        """Checks out a license file for this device (/license-file, with a check's effects: first use, binding, on a
        floating license the seat borrowed for the file's lifetime), verifies it with this request's nonce, and keeps
        it in state_dir when set. `data["license_file"]` is the file; `claims` its verified claims."""
        fields = self._credentials(license, username, password, hwid)
        if lifetime_seconds is not None:
            fields["lifetime_seconds"] = lifetime_seconds
        if encrypt is not None:
            fields["encrypt"] = encrypt
        result, nonce = self._call("/license-file", fields, license)
        data = result.data if isinstance(result.data, dict) else {}
        text, key = data.get("license_file"), data.get("key")
        if not isinstance(text, str) or not isinstance(key, str):
            raise LicenseError("INVALID_SIGNATURE", detail="success without the license file asked for")
        try:
            claims = check_claims(open_file(text, self._key, key, hwid), self.app_id, key, hwid, nonce=nonce)
        except LicenseError as error:
            # Like a token in an answer: a file that is not this request's makes the answer no answer.
            raise LicenseError("INVALID_SIGNATURE", detail="the license file in the answer: %s" % error) from error
        if self._state.dir:
            self._state.store_license_file(text)
            self._state.saw_service_time(claims["iat"])
        result.claims = claims
        return result

    def activation_request(self, license, hwid, lifetime_seconds=None, encrypt=None, portal_url=None):
        """An activation request for a device that cannot reach the service: `lfr1.` and the base64url of
        {app_id, license, hwid, nonce, lifetime_seconds?, encrypt?}, its fresh nonce kept in state_dir until the file
        made from it is loaded. The owner's dashboard or the customer portal turns it into a file."""
        if not isinstance(license, str) or not license:
            raise ValueError("license must be the license key")
        if not isinstance(hwid, str) or not hwid or len(hwid) > MAX_HWID_LENGTH:
            raise ValueError("hwid must be 1 to %d characters" % MAX_HWID_LENGTH)
        if lifetime_seconds is not None and (
            not isinstance(lifetime_seconds, int) or isinstance(lifetime_seconds, bool) or not LIFETIME_SECONDS[0] <= lifetime_seconds <= LIFETIME_SECONDS[1]
        ):
            raise ValueError("lifetime_seconds must be a whole number of seconds from %d to %d" % LIFETIME_SECONDS)
        if encrypt is not None and not isinstance(encrypt, bool):
            raise ValueError("encrypt must be True or False")
        nonce = secrets.token_urlsafe(18)
        self._state.keep_request({"license": license, "hwid": hwid, "nonce": nonce})
        fields = {"app_id": self.app_id, "license": license, "hwid": hwid, "nonce": nonce}
        if lifetime_seconds is not None:
            fields["lifetime_seconds"] = lifetime_seconds
        if encrypt is not None:
            fields["encrypt"] = encrypt
        request = encode_code("lfr1.", fields)
        return ActivationRequest(request, portal_url.rstrip("/") + "/activate/#" + request if portal_url else None)

    def load_license_file(self, text):
        """Accepts a license file made from one of this program's activation requests (surrounding white space
        ignored) and keeps it in state_dir, where check() finds it: it must decrypt (when encrypted) with the request's
        license key and device, verify with the pinned key, and name this application, that license and device, the
        request's nonce (a file made from a request) and a time within nbf and exp. Returns its claims."""
        pending = self._state.pending_requests()
        if not pending:
            raise mismatch("no activation request of this program is waiting for a license file")
        now = self.clock()
        self._state.judge_clock(now)
        failure = None
        for request in reversed(pending):
            try:
                opened = open_file(text, self._key, request["license"], request["hwid"])
                nonce = request["nonce"] if opened.get("air_gapped") is True else None
                claims = check_claims(opened, self.app_id, request["license"], request["hwid"], nonce=nonce, now=now)
            except LicenseError as error:
                # Another request's mismatch says less about this file than the right request's refusal.
                if failure is None or failure.code == "LICENSE_FILE_MISMATCH":
                    failure = error
                continue
            self._state.store_license_file(text)
            self._state.forget_requests(request["license"], request["hwid"])
            return claims
        raise failure

    def return_code(self, license, hwid):
        """Deletes the stored license file of this license and device and returns its return code: `lfx1.` and the
        base64url of {app_id, license, hwid, jti}, which the owner's dashboard or the customer portal takes to free
        the device (under the license's reset rules). The file itself stays valid until its exp."""
        text, code = self._returnable(license, hwid)
        self._state.drop_license_file(text)
        return code

    def return_license_file(self, license, hwid):
        """Returns the stored license file online (/license-file/return) and deletes it once the service took it back;
        a refusal (HWID_RESET_COOLDOWN, …) keeps it."""
        text, code = self._returnable(license, hwid)
        result = self._call("/license-file/return", {"request": code}, None)[0]
        if not isinstance(result.data, dict) or result.data.get("key") != license:
            raise LicenseError("INVALID_SIGNATURE", detail="answer about another license")
        self._state.drop_license_file(text)
        return result

    def start_trial(self, hwid):
        """Asks for this device's trial (/trial): TRIAL_STARTED, or TRIAL_RESUMED for a device whose trial runs, with
        the trial license's data and its key in data["license"], which the program keeps and checks with from then on.
        TRIAL_EXPIRED, TRIAL_CONVERTED, TRIAL_LIMIT_REACHED and TRIALS_DISABLED raise LicenseError."""
        result = self._call("/trial", {"hwid": hwid}, None)[0]
        data = result.data
        if not isinstance(data, dict) or not isinstance(data.get("license"), str) or not data["license"] or data.get("key", data["license"]) != data["license"]:
            raise LicenseError("INVALID_SIGNATURE", detail="the trial answer names no license of its own")
        return result

    # ----- verification and transport --------------------------------------------------------

    @staticmethod
    def _credentials(license, username, password, hwid):
        fields = {}
        for name, value in (("license", license), ("username", username), ("password", password), ("hwid", hwid)):
            if value is not None:
                fields[name] = value
        return fields

    def _call(self, path, fields, license):
        """(LicenseResult, nonce) of a verified success; LicenseError for anything else."""
        if self.url is None:
            raise LicenseError("NETWORK_ERROR", detail="no service URL is set: this client works offline only")
        nonce = secrets.token_urlsafe(24)
        body = json.dumps({"app_id": self.app_id, **fields, "nonce": nonce}, separators=(",", ":")).encode("utf-8")
        request_digest = content_digest(body)
        deadline = time.monotonic() + self.timeout
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LicenseError("NETWORK_ERROR", detail="no answer within %ss" % self.timeout)
            retry_after = None
            try:
                status, headers, raw = self._post(path, body, request_digest, remaining)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
                failure = "%s" % (getattr(error, "reason", None) or error)
            else:
                if status < 500 and status != 429:
                    return self._decide(status, headers, raw, nonce, request_digest, license), nonce
                if has_signature(headers):
                    # The service's own 5xx is signed: one that does not verify was altered on the way.
                    self._verified(status, headers, raw, nonce, request_digest)
                failure = "HTTP %d" % status
                retry_after = headers.get("retry-after")
            wait = min(0.25 * 2**attempt, 4.0) * random.uniform(0.5, 1.0)
            if retry_after and retry_after.strip().isdigit():
                wait = float(retry_after.strip())
            attempt += 1
            if time.monotonic() + wait >= deadline:
                raise LicenseError("NETWORK_ERROR", detail="%s after %d attempt(s)" % (failure, attempt))
            time.sleep(wait)

    def _post(self, path, body, request_digest, timeout):
        request = urllib.request.Request(
            self.url + path,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Content-Digest": request_digest, "Accept-Encoding": "identity"},
        )
        try:
            with self._opener.open(request, timeout=timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as answer:
            with answer:
                return answer.code, answer.headers, answer.read()

    def _verified(self, status, headers, raw, nonce, request_digest):
        try:
            return verify_answer(self._key, status, headers, raw, nonce, request_digest)
        except Rejected as error:
            raise LicenseError("INVALID_SIGNATURE", status=status, detail=str(error)) from error

    def _decide(self, status, headers, raw, nonce, request_digest, license):
        answer = self._verified(status, headers, raw, nonce, request_digest)
        data = answer.get("data")
        if not answer["success"] or status != 200:
            raise LicenseError(str(answer.get("message")), data=data, status=status)
        # A genuine answer about another license (one a relaying proxy holds) is no answer about ours.
        if license is not None and isinstance(data, dict) and "key" in data and data["key"] != license:
            raise LicenseError("INVALID_SIGNATURE", status=status, detail="answer about another license")
        return LicenseResult(answer.get("message"), data)

    # ----- offline tokens --------------------------------------------------------------------

    def _token_claims(self, token, nonce, license, hwid):
        if not isinstance(token, str):
            raise LicenseError("INVALID_SIGNATURE", detail="success without the offline token asked for")
        try:
            claims = _offline.decode(self._key, self.app_id, token)
        except Rejected as error:
            raise LicenseError("INVALID_SIGNATURE", detail=str(error)) from error
        # `license` is the data's key, already compared with the key asked for: the token must name the same.
        if claims.get("nonce") != nonce or claims["sub"] != license or (hwid is not None and not _offline.names_device(claims, hwid)):
            raise LicenseError("INVALID_SIGNATURE", detail="offline token for another request, license or device")
        return claims

    def _keep_token(self, token, nonce, license, username, hwid):
        claims = self._token_claims(token, nonce, license, hwid)
        try:
            _offline.write(self.token_file, token, username)
            self._state.saw_service_time(claims.get("iat"))
        except OSError as error:
            # The service said yes: an unwritable token file costs the offline fallback, not this run of the program.
            warnings.warn("licensing_client: cannot keep the offline token in %s: %s" % (self.token_file, error), RuntimeWarning, stacklevel=3)

    def _forget_token(self, license, username):
        record = _offline.read(self.token_file)
        if record is None:
            return
        try:
            claims = _offline.decode(self._key, self.app_id, record["token"])
        except Rejected:
            _offline.remove(self.token_file)
            return
        if claims["sub"] == license or (license is None and _offline.same_username(record.get("username"), username)):
            _offline.remove(self.token_file)

    def _offline(self, network_error, license, username, hwid):
        """The check answered from what is stored, the license file first (it carries the license data), then the
        token. Nothing stored for this license and device leaves the network's error; when something is but cannot be
        used (expired, altered, the clock set back), the first such reason is raised."""
        failure = None
        for stored in (self._from_license_file, self._from_token):
            try:
                result = stored(license, username, hwid)
            except LicenseError as error:
                failure = failure or error
                continue
            if result is not None:
                return result
        raise failure or network_error

    def _from_token(self, license, username, hwid):
        record = _offline.read(self.token_file) if self.token_file else None
        if record is None:
            return None
        try:
            claims = _offline.decode(self._key, self.app_id, record["token"])
        except Rejected as error:
            raise LicenseError("INVALID_SIGNATURE", detail="stored token: %s" % error) from error
        asked_for = claims["sub"] == license if license is not None else _offline.same_username(record.get("username"), username)
        if not asked_for or not _offline.names_device(claims, hwid):
            return None
        now = self.clock()
        self._state.judge_clock(now)
        if now + NBF_LEEWAY_SECONDS < claims["nbf"]:
            return None
        if now >= claims["exp"]:
            raise LicenseError("OFFLINE_TOKEN_EXPIRED", data={"expired_at": _iso(claims["exp"])})
        # The token's signed claims, plus the names the online data uses for the license and how long this lasts.
        data = {**claims, "key": claims["sub"], "offline_until": _iso(claims["exp"])}
        return LicenseResult(OFFLINE_MESSAGE, data, offline=True)

    def _stored_file(self, license, username, hwid):
        """(text, claims) of the stored license file when it is about these credentials and this device, its signature
        verified; None when there is none or it is another license's or device's. An encrypted file is read only by a
        check that names the license key and the device, which its key is made of."""
        text = self._state.license_file()
        if text is None or hwid is None:
            return None
        key = license if license is not None else _license_file.peek_license(text)
        if key is None:
            return None
        try:
            claims = open_file(text, self._key, key, hwid)
        except LicenseError as error:
            if error.code == "LICENSE_FILE_MISMATCH":
                return None
            raise
        data = claims.get("data") if isinstance(claims.get("data"), dict) else {}
        asked_for = claims.get("sub") == license if license is not None else _offline.same_username(data.get("username"), username)
        return (text, claims) if asked_for and _offline.names_device(claims, hwid) else None

    def _from_license_file(self, license, username, hwid):
        stored = self._stored_file(license, username, hwid)
        if stored is None:
            return None
        now = self.clock()
        self._state.judge_clock(now)
        claims = check_claims(stored[1], self.app_id, stored[1]["sub"], hwid, now=now)
        # As from a token: the signed claims (the license data in data["data"]), the key, and how long this lasts.
        return LicenseResult(OFFLINE_FILE_MESSAGE, {**claims, "key": claims["sub"], "offline_until": _iso(claims["exp"])}, offline=True, claims=claims)

    def _forget_license_file(self, license, username, hwid):
        try:
            stored = self._stored_file(license, username, hwid)
        except LicenseError:
            return
        if stored is not None:
            self._state.drop_license_file(stored[0])

    def _returnable(self, license, hwid):
        """The stored file of this license and device, verified, and its return code."""
        if not self._state.dir:
            raise ValueError("Returning a license file needs state_dir")
        text = self._state.license_file()
        if text is None:
            raise mismatch("no license file is stored")
        claims = check_claims(open_file(text, self._key, license, hwid), self.app_id, license, hwid)
        return text, encode_code("lfx1.", {"app_id": self.app_id, "license": license, "hwid": hwid, "jti": claims["jti"]})


class Heartbeat:
    """The handle of start_heartbeat: `result` is the last renewal, `lost` the error that ended it (or None)."""

    def __init__(self, client, fields, license, first, on_lost, interval):
        self._client = client
        self._fields = fields
        self._license = license
        self._on_lost = on_lost
        self._interval = interval
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._released = False
        self.result = first
        self.lost = None
        self._thread = threading.Thread(target=self._run, name="license-heartbeat", daemon=True)
        atexit.register(self.stop)
        self._thread.start()

    def _lease_end(self):
        end = (self.result.data or {}).get("lease_expires_at")
        return _epoch(end) if isinstance(end, str) else None

    def _delay(self):
        if self._interval is not None:
            base = self._interval
        else:
            end = self._lease_end()
            base = (end - self._client.clock()) / 2 if end is not None else 60
        return max(0.05, base * random.uniform(0.85, 1.15))

    def _run(self):
        delay = self._delay()
        while not self._stopped.wait(delay):
            try:
                self.result = self._client._call("/auth", self._fields, self._license)[0]
                delay = self._delay()
            except LicenseError as error:
                end = self._lease_end()
                if error.code == "NETWORK_ERROR" and end is not None and self._client.clock() < end:
                    # The seat is ours until the lease ends: keep trying until then.
                    delay = max(0.05, min(self._delay(), (end - self._client.clock()) / 2))
                    continue
                self.lost = error
                self._stopped.set()
                if self._on_lost is not None:
                    self._on_lost(error)
                return

    def stop(self, release=True):
        """Stops renewing and, unless the seat was already lost, gives it back (/release)."""
        self._stopped.set()
        atexit.unregister(self.stop)
        if self._thread is not threading.current_thread():
            self._thread.join(self._client.timeout + 1)
        with self._lock:
            if self._released or self.lost is not None or not release:
                return None
            self._released = True
        try:
            return self._client._call("/release", self._fields, self._license)[0]
        except LicenseError as error:
            # Nothing left to give back (or no way to): the seat lapses with its lease.
            if error.code in ("HWID_NOT_BOUND", "LEASE_BORROWED", "LICENSE_NOT_FLOATING", "NETWORK_ERROR"):
                return None
            raise
