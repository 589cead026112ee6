import os
import subprocess
import sys

from service import APP_ID, PUBLIC_KEY_PEM, URL, ServiceTestCase, client, floating_license, manage, new_license

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = ["check_license.py", "floating_seat.py", "metered_usage.py"]


def example_text(name):
    with open(os.path.join(PROJECT, "examples", name), encoding="utf-8") as handle:
        return handle.read()


class ReadmeTest(ServiceTestCase):
    def run_example(self, name, *arguments):
        """The example as a user runs it: its own process, the service's URL, app id and PEM in the environment."""
        environment = {**os.environ, "HOME": self.directory, "LICENSING_URL": URL, "LICENSING_APP_ID": APP_ID, "LICENSING_PUBLIC_KEY": PUBLIC_KEY_PEM}
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
