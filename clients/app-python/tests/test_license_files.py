"""License files, air-gapped activation and trials, against files minted with a test key and a signed stand-in."""

import json
import os
import shutil
import stat
import tempfile
import threading
import time
import unittest
import uuid

from licensing_client import LicenseClient, LicenseError
from minting import DAY, StandIn, TestKey, b64url, b64url_decode, decode_code, encrypt, file_key, iso, license_data, mint_file, mint_token

KEY = TestKey()
OTHER_KEY = TestKey()
APP_ID = str(uuid.uuid4())


class Clock:
    def __init__(self):
        self.now = int(time.time())

    def __call__(self):
        return self.now


class FilesTestCase(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="licensing-client-files-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.clock = Clock()
        self.dirs = 0

    def state_dir(self):
        self.dirs += 1
        return os.path.join(self.root, "state-%d" % self.dirs)

    def client(self, url=None, **options):
        return LicenseClient(url, APP_ID, KEY.jwk, clock=self.clock, timeout=5, **options)

    def mint(self, license, hwid, **options):
        return mint_file(KEY, APP_ID, license, hwid, self.clock.now, **options)

    def waiting(self, encrypt=None):
        """A device with its state directory and a request waiting for its file: (dir, client, license, hwid, nonce)."""
        directory = self.state_dir()
        device = self.client(state_dir=directory)
        license, hwid = "KEY-%s" % uuid.uuid4().hex[:8], "device-%s" % uuid.uuid4().hex[:8]
        request = device.activation_request(license, hwid, encrypt=encrypt)
        return directory, device, license, hwid, decode_code(request.request, "lfr1.")["nonce"]

    def refused(self, call, *arguments, **keywords):
        with self.assertRaises(LicenseError) as raised:
            call(*arguments, **keywords)
        return raised.exception


class ActivationRequestTest(FilesTestCase):
    def test_it_encodes_the_fields_with_a_fresh_nonce_kept_per_request_and_links_to_the_portal(self):
        directory = self.state_dir()
        device = self.client(state_dir=directory)
        first = device.activation_request("KEY-1", "lab-pc", lifetime_seconds=7200, encrypt=True, portal_url="https://licenses.example.com/portal/")
        second = device.activation_request("KEY-1", "lab-pc")

        fields = decode_code(first.request, "lfr1.")
        self.assertEqual(list(fields), ["app_id", "license", "hwid", "nonce", "lifetime_seconds", "encrypt"])
        self.assertEqual({**fields, "nonce": None}, {"app_id": APP_ID, "license": "KEY-1", "hwid": "lab-pc", "nonce": None, "lifetime_seconds": 7200, "encrypt": True})
        self.assertRegex(fields["nonce"], r"^[A-Za-z0-9._~+/=-]{8,128}$")
        self.assertEqual(first.link, "https://licenses.example.com/portal/activate/#" + first.request)
        self.assertEqual(list(decode_code(second.request, "lfr1.")), ["app_id", "license", "hwid", "nonce"])
        self.assertIsNone(second.link)
        self.assertNotEqual(decode_code(second.request, "lfr1.")["nonce"], fields["nonce"])

        kept_path = os.path.join(directory, "activation-requests.json")
        with open(kept_path, encoding="utf-8") as handle:
            kept = json.load(handle)
        self.assertEqual([request["nonce"] for request in kept], [fields["nonce"], decode_code(second.request, "lfr1.")["nonce"]])
        self.assertEqual(stat.S_IMODE(os.stat(kept_path).st_mode), 0o600)

    def test_it_refuses_what_the_service_would_refuse_and_needs_a_state_directory(self):
        device = self.client(state_dir=self.state_dir())
        for lifetime in (0, -1, 1e309, 3599, 3600.5, 315360001, "3600", True):
            with self.subTest(lifetime=lifetime), self.assertRaises(ValueError):
                device.activation_request("KEY-1", "pc", lifetime_seconds=lifetime)
        for license, hwid, extra in (("", "pc", {}), ("KEY-1", "", {}), ("KEY-1", "x" * 257, {}), ("KEY-1", "pc", {"encrypt": "yes"})):
            with self.subTest(license=license, hwid=hwid, extra=extra), self.assertRaises(ValueError):
                device.activation_request(license, hwid, **extra)
        with self.assertRaisesRegex(ValueError, "state_dir"):
            self.client().activation_request("KEY-1", "pc")

    def test_requests_made_from_several_threads_at_once_are_all_kept(self):
        directory = self.state_dir()
        device = self.client(state_dir=directory)
        made = []
        threads = [threading.Thread(target=lambda hwid=hwid: made.append(device.activation_request("KEY-1", hwid))) for hwid in ("pc-1", "pc-2", "pc-3", "pc-4", "pc-5")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with open(os.path.join(directory, "activation-requests.json"), encoding="utf-8") as handle:
            kept = sorted(request["nonce"] for request in json.load(handle))
        self.assertEqual(kept, sorted(decode_code(request.request, "lfr1.")["nonce"] for request in made))

    def test_the_last_ten_requests_wait(self):
        device = self.client(state_dir=self.state_dir())
        requests = [decode_code(device.activation_request("KEY-%d" % index, "pc").request, "lfr1.") for index in range(12)]
        self.assertEqual(self.refused(device.load_license_file, self.mint("KEY-0", "pc", nonce=requests[0]["nonce"])).code, "LICENSE_FILE_MISMATCH")
        self.assertEqual(device.load_license_file(self.mint("KEY-2", "pc", nonce=requests[2]["nonce"]))["sub"], "KEY-2")


class LoadLicenseFileTest(FilesTestCase):
    def test_a_signed_file_from_its_request_is_kept_and_answers_check_offline(self):
        directory, device, license, hwid, nonce = self.waiting()
        text = self.mint(license, hwid, nonce=nonce)

        claims = device.load_license_file("\n  %s\r\n" % text)

        self.assertEqual((claims["sub"], claims["hwid"], claims["nonce"], claims["air_gapped"]), (license, hwid, nonce, True))
        path = os.path.join(directory, "license.lic")
        with open(path, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), text + "\n")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(sorted(os.listdir(directory)), ["activation-requests.json", "clock.json", "license.lic"])
        checked = self.client(state_dir=directory).check(license=license, hwid=hwid)
        self.assertEqual((checked.message, checked.offline), ("LICENSE_FILE_VALID", True))
        self.assertEqual(checked.data, {**claims, "key": license, "offline_until": iso(claims["exp"])})
        self.assertEqual(claims["data"], license_data(license, hwid, self.clock.now))
        self.assertEqual(checked.claims, claims)
        # The request is answered: the same file again waits for a new request.
        self.assertEqual(self.refused(device.load_license_file, text).code, "LICENSE_FILE_MISMATCH")

    def test_an_encrypted_file_is_read_only_by_a_check_naming_its_key_and_device(self):
        directory, device, license, hwid, nonce = self.waiting(encrypt=True)
        text = self.mint(license, hwid, nonce=nonce, encrypt_for=True)
        self.assertEqual(len(text.split(".")), 5)
        self.assertEqual(device.load_license_file(text)["sub"], license)
        self.assertEqual(self.client(state_dir=directory).check(license=license, hwid=hwid).message, "LICENSE_FILE_VALID")
        self.assertEqual(self.refused(self.client(state_dir=directory).check, license=license, hwid="another-device").code, "NETWORK_ERROR")
        self.assertEqual(self.refused(self.client(state_dir=directory).check, license=license).code, "NETWORK_ERROR")

    def test_a_file_made_online_for_a_waiting_license_and_device_is_accepted(self):
        _, device, license, hwid, _ = self.waiting()
        self.assertIs(device.load_license_file(self.mint(license, hwid))["air_gapped"], False)

    def test_every_file_the_device_must_refuse_is_refused_with_its_code_keeping_nothing(self):
        now = self.clock.now

        def altered_claims(license, hwid, nonce):
            header, payload, signature = self.mint(license, hwid, nonce=nonce).split(".")
            claims = json.loads(b64url_decode(payload))
            claims["exp"] += 365 * DAY
            return "%s.%s.%s" % (header, b64url(json.dumps(claims).encode()), signature)

        def unsigned(license, hwid, nonce):
            payload = self.mint(license, hwid, nonce=nonce).split(".")[1]
            return "%s.%s." % (b64url(json.dumps({"alg": "none", "kid": KEY.kid, "typ": "license+jwt"}).encode()), payload)

        def altered_jwe(license, hwid, nonce):
            parts = self.mint(license, hwid, nonce=nonce, encrypt_for=True).split(".")
            ciphertext = bytearray(b64url_decode(parts[3]))
            ciphertext[0] ^= 1
            parts[3] = b64url(bytes(ciphertext))
            return ".".join(parts)

        cases = [
            ("signed by another key, naming ours", "INVALID_SIGNATURE", lambda l, h, n: self.mint(l, h, nonce=n, signer=OTHER_KEY.private)),
            ("signed by another key, naming it", "INVALID_SIGNATURE", lambda l, h, n: mint_file(OTHER_KEY, APP_ID, l, h, now, nonce=n)),
            ("with its claims altered", "INVALID_SIGNATURE", altered_claims),
            ("unsigned (alg none)", "INVALID_SIGNATURE", unsigned),
            ("for another license", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint("ANOTHER-KEY", h, nonce=n)),
            ("for another device", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, "another-device", nonce=n)),
            ("for another application", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, claims={"iss": str(uuid.uuid4())})),
            ("made from another request", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce="another-request-nonce")),
            ("air-gapped without a nonce", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, claims={"air_gapped": True})),
            ("expired", "LICENSE_FILE_EXPIRED", lambda l, h, n: self.mint(l, h, nonce=n, claims={"iat": now - 31 * DAY, "nbf": now - 31 * DAY, "exp": now - 1})),
            ("not valid yet", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, claims={"iat": now + 3600, "nbf": now + 3600})),
            ("of another typ (an offline token)", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, header={"typ": "JWT"})),
            ("whose data is another license's", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, claims={"data": license_data("ANOTHER-KEY", h, now)})),
            ("without a jti", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, claims={"jti": None})),
            ("encrypted for another device", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, encrypt_for=(l, "another-device"))),
            ("encrypted for another license", "LICENSE_FILE_MISMATCH", lambda l, h, n: self.mint(l, h, nonce=n, encrypt_for=("ANOTHER-KEY", h))),
            ("encrypted, then altered", "LICENSE_FILE_MISMATCH", altered_jwe),
            ("encrypted with another content type", "LICENSE_FILE_MISMATCH", lambda l, h, n: encrypt(self.mint(l, h, nonce=n), file_key(l, h), cty="JWT")),
            ("no file at all", "LICENSE_FILE_MISMATCH", lambda l, h, n: "not a license file"),
        ]
        for name, code, make in cases:
            with self.subTest(name):
                directory, device, license, hwid, nonce = self.waiting()
                self.assertEqual(self.refused(device.load_license_file, make(license, hwid, nonce)).code, code)
                self.assertFalse(os.path.exists(os.path.join(directory, "license.lic")))
                self.assertEqual(device.load_license_file(self.mint(license, hwid, nonce=nonce))["sub"], license)

    def test_an_expired_file_says_when_it_ended_and_nbf_has_a_minute_of_leeway(self):
        _, device, license, hwid, nonce = self.waiting()
        expired = self.refused(device.load_license_file, self.mint(license, hwid, nonce=nonce, claims={"exp": self.clock.now - 10}))
        self.assertEqual(expired.data, {"expired_at": iso(self.clock.now - 10)})
        early = self.mint(license, hwid, nonce=nonce, claims={"iat": self.clock.now + 50, "nbf": self.clock.now + 50})
        self.assertEqual(device.load_license_file(early)["sub"], license)

    def test_loading_needs_a_waiting_request_and_so_a_state_directory(self):
        text = self.mint("KEY-1", "pc", nonce="some-nonce-1234")
        self.assertEqual(self.refused(self.client(state_dir=self.state_dir()).load_license_file, text).code, "LICENSE_FILE_MISMATCH")
        with self.assertRaisesRegex(ValueError, "state_dir"):
            self.client().load_license_file(text)

    def test_a_file_minted_by_jose_loads(self):
        """Files the TypeScript side made with jose (test/clients/app-python.test.ts): the same format, read here."""
        made = json.loads(os.environ["LICENSING_JOSE_FILES"])
        for kind in ("signed", "encrypted"):
            with self.subTest(kind):
                directory = self.state_dir()
                os.makedirs(directory)
                with open(os.path.join(directory, "activation-requests.json"), "w", encoding="utf-8") as handle:
                    json.dump([{"license": made["license"], "hwid": made["hwid"], "nonce": made["nonce"]}], handle)
                device = LicenseClient(None, made["app_id"], made["public_jwk"], state_dir=directory)
                claims = device.load_license_file(made[kind])
                self.assertEqual((claims["sub"], claims["hwid"], claims["nonce"]), (made["license"], made["hwid"], made["nonce"]))
                self.assertEqual(device.check(license=made["license"], hwid=made["hwid"]).message, "LICENSE_FILE_VALID")


