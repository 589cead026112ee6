import os
import re
import subprocess
import sys
import time
import uuid

from minting import StandIn, TestKey, decode_code, iso, license_data, mint_file
from service import APP_ID, PUBLIC_KEY_PEM, URL, ServiceTestCase, client, floating_license, manage, new_license

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = ["check_license.py", "floating_seat.py", "metered_usage.py", "air_gapped.py", "trial.py"]


def example_text(name):
    with open(os.path.join(PROJECT, "examples", name), encoding="utf-8") as handle:
        return handle.read()


class ReadmeTest(ServiceTestCase):
    def run_example(self, name, *arguments, **settings):
        """The example as a user runs it: its own process, the service's URL, app id and PEM in the environment
        (or the LICENSING_* `settings` given)."""
        environment = {**os.environ, "HOME": self.directory, "LICENSING_URL": URL, "LICENSING_APP_ID": APP_ID, "LICENSING_PUBLIC_KEY": PUBLIC_KEY_PEM}
        environment.update({"LICENSING_" + setting.upper(): value for setting, value in settings.items()})
        return subprocess.run([sys.executable, os.path.join(PROJECT, "examples", name), *arguments], capture_output=True, text=True, timeout=60, env=environment)

    def test_the_readme_shows_the_very_examples_the_tests_run(self):
        with open(os.path.join(PROJECT, "README.md"), encoding="utf-8") as handle:
            readme = handle.read()
        for name in EXAMPLES:
            with self.subTest(example=name):
                self.assertIn("```python\n" + example_text(name) + "```", readme)

    def test_check_license_runs_licensed_and_refuses_an_unknown_key(self):
        key = new_license(hwid_lock=True)
        licensed = self.run_example("check_license.py", key)
        self.assertEqual(licensed.returncode, 0, licensed.stderr)
        self.assertRegex(licensed.stdout, r"^Licensed \(Python client tests\), valid until \d{4}-")
        self.assertTrue(os.path.exists(os.path.join(self.directory, ".example-app", "license-token")))
        refused = self.run_example("check_license.py", "NOT-A-KEY")
        self.assertEqual((refused.returncode, refused.stderr.strip()), (1, "This copy is not licensed: LICENSE_NOT_FOUND"))

    def test_floating_seat_takes_and_releases_the_seat_or_says_when_one_is_free(self):
        key = floating_license()
        ran = self.run_example("floating_seat.py", key)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertRegex(ran.stdout, r"^Seat held until \d{4}-.*\nSeat released\n$")
        self.assertEqual(manage("/license/get", {"license_key": key})["leases"], [])
        client().check(license=key, hwid="another-desk")
        full = self.run_example("floating_seat.py", key)
        self.assertEqual(full.returncode, 1)
        self.assertRegex(full.stderr, r"^All 1 seats are in use; the next one is free at \d{4}-")

    def test_metered_usage_counts_one_export_then_says_none_are_left(self):
        key = new_license(hwid_lock=True, usage_limits={"exports": {"limit": 1, "period": "month"}})
        first = self.run_example("metered_usage.py", key)
        self.assertEqual((first.returncode, first.stdout, first.stderr), (0, "Exported; 0 exports left\n", ""))
        second = self.run_example("metered_usage.py", key)
        self.assertEqual(second.returncode, 1)
        self.assertRegex(second.stderr, r"^No exports left until \d{4}-\d\d-01T00:00:00\.000Z")

    def test_air_gapped_makes_a_request_loads_the_file_made_from_it_checks_offline_and_returns_it(self):
        key, app_id = TestKey(), str(uuid.uuid4())
        settings = {"app_id": app_id, "public_key": key.pem, "portal_url": "https://portal.example.com/portal"}
        requested = self.run_example("air_gapped.py", "AIR-GAPPED-KEY", "request", **settings)
        self.assertEqual(requested.returncode, 0, requested.stderr)
        link, request = re.fullmatch(r"Scan or open: (\S+)\nor send this to your vendor: (lfr1\.\S+)\n", requested.stdout).groups()
        self.assertEqual(link, "https://portal.example.com/portal/activate/#" + request)
        asked = decode_code(request, "lfr1.")
        self.assertEqual((asked["app_id"], asked["license"]), (app_id, "AIR-GAPPED-KEY"))

        # The portal's part: a file for that request, encrypted for the device.
        now = int(time.time())
        path = os.path.join(self.directory, "license-from-the-portal.lic")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(mint_file(key, app_id, asked["license"], asked["hwid"], now, nonce=asked["nonce"], encrypt_for=True) + "\n")
        loaded = self.run_example("air_gapped.py", "AIR-GAPPED-KEY", "load", path, **settings)
        self.assertEqual((loaded.returncode, loaded.stdout, loaded.stderr), (0, "License file installed for Pro\n", ""))

        checked = self.run_example("air_gapped.py", "AIR-GAPPED-KEY", **settings)
        self.assertEqual((checked.returncode, checked.stderr), (0, ""))
        self.assertEqual(checked.stdout, "Licensed (Pro) until %s by LICENSE_FILE_VALID\n" % iso(now + 30 * 86400))

        returned = self.run_example("air_gapped.py", "AIR-GAPPED-KEY", "return", **settings)
        self.assertEqual(returned.returncode, 0, returned.stderr)
        code = re.fullmatch(r"Return code: (lfx1\.\S+)\n", returned.stdout).group(1)
        self.assertEqual({**decode_code(code, "lfx1."), "jti": None}, {"app_id": app_id, "license": "AIR-GAPPED-KEY", "hwid": asked["hwid"], "jti": None})
        gone = self.run_example("air_gapped.py", "AIR-GAPPED-KEY", **settings)
        self.assertEqual((gone.returncode, gone.stderr.strip()), (1, "Not licensed: NETWORK_ERROR"))

    def test_trial_starts_once_keeps_the_key_checks_with_it_and_says_when_it_ended(self):
        key, app_id = TestKey(), str(uuid.uuid4())
        stand_in = StandIn(key)
        self.addCleanup(stand_in.close)
        now = int(time.time())
        trial = {**license_data("TRIAL-KEY", "device", now, expires_at=iso(now + 14 * 86400)), "license": "TRIAL-KEY"}
        stand_in.answers["/trial"] = (200, {"success": True, "message": "TRIAL_STARTED", "data": trial})
        stand_in.answers["/auth"] = lambda body: (200, {"success": True, "message": "LICENSE_VERIFIED_USED_AND_LOCKED_KEY", "data": {**trial, "key": body["license"]}})
        settings = {"url": stand_in.url, "app_id": app_id, "public_key": key.pem}

        first = self.run_example("trial.py", **settings)
        self.assertEqual((first.returncode, first.stderr), (0, ""))
        self.assertEqual(first.stdout, "TRIAL_STARTED: trial until %s\nLicensed (Pro) until %s\n" % (trial["expires_at"], trial["expires_at"]))
        with open(os.path.join(self.directory, ".example-app", "license-key"), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "TRIAL-KEY")
        second = self.run_example("trial.py", **settings)
        self.assertEqual((second.returncode, second.stdout), (0, "Licensed (Pro) until %s\n" % trial["expires_at"]))
        self.assertEqual([(path, body.get("license")) for path, body in stand_in.seen], [("/trial", None), ("/auth", "TRIAL-KEY"), ("/auth", "TRIAL-KEY")])

        stand_in.answers["/trial"] = (403, {"success": False, "message": "TRIAL_EXPIRED", "data": {"expires_at": trial["expires_at"]}})
        os.remove(os.path.join(self.directory, ".example-app", "license-key"))
        ended = self.run_example("trial.py", **settings)
        self.assertEqual((ended.returncode, ended.stdout, ended.stderr.strip()), (1, "", "Not licensed: TRIAL_EXPIRED"))
