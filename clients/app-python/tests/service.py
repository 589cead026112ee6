"""The service under test, as test/clients/app-python.test.ts starts it: the local server, an intercepting proxy, an owner."""

import json
import os
import shutil
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from licensing_client import LicenseClient

URL = os.environ["LICENSING_URL"]
PROXY_URL = os.environ["LICENSING_PROXY_URL"]
APP_ID = os.environ["LICENSING_APP_ID"]
API_KEY = os.environ["LICENSING_API_KEY"]
PUBLIC_JWK = json.loads(os.environ["LICENSING_PUBLIC_JWK"])
PUBLIC_KEY_PEM = os.environ["LICENSING_PUBLIC_KEY_PEM"]


def _post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as failure:
        with failure:
            return failure.code, json.loads(failure.read() or b"null")


def manage(path, body):
    """A management call as the owner; its data, or an AssertionError naming the failure."""
    status, answer = _post(URL + path, body, {"x-api-key": API_KEY})
    if status != 200:
        raise AssertionError("%s answered %s: %s" % (path, status, answer))
    return answer["data"]


def client_route(path, body):
    """A client route called as the owner's dashboard or the customer portal calls it: its status and body."""
    return _post(URL + path, body)


_subscription = []


def subscription_id():
    if not _subscription:
        created = manage("/subscription/create", {"app_id": APP_ID, "name": "Python client tests", "level": 3})
        _subscription.append(created["subscription_id"])
    return _subscription[0]


def new_license(**fields):
    """A new 30-day license of the test subscription (fields as /license/create takes them); its key."""
    body = {"app_id": APP_ID, "subscription_id": subscription_id(), "duration_unit": "days", "duration_value": 30, **fields}
    return manage("/license/create", body)["key"]


def floating_license(seats=1, **fields):
    return new_license(hwid_lock=True, max_devices=seats, lease_seconds=60, **fields)


def proxy(mode, times=None, **extra):
    """Sets how the proxy treats the next `times` requests (all of them when None) and clears its log."""
    body = {"mode": mode, **extra}
    if times is not None:
        body["times"] = times
    status, _ = _post(PROXY_URL + "/__control/mode", body)
    assert status == 200


def proxy_log():
    """The request bodies the proxy forwarded since its mode was last set."""
    return _post(PROXY_URL + "/__control/log", {})[1]["log"]


def set_server(running):
    status, _ = _post(PROXY_URL + "/__control/server", {"running": running})
    assert status == 200


def set_team_plan(expires_at):
    """The team's plan expiry (an ISO time, or None for none), as the admin CLI sets it."""
    status, _ = _post(PROXY_URL + "/__control/team", {"plan_expires_at": expires_at})
    assert status == 200


def expire(license):
    """Makes the license expired an hour ago, as time would."""
    status, _ = _post(PROXY_URL + "/__control/expire", {"license": license})
    assert status == 200


def client(url=URL, public_key=None, **options):
    return LicenseClient(url, APP_ID, PUBLIC_JWK if public_key is None else public_key, **options)


class FakeClock:
    """Seconds since the epoch that a test moves by hand."""

    def __init__(self):
        self.now = time.time()

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


class ServiceTestCase(unittest.TestCase):
    """Each test starts with the proxy passing answers through and a fresh directory for token files."""

    def setUp(self):
        proxy("pass")
        self.directory = tempfile.mkdtemp(prefix="licensing-client-test-")
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.addCleanup(proxy, "pass")

    def token_path(self, name="token.json"):
        return os.path.join(self.directory, name)

    def read_token_file(self):
        with open(self.token_path(), encoding="utf-8") as handle:
            return handle.read()

    def write_token_file(self, text):
        with open(self.token_path(), "w", encoding="utf-8") as handle:
            handle.write(text)

    def stop_server(self):
        """The service unreachable until the test ends (or start_server)."""
        set_server(False)
        self.addCleanup(set_server, True)

    def start_server(self):
        set_server(True)