class CheckFromFileTest(FilesTestCase):
    def test_the_file_answers_for_its_license_and_device_until_exp_while_the_service_is_out_of_reach(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce, claims={"exp": self.clock.now + 2 * DAY}))
        unreachable = self.client(url="http://127.0.0.1:9", state_dir=directory)
        unreachable.timeout = 0.3
        self.assertEqual(unreachable.check(license=license, hwid=hwid).message, "LICENSE_FILE_VALID")
        self.assertEqual(self.refused(unreachable.check, license="ANOTHER-KEY", hwid=hwid).code, "NETWORK_ERROR")
        self.assertEqual(self.refused(unreachable.check, license=license, hwid="another-device").code, "NETWORK_ERROR")
        self.clock.now += 2 * DAY
        expired = self.refused(unreachable.check, license=license, hwid=hwid)
        self.assertEqual((expired.code, expired.data), ("LICENSE_FILE_EXPIRED", {"expired_at": iso(self.clock.now)}))

    def test_a_check_by_username_uses_a_signed_file_whose_data_has_it(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce, claims={"data": license_data(license, hwid, self.clock.now, username="ana")}))
        self.assertEqual(self.client(state_dir=directory).check(username="ANA", password="x", hwid=hwid).data["key"], license)
        self.assertEqual(self.refused(self.client(state_dir=directory).check, username="ben", password="x", hwid=hwid).code, "NETWORK_ERROR")

    def test_the_file_comes_before_the_token_which_answers_once_the_file_expired(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce, claims={"exp": self.clock.now + DAY}))
        with open(os.path.join(directory, "offline-token.json"), "w", encoding="utf-8") as handle:
            json.dump({"token": mint_token(KEY, APP_ID, license, hwid, self.clock.now), "username": None}, handle)
        self.assertEqual(self.client(state_dir=directory).check(license=license, hwid=hwid).message, "LICENSE_FILE_VALID")
        self.clock.now += 2 * DAY
        self.assertEqual(self.client(state_dir=directory).check(license=license, hwid=hwid).message, "OFFLINE_TOKEN_VALID")

    def test_an_altered_stored_file_is_invalid_signature(self):
        directory, device, license, hwid, nonce = self.waiting()
        header, payload, signature = self.mint(license, hwid, nonce=nonce).split(".")
        device.load_license_file("%s.%s.%s" % (header, payload, signature))
        claims = json.loads(b64url_decode(payload))
        claims["subscription_level"] = 99
        with open(os.path.join(directory, "license.lic"), "w", encoding="utf-8") as handle:
            handle.write("%s.%s.%s\n" % (header, b64url(json.dumps(claims).encode()), signature))
        self.assertEqual(self.refused(self.client(state_dir=directory).check, license=license, hwid=hwid).code, "INVALID_SIGNATURE")


