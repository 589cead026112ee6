import json
import os
import stat
import time
import warnings

import jwt

from licensing_client import LicenseError
from service import FakeClock, ServiceTestCase, client, new_license


class OfflineTest(ServiceTestCase):
    def offline_client(self, **options):
        """A client that gives up on the stopped server quickly."""
        return client(token_file=self.token_path(), timeout=1, **options)

    def online_client(self, **options):
        """The same token file with a deadline a busy machine's running server meets."""
        return client(token_file=self.token_path(), timeout=15, **options)

    def test_a_success_stores_the_offline_token_atomically_and_privately(self):
        key = new_license(hwid_lock=True)
        result = client(token_file=self.token_path()).check(license=key, hwid="laptop")
        record = json.loads(self.read_token_file())
        self.assertEqual(record["token"], result.data["offline_token"])
        claims = jwt.decode(record["token"], options={"verify_signature": False})
        self.assertEqual((claims["sub"], claims["hwid"]), (key, "laptop"))
        self.assertEqual(stat.S_IMODE(os.stat(self.token_path()).st_mode), 0o600)
        # Beside it only the latest time seen (README, "State"), no temporary file.
        self.assertEqual(sorted(os.listdir(self.directory)), ["token.json", "token.json.clock"])

    def test_the_stored_token_answers_while_the_server_is_stopped_until_it_expires(self):
        key = new_license(hwid_lock=True, features=["export.pdf"])
        clock = FakeClock()
        online = self.online_client(clock=clock).check(license=key, hwid="laptop")
        self.assertFalse(online.offline)
        self.stop_server()

        started = time.monotonic()
        offline = self.offline_client(clock=clock).check(license=key, hwid="laptop")
        self.assertLess(time.monotonic() - started, 3.5)
        self.assertTrue(offline.offline)
        self.assertEqual(offline.message, "OFFLINE_TOKEN_VALID")
        self.assertEqual(offline.data["key"], key)
        self.assertEqual(offline.data["subscription_name"], "Python client tests")
        self.assertEqual(offline.data["features"], ["export.pdf"])

        for other in ({"license": key, "hwid": "another-pc"}, {"license": "ANOTHER-KEY", "hwid": "laptop"}):
            with self.subTest(asked=other), self.assertRaises(LicenseError) as not_this_one:
                self.offline_client(clock=clock).check(**other)
            self.assertEqual(not_this_one.exception.code, "NETWORK_ERROR")

        clock.advance(7 * 86400 + 60)
        with self.assertRaises(LicenseError) as expired:
            self.offline_client(clock=clock).check(license=key, hwid="laptop")
        self.assertEqual(expired.exception.code, "OFFLINE_TOKEN_EXPIRED")

        self.start_server()
        self.assertFalse(self.online_client(clock=clock).check(license=key, hwid="laptop").offline)

    def test_a_username_login_works_offline_with_its_username(self):
        key = new_license()
        username = "offline-%d" % time.time_ns()
        client().register(key, username, "password-123")
        self.online_client().check(username=username, password="password-123")
        self.stop_server()
        result = self.offline_client().check(username=username.upper(), password="anything")
        self.assertEqual((result.offline, result.data["key"]), (True, key))
        with self.assertRaises(LicenseError) as other_user:
            self.offline_client().check(username="somebody-else", password="password-123")
        self.assertEqual(other_user.exception.code, "NETWORK_ERROR")

    def test_an_edited_token_file_is_invalid_signature(self):
        key = new_license()
        self.online_client().check(license=key)
        record = json.loads(self.read_token_file())
        header, payload, signature = record["token"].split(".")
        claims = jwt.decode(record["token"], options={"verify_signature": False})
        claims["exp"] += 365 * 86400
        forged_payload = jwt.utils.base64url_encode(json.dumps(claims).encode()).decode()
        self.write_token_file(json.dumps({"token": "%s.%s.%s" % (header, forged_payload, signature), "username": None}))
        self.stop_server()
        with self.assertRaises(LicenseError) as forged:
            self.offline_client().check(license=key)
        self.assertEqual(forged.exception.code, "INVALID_SIGNATURE")

    def test_no_stored_token_means_network_error(self):
        self.stop_server()
        with self.assertRaises(LicenseError) as failed:
            self.offline_client().check(license="ANY-KEY")
        self.assertEqual(failed.exception.code, "NETWORK_ERROR")

    def test_an_unwritable_token_file_warns_and_the_check_still_succeeds(self):
        key = new_license()
        blocker = self.token_path("a-file")
        self.write_token_file("")
        os.replace(self.token_path(), blocker)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = client(token_file=os.path.join(blocker, "token")).check(license=key)
        self.assertEqual(result.data["key"], key)
        self.assertTrue(any("cannot keep the offline token" in str(warning.message) for warning in caught))

    def test_a_token_is_not_used_before_its_nbf_beyond_a_minute_of_clock_skew(self):
        key = new_license()
        clock = FakeClock()
        self.online_client(clock=clock).check(license=key)
        self.stop_server()
        clock.advance(-30)
        self.assertTrue(self.offline_client(clock=clock).check(license=key).offline)
        clock.advance(-90)
        with self.assertRaises(LicenseError) as early:
            self.offline_client(clock=clock).check(license=key)
        self.assertEqual(early.exception.code, "NETWORK_ERROR")
