import os

from licensing_client import LicenseError
from service import PROXY_URL, ServiceTestCase, client, new_license, proxy, proxy_log

# Each is what an intercepting proxy does to a genuine answer (test/clients/app-python.test.ts).
ALTERATIONS = [
    "status",  # 200 made 403, 403 made 200
    "status-5xx",  # a signed answer made a 503 (retrying it would open the offline path)
    "body",  # success and level changed, digest left
    "body-redigest",  # the same with a recomputed Content-Digest
    "signature",  # one bit of the signature flipped
    "strip",  # signature headers removed
    "nonce-request",  # the request's nonce replaced (digest recomputed): a genuine answer to another nonce
    "nonce-answer",  # the nonce parameter of Signature-Input replaced
]


class TamperingTest(ServiceTestCase):
    def assert_rejected(self, call):
        with self.assertRaises(LicenseError) as rejected:
            call()
        self.assertEqual(rejected.exception.code, "INVALID_SIGNATURE")

    def test_every_alteration_of_a_success_is_rejected_even_with_a_stored_token(self):
        key = new_license()
        token_file = self.token_path()
        client(token_file=token_file).check(license=key)
        stored = self.read_token_file()
        for mode in ALTERATIONS:
            with self.subTest(mode=mode):
                proxy(mode)
                self.assert_rejected(lambda: client(PROXY_URL, token_file=token_file).check(license=key))
                self.assertEqual(self.read_token_file(), stored, "a rejected answer never touches the stored token")

    def test_every_alteration_of_a_refusal_is_rejected(self):
        for mode in ALTERATIONS:
            with self.subTest(mode=mode):
                proxy(mode)
                self.assert_rejected(lambda: client(PROXY_URL).check(license="NOT-A-LICENSE"))

    def test_an_old_answer_replayed_is_rejected(self):
        key = new_license()
        through_proxy = client(PROXY_URL)
        self.assertEqual(through_proxy.check(license=key).data["key"], key)
        proxy("replay", times=1)
        self.assert_rejected(lambda: through_proxy.check(license=key))
        self.assertEqual(proxy_log(), [], "the proxy answered from its record, without asking the service")

    def test_a_relayed_answer_about_another_license_is_rejected(self):
        genuine = new_license()
        proxy("relay", license=genuine)
        self.assert_rejected(lambda: client(PROXY_URL).check(license="CRACKED-KEY"))
        # Even a relay that keeps the client's digest fails: the answer is signed over the proxy's body.
        self.assertEqual(proxy_log()[0]["license"], "CRACKED-KEY")

    def test_the_other_routes_are_verified_too(self):
        key = new_license(hwid_lock=True, usage_limits={"exports": {"limit": 5, "period": "none"}})
        client().check(license=key, hwid="pc-1")
        calls = {
            "usage": lambda: client(PROXY_URL).record_usage(license=key, hwid="pc-1", counter="exports"),
            "reset": lambda: client(PROXY_URL).reset_hwid(license=key, hwid="pc-1"),
            "register": lambda: client(PROXY_URL).register(key, "tampered-%s" % os.getpid(), "password-123"),
            "release": lambda: client(PROXY_URL).release(license=key, hwid="pc-1"),
        }
        for name, call in calls.items():
            with self.subTest(route=name):
                proxy("body-redigest")
                self.assert_rejected(call)