class ClockTest(FilesTestCase):
    def test_the_stored_file_is_refused_once_the_clock_is_more_than_a_day_behind_the_latest_time_seen(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce, claims={"iat": self.clock.now - 5 * DAY, "nbf": self.clock.now - 5 * DAY}))
        self.clock.now += 3 * DAY
        self.assertTrue(self.client(state_dir=directory).check(license=license, hwid=hwid).offline)
        self.clock.now -= 20 * 3600
        self.assertTrue(self.client(state_dir=directory).check(license=license, hwid=hwid).offline)
        self.clock.now -= 5 * 3600
        refused = self.refused(self.client(state_dir=directory).check, license=license, hwid=hwid)
        self.assertEqual((refused.code, refused.data), ("CLOCK_MOVED_BACK", {"latest_seen_at": iso(self.clock.now + 25 * 3600)}))
        again = self.client(state_dir=directory)
        next_nonce = decode_code(again.activation_request(license, hwid).request, "lfr1.")["nonce"]
        self.assertEqual(self.refused(again.load_license_file, self.mint(license, hwid, nonce=next_nonce)).code, "CLOCK_MOVED_BACK")

    def test_a_stored_token_is_refused_the_same_way_the_time_kept_beside_the_token_file(self):
        token_file = os.path.join(self.root, "token.json")
        with open(token_file, "w", encoding="utf-8") as handle:
            json.dump({"token": mint_token(KEY, APP_ID, "KEY-T", "pc", self.clock.now - DAY, nbf=self.clock.now - DAY), "username": None}, handle)
        self.assertEqual(self.client(token_file=token_file).check(license="KEY-T", hwid="pc").message, "OFFLINE_TOKEN_VALID")
        with open(token_file + ".clock", encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"seen": self.clock.now})
        self.clock.now -= 2 * DAY
        self.assertEqual(self.refused(self.client(token_file=token_file).check, license="KEY-T", hwid="pc").code, "CLOCK_MOVED_BACK")


