"""LicenseClient: the client routes of the licensing service, every answer verified against the pinned key."""

import atexit
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

from . import _offline
from ._answers import PinnedKey, Rejected, content_digest, has_signature, verify_answer
from ._machine import machine_id

OFFLINE_MESSAGE = "OFFLINE_TOKEN_VALID"
# A token is issued at the service's time (nbf = iat, whole seconds): a client clock a little behind it must not
# refuse a token it has just been given. `exp` gets no such leeway.
NBF_LEEWAY_SECONDS = 60


class LicenseError(Exception):
    """Every failure: `code` is the service's message, or INVALID_SIGNATURE, NETWORK_ERROR, OFFLINE_TOKEN_EXPIRED."""

    def __init__(self, code, data=None, status=None, detail=None):
        super().__init__(code if detail is None else "%s: %s" % (code, detail))
        self.code = code
        self.data = data
        self.status = status


class LicenseResult:
    """A verified success: the service's `message` and `data`, and whether it came from the stored token."""

    def __init__(self, message, data, offline=False):
        self.message = message
        self.data = data
        self.offline = offline

    def __repr__(self):
        return "LicenseResult(message=%r, offline=%r)" % (self.message, self.offline)


def _iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is no answer of the service: it surfaces as the unsigned 3xx it is."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class LicenseClient:
    """A client of one application, pinned to that application's public key (PEM string or JWK dict).

    `token_file`: where the last offline token is kept; without it no token is asked for.
    `timeout`: seconds one call may take, retries of 5xx, 429 and network errors included.
    `clock`: seconds since the epoch, for judging offline tokens (tests pass a fake one).
    """

    def __init__(self, url, app_id, public_key, token_file=None, timeout=10, clock=time.time):
        self.url = url.rstrip("/")
        self.app_id = app_id
        self.token_file = token_file
        self.timeout = timeout
        self.clock = clock
        self._key = PinnedKey(public_key)
        self._opener = urllib.request.build_opener(_NoRedirect)

    # ----- the routes -------------------------------------------------------------------------

    def check(self, license=None, username=None, password=None, hwid=None):
        """Authenticates (/auth). When the service cannot be reached, a valid stored token answers (offline=True)."""
        fields = self._credentials(license, username, password, hwid)
        if self.token_file:
            fields["offline_token"] = True
        try:
            result, nonce = self._call("/auth", fields, license)
        except LicenseError as error:
            if error.code == "NETWORK_ERROR" and self.token_file:
                return self._offline(error, license, username, hwid)
            if error.status == 403 and error.code != "INVALID_SIGNATURE" and self.token_file:
                # The service refused this license (paused, expired, another device): its old token must not outlive that.
                self._forget_token(license, username)
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
        self._token_claims(token, nonce, license, hwid)
        try:
            _offline.write(self.token_file, token, username)
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
        record = _offline.read(self.token_file)
        if record is None:
            raise network_error
        try:
            claims = _offline.decode(self._key, self.app_id, record["token"])
        except Rejected as error:
            raise LicenseError("INVALID_SIGNATURE", detail="stored token: %s" % error) from error
        asked_for = claims["sub"] == license if license is not None else _offline.same_username(record.get("username"), username)
        if not asked_for or not _offline.names_device(claims, hwid):
            raise network_error
        now = self.clock()
        if now + NBF_LEEWAY_SECONDS < claims["nbf"]:
            raise network_error
        if now >= claims["exp"]:
            raise LicenseError("OFFLINE_TOKEN_EXPIRED", data={"expired_at": _iso(claims["exp"])})
        # The token's signed claims, plus the names the online data uses for the license and how long this lasts.
        data = {**claims, "key": claims["sub"], "offline_until": _iso(claims["exp"])}
        return LicenseResult(OFFLINE_MESSAGE, data, offline=True)


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
