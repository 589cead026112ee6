"""start_trial against the service's own /trial: one trial per device, its key checked as any license, its answers verified."""

import time

from licensing_client import LicenseError
from service import APP_ID, PROXY_URL, ServiceTestCase, client, manage, proxy, proxy_log, subscription_id


def trials_on():
    manage("/app/settings", {"app_id": APP_ID, "trial": {"subscription_id": subscription_id(), "duration_seconds": 14 * 86400, "per_ip_per_day": 1000}})


def settled(call, stale_code):
    """What `call` raises or answers once the service's short-lived cache of the application holds its new settings."""
    deadline = time.monotonic() + 15
    while True:
        try:
            return call()
        except LicenseError as failure:
            if failure.code != stale_code or time.monotonic() > deadline:
                raise
        time.sleep(0.5)


class TrialTest(ServiceTestCase):
    def setUp(self):
        super().setUp()
        trials_on()
        settled(lambda: client().start_trial("py-trial-probe"), "TRIALS_DISABLED")
        self.device = "py-trial-%d" % time.time_ns()

    def test_a_device_starts_its_trial_once_and_resumes_it_with_the_same_key(self):
        started = client().start_trial(self.device)
        key = started.data["license"]
        self.assertEqual((started.message, started.data["key"], started.offline), ("TRIAL_STARTED", key, False))
        self.assertEqual(started.data["subscription_name"], "Python client tests")
        resumed = client(PROXY_URL).start_trial(self.device)
        self.assertEqual((resumed.message, resumed.data["license"]), ("TRIAL_RESUMED", key))
        self.assertEqual(proxy_log()[0]["hwid"], self.device)
        self.assertRegex(proxy_log()[0]["nonce"], r"^[A-Za-z0-9._~+/=-]{8,128}$")
        checked = client().check(license=key, hwid=self.device)
        self.assertEqual(checked.message, "LICENSE_VERIFIED_USED_AND_LOCKED_KEY")
        self.assertEqual(manage("/license/get", {"license_key": key})["tags"], ["trial"])

    def test_the_services_refusals_are_license_errors(self):
        key = client().start_trial(self.device).data["license"]
        manage("/license/delete", {"license_key": key})
        with self.assertRaises(LicenseError) as ended:
            client().start_trial(self.device)
        self.assertEqual((ended.exception.code, ended.exception.status), ("TRIAL_EXPIRED", 403))
        self.assertEqual(set(ended.exception.data), {"expires_at"})
        manage("/app/settings", {"app_id": APP_ID, "trial": None})
        self.addCleanup(trials_on)
        with self.assertRaises(LicenseError) as disabled:
            settled(lambda: client().start_trial(self.device), "TRIAL_EXPIRED")
        self.assertEqual(disabled.exception.code, "TRIALS_DISABLED")

    def test_an_altered_trial_answer_is_invalid_signature(self):
        for mode in ("body", "body-redigest", "signature", "strip", "nonce-answer"):
            with self.subTest(mode=mode):
                proxy(mode)
                with self.assertRaises(LicenseError) as rejected:
                    client(PROXY_URL).start_trial(self.device)
                self.assertEqual(rejected.exception.code, "INVALID_SIGNATURE")
