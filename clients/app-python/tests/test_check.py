import os
import re
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from licensing_client import LicenseClient, LicenseError, machine_id
from licensing_client._machine import machine_source
from service import APP_ID, PROXY_URL, PUBLIC_JWK, PUBLIC_KEY_PEM, URL, ServiceTestCase, client, manage, new_license, proxy, proxy_log


def other_key_pem():
    return Ed25519PrivateKey.generate().public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class CheckTest(ServiceTestCase):
    def test_a_license_key_is_checked_with_the_pinned_jwk_then_the_pem(self):
        key = new_license()
        first = client().check(license=key)
        self.assertEqual((first.message, first.data["key"], first.offline), ("LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY", key, False))
        again = client(public_key=PUBLIC_KEY_PEM).check(license=key)
        self.assertEqual(again.message, "LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY")
        self.assertEqual(again.data["subscription_name"], "Python client tests")

    def test_register_then_check_by_username_and_password(self):
        key = new_license()
        registered = client().register(key, "py-user-%d" % time.time_ns(), "correct horse battery")
        self.assertEqual(registered.message, "License credentials updated successfully")
        username = manage("/license/get", {"license_key": key})["username"]
        result = client().check(username=username.upper(), password="correct horse battery")
        self.assertEqual(result.data["key"], key)
        with self.assertRaises(LicenseError) as refused:
            client().check(username=username, password="wrong password!")
        self.assertEqual(refused.exception.code, "INVALID_USERNAME_OR_PASSWORD")

    def test_the_service_codes_are_license_errors_with_their_data(self):
        with self.assertRaises(LicenseError) as unknown:
            client().check(license="NOPE-NOPE-NOPE")
        self.assertEqual((unknown.exception.code, unknown.exception.status), ("LICENSE_NOT_FOUND", 403))
        key = new_license(hwid_lock=True)
        client().check(license=key, hwid="device-one")
        with self.assertRaises(LicenseError) as mismatch:
            client().check(license=key, hwid="device-two")
        self.assertEqual(mismatch.exception.code, "HWID_MISMATCH")
        self.assertEqual(mismatch.exception.data, {"hwid_reset_allowed": True, "last_hwid_reset_at": None, "hwid_reset_cooldown": 0})
        with self.assertRaises(LicenseError) as no_credentials:
            client().check()
        self.assertEqual(no_credentials.exception.code, "No valid authentication method provided (missing license key or username/password)")

    def test_reset_hwid_moves_a_locked_license_to_another_device(self):
        key = new_license(hwid_lock=True)
        client().check(license=key, hwid="old-pc")
        reset = client().reset_hwid(license=key)
        self.assertEqual((reset.message, reset.data["key"]), ("HWID_RESET", key))
        self.assertEqual(client().check(license=key, hwid="new-pc").message, "LICENSE_VERIFIED_USED_AND_LOCKED_KEY")
        with self.assertRaises(LicenseError) as one_device:
            client().reset_hwid(license=key, hwid="old-pc")
        self.assertEqual(one_device.exception.code, "HWID_NOT_BOUND")

    def test_an_answer_under_another_key_or_unsigned_is_invalid_signature(self):
        key = new_license()
        with self.assertRaises(LicenseError) as other_key:
            client(public_key=other_key_pem()).check(license=key)
        self.assertEqual(other_key.exception.code, "INVALID_SIGNATURE")
        # An unknown application has no key to sign with: its answer is unsigned.
        unknown_app = LicenseClient(URL, "00000000-0000-4000-8000-000000000000", PUBLIC_JWK)
        with self.assertRaises(LicenseError) as unsigned:
            unknown_app.check(license=key)
        self.assertEqual(unsigned.exception.code, "INVALID_SIGNATURE")

    def test_every_call_sends_a_fresh_nonce_and_its_body_digest(self):
        key = new_license()
        through_proxy = client(PROXY_URL)
        through_proxy.check(license=key)
        through_proxy.check(license=key)
        nonces = [body["nonce"] for body in proxy_log()]
        self.assertEqual(len(nonces), 2)
        self.assertNotEqual(nonces[0], nonces[1])
        for nonce in nonces:
            self.assertRegex(nonce, r"^[A-Za-z0-9._~+/=-]{8,128}$")

    def test_a_pinned_jwk_whose_kid_is_not_its_thumbprint_is_refused(self):
        with self.assertRaises(ValueError):
            LicenseClient(URL, APP_ID, {**PUBLIC_JWK, "kid": "another"})
        with self.assertRaises(ValueError):
            LicenseClient(URL, APP_ID, {"kty": "RSA", "n": "x", "e": "AQAB"})