class ReturnCodeTest(FilesTestCase):
    def test_it_encodes_app_license_device_and_jti_and_deletes_the_file(self):
        directory, device, license, hwid, nonce = self.waiting(encrypt=True)
        jti = device.load_license_file(self.mint(license, hwid, nonce=nonce, encrypt_for=True))["jti"]
        code = device.return_code(license, hwid)
        self.assertEqual(decode_code(code, "lfx1."), {"app_id": APP_ID, "license": license, "hwid": hwid, "jti": jti})
        self.assertFalse(os.path.exists(os.path.join(directory, "license.lic")))
        self.assertEqual(self.refused(self.client(state_dir=directory).check, license=license, hwid=hwid).code, "NETWORK_ERROR")
        self.assertEqual(self.refused(device.return_code, license, hwid).code, "LICENSE_FILE_MISMATCH")

    def test_the_file_of_another_license_or_device_is_not_returned(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce))
        self.assertEqual(self.refused(device.return_code, license, "another-device").code, "LICENSE_FILE_MISMATCH")
        self.assertEqual(self.refused(device.return_code, "ANOTHER-KEY", hwid).code, "LICENSE_FILE_MISMATCH")
        self.assertTrue(os.path.exists(os.path.join(directory, "license.lic")))
        with self.assertRaisesRegex(ValueError, "state_dir"):
            self.client().return_code(license, hwid)


class OnlineRoutesTest(FilesTestCase):
    @classmethod
    def setUpClass(cls):
        cls.service = StandIn(KEY)

    @classmethod
    def tearDownClass(cls):
        cls.service.close()

    def setUp(self):
        super().setUp()
        self.service.answers.clear()

    def online(self, **options):
        return self.client(url=self.service.url, **options)

    def test_license_file_sends_the_request_verifies_the_file_with_its_nonce_and_keeps_it(self):
        directory = self.state_dir()
        service_time = self.clock.now
        times = {"iat": service_time, "nbf": service_time, "exp": service_time + 30 * DAY, "air_gapped": False}

        def answer(body):
            text = mint_file(KEY, APP_ID, "KEY-ONLINE", "pc", service_time, nonce=body["nonce"], claims=times, encrypt_for=True)
            return 200, {"success": True, "message": "LICENSE_VERIFIED_USED_AND_LOCKED_KEY", "data": {**license_data("KEY-ONLINE", "pc", service_time), "license_file": text}}

        self.service.answers["/license-file"] = answer
        self.clock.now += 400 * DAY

        result = self.online(state_dir=directory).license_file(license="KEY-ONLINE", hwid="pc", lifetime_seconds=86400, encrypt=True)

        sent = self.service.sent_to("/license-file")
        self.assertEqual(list(sent), ["app_id", "license", "hwid", "lifetime_seconds", "encrypt", "nonce"])
        self.assertEqual({**sent, "nonce": None}, {"app_id": APP_ID, "license": "KEY-ONLINE", "hwid": "pc", "lifetime_seconds": 86400, "encrypt": True, "nonce": None})
        self.assertEqual((result.claims["sub"], result.claims["nonce"], result.offline), ("KEY-ONLINE", sent["nonce"], False))
        with open(os.path.join(directory, "license.lic"), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), result.data["license_file"] + "\n")
        # The service's time of a fresh file is the latest time seen, even when the computer's clock is far ahead.
        with open(os.path.join(directory, "clock.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"seen": service_time})

    def test_license_file_refuses_a_genuine_file_made_for_another_request_and_keeps_nothing(self):
        directory = self.state_dir()
        replayed = self.mint("KEY-1", "pc", nonce="an-earlier-request")
        data = {**license_data("KEY-1", "pc", self.clock.now), "license_file": replayed}
        self.service.answers["/license-file"] = (200, {"success": True, "message": "LICENSE_VERIFIED_USED_AND_LOCKED_KEY", "data": data})
        self.assertEqual(self.refused(self.online(state_dir=directory).license_file, license="KEY-1", hwid="pc").code, "INVALID_SIGNATURE")
        self.assertFalse(os.path.exists(os.path.join(directory, "license.lic")))

    def test_return_license_file_sends_the_code_and_deletes_the_file_once_taken_back_not_on_a_refusal(self):
        directory, device, license, hwid, nonce = self.waiting()
        jti = device.load_license_file(self.mint(license, hwid, nonce=nonce))["jti"]
        online = self.online(state_dir=directory)

        self.service.answers["/license-file/return"] = (403, {"success": False, "message": "HWID_RESET_COOLDOWN", "data": {"next_reset_at": "2030-01-01T00:00:00.000Z"}})
        cooldown = self.refused(online.return_license_file, license, hwid)
        self.assertEqual((cooldown.code, cooldown.data), ("HWID_RESET_COOLDOWN", {"next_reset_at": "2030-01-01T00:00:00.000Z"}))
        self.assertTrue(os.path.exists(os.path.join(directory, "license.lic")))

        returned = {**license_data(license, hwid, self.clock.now), "hwids": []}
        self.service.answers["/license-file/return"] = (200, {"success": True, "message": "LICENSE_FILE_RETURNED", "data": returned})
        result = online.return_license_file(license, hwid)
        self.assertEqual((result.message, result.data["hwids"]), ("LICENSE_FILE_RETURNED", []))
        sent = self.service.sent_to("/license-file/return")
        self.assertEqual(list(sent), ["app_id", "request", "nonce"])
        self.assertEqual(decode_code(sent["request"], "lfx1."), {"app_id": APP_ID, "license": license, "hwid": hwid, "jti": jti})
        self.assertFalse(os.path.exists(os.path.join(directory, "license.lic")))

    def test_a_refusal_of_the_license_deletes_its_stored_file_and_keeps_another_licenses(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce))
        self.service.answers["/auth"] = (403, {"success": False, "message": "LICENSE_NOT_ACTIVE"})
        self.assertEqual(self.refused(self.online(state_dir=directory).check, license="ANOTHER-KEY", hwid=hwid).code, "LICENSE_NOT_ACTIVE")
        self.assertTrue(os.path.exists(os.path.join(directory, "license.lic")))
        self.assertEqual(self.refused(self.online(state_dir=directory).check, license=license, hwid=hwid).code, "LICENSE_NOT_ACTIVE")
        self.assertFalse(os.path.exists(os.path.join(directory, "license.lic")))

    def test_an_online_check_sets_the_latest_time_seen_to_the_services_forgiving_a_clock_once_set_ahead(self):
        directory, device, license, hwid, nonce = self.waiting()
        device.load_license_file(self.mint(license, hwid, nonce=nonce, claims={"exp": self.clock.now + 400 * DAY}))
        service_time = self.clock.now
        self.clock.now += 300 * DAY
        self.assertEqual(self.client(state_dir=directory).check(license=license, hwid=hwid).message, "LICENSE_FILE_VALID")
        self.clock.now = service_time
        self.assertEqual(self.refused(self.client(state_dir=directory).check, license=license, hwid=hwid).code, "CLOCK_MOVED_BACK")

        def answer(body):
            token = mint_token(KEY, APP_ID, license, hwid, service_time, nonce=body["nonce"])
            return 200, {"success": True, "message": "LICENSE_VERIFIED_USED_AND_LOCKED_KEY", "data": {**license_data(license, hwid, service_time), "offline_token": token}}

        self.service.answers["/auth"] = answer
        self.assertFalse(self.online(state_dir=directory).check(license=license, hwid=hwid).offline)
        with open(os.path.join(directory, "clock.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"seen": service_time})
        self.assertEqual(self.client(state_dir=directory).check(license=license, hwid=hwid).message, "LICENSE_FILE_VALID")

    def test_start_trial_sends_the_device_and_gives_the_trial_key(self):
        trial = {**license_data("TRIAL-KEY", "pc", self.clock.now), "license": "TRIAL-KEY"}
        for message in ("TRIAL_STARTED", "TRIAL_RESUMED"):
            with self.subTest(message):
                self.service.answers["/trial"] = (200, {"success": True, "message": message, "data": trial})
                result = self.online().start_trial("pc")
                self.assertEqual((result.message, result.data, result.offline), (message, trial, False))
                sent = self.service.sent_to("/trial")
                self.assertEqual({**sent, "nonce": None}, {"app_id": APP_ID, "hwid": "pc", "nonce": None})

    def test_start_trial_raises_each_refusal_with_its_data(self):
        for message, data in (("TRIAL_EXPIRED", {"expires_at": "2026-01-01T00:00:00.000Z"}), ("TRIAL_CONVERTED", None), ("TRIAL_LIMIT_REACHED", None), ("TRIALS_DISABLED", None)):
            with self.subTest(message):
                body = {"success": False, "message": message, **({} if data is None else {"data": data})}
                self.service.answers["/trial"] = (403, body)
                refused = self.refused(self.online().start_trial, "pc")
                self.assertEqual((refused.code, refused.status, refused.data), (message, 403, data))

    def test_start_trial_refuses_a_success_naming_no_key_or_another_than_its_data(self):
        for data in (license_data("TRIAL-KEY", "pc", self.clock.now), {**license_data("TRIAL-KEY", "pc", self.clock.now), "license": "OTHER-KEY"}):
            with self.subTest(data=data.get("license")):
                self.service.answers["/trial"] = (200, {"success": True, "message": "TRIAL_STARTED", "data": data})
                self.assertEqual(self.refused(self.online().start_trial, "pc").code, "INVALID_SIGNATURE")

    def test_without_a_url_nothing_is_sent(self):
        before = len(self.service.seen)
        self.assertEqual(self.refused(self.client().start_trial, "pc").code, "NETWORK_ERROR")
        self.assertEqual(len(self.service.seen), before)