class UsageTest(ServiceTestCase):
    def test_usage_is_recorded_and_refused_past_the_limit(self):
        key = new_license(usage_limits={"exports": {"limit": 2, "period": "none"}})
        client().check(license=key)
        recorded = client().record_usage(license=key, counter="exports")
        self.assertEqual((recorded.message, recorded.data["used"], recorded.data["remaining"]), ("USAGE_RECORDED", 1, 1))
        with self.assertRaises(LicenseError) as over:
            client().record_usage(license=key, counter="exports", amount=2)
        self.assertEqual(over.exception.code, "USAGE_LIMIT_REACHED")
        self.assertEqual(over.exception.data["used"], 1)
        with self.assertRaises(LicenseError) as unknown:
            client().record_usage(license=key, counter="pages")
        self.assertEqual(unknown.exception.code, "USAGE_COUNTER_UNKNOWN")

    def test_a_lost_answer_is_retried_with_the_same_usage_id_and_counted_once(self):
        key = new_license(usage_limits={"exports": {"limit": 10, "period": "month"}})
        client().check(license=key)
        proxy("lose-answer", times=1)
        recorded = client(PROXY_URL).record_usage(license=key, counter="exports", amount=3)
        self.assertEqual(recorded.data["used"], 3)
        sent = proxy_log()
        self.assertEqual(len(sent), 2)
        self.assertEqual(sent[0]["usage_id"], sent[1]["usage_id"])
        self.assertEqual(manage("/license/get", {"license_key": key})["usage"][0]["used"], 3)
        # A new call is a new use: a new usage_id.
        proxy("pass")
        client(PROXY_URL).record_usage(license=key, counter="exports")
        self.assertNotEqual(proxy_log()[0]["usage_id"], sent[0]["usage_id"])


class NetworkTest(ServiceTestCase):
    def test_gateway_5xx_is_retried_with_backoff_then_succeeds(self):
        key = new_license()
        proxy("gateway-502", times=2)
        self.assertEqual(client(PROXY_URL).check(license=key).data["key"], key)

    def test_a_429_is_retried_after_its_retry_after(self):
        key = new_license()
        proxy("rate-limited", times=1)
        started = time.monotonic()
        self.assertEqual(client(PROXY_URL).check(license=key).data["key"], key)
        self.assertGreaterEqual(time.monotonic() - started, 0.95)
        self.assertEqual(len(proxy_log()), 2)

    def test_5xx_until_the_total_timeout_is_network_error(self):
        key = new_license()
        proxy("gateway-502")
        started = time.monotonic()
        with self.assertRaises(LicenseError) as failed:
            client(PROXY_URL, timeout=1.5).check(license=key)
        self.assertEqual(failed.exception.code, "NETWORK_ERROR")
        self.assertLess(time.monotonic() - started, 4)

    def test_nothing_listening_is_network_error_within_the_timeout(self):
        started = time.monotonic()
        with self.assertRaises(LicenseError) as failed:
            client("http://127.0.0.1:9", timeout=1).check(license="ANY-KEY")
        self.assertEqual(failed.exception.code, "NETWORK_ERROR")
        self.assertLess(time.monotonic() - started, 3.5)


class MachineIdTest(ServiceTestCase):
    def test_is_stable_per_application_and_reveals_nothing(self):
        first = client().machine_id()
        self.assertEqual(first, client().machine_id())
        self.assertEqual(first, machine_id(APP_ID))
        # The value the TypeScript library computes for this application on this machine (and the Go, C and C# ones).
        self.assertEqual(first, os.environ["LICENSING_EXPECTED_MACHINE_ID"])
        self.assertRegex(first, r"^[0-9a-f]{64}$")
        self.assertNotEqual(first, machine_id("11111111-1111-4111-8111-111111111111"))
        self.assertNotIn(re.sub(r"[^0-9a-f]", "", machine_source().lower())[:16] or "-", first)

    def test_is_accepted_as_the_hwid_of_a_locked_license(self):
        key = new_license(hwid_lock=True)
        mine = client().machine_id()
        self.assertEqual(client().check(license=key, hwid=mine).message, "LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY")
        self.assertEqual(manage("/license/get", {"license_key": key})["hwid"], mine)
