"""License files against the local server itself (not the signed stand-in of test_license_files.py): a file checked out
online, an air-gapped activation through /license-file, the file answering check() while the service is out of reach,
and both ways of giving it back."""

from licensing_client import LicenseError
from service import ServiceTestCase, client, client_route, manage, new_license


class ServiceLicenseFilesTest(ServiceTestCase):
    def test_an_encrypted_file_checked_out_online_answers_while_the_server_is_stopped_and_is_returned_online(self):
        key = new_license(hwid_lock=True)
        result = client(state_dir=self.directory, timeout=15).license_file(license=key, hwid="lab-pc", lifetime_seconds=2 * 86400, encrypt=True)
        self.assertEqual(result.message, "LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY")
        self.assertEqual(len(result.data["license_file"].split(".")), 5)
        self.assertEqual((result.claims["sub"], result.claims["hwid"], result.claims["air_gapped"]), (key, "lab-pc", False))
        self.stop_server()

        offline = client(state_dir=self.directory, timeout=1).check(license=key, hwid="lab-pc")
        self.assertTrue(offline.offline)
        self.assertEqual(offline.message, "LICENSE_FILE_VALID")

        self.start_server()
        returned = client(state_dir=self.directory, timeout=15).return_license_file(key, "lab-pc")
        self.assertEqual(returned.message, "LICENSE_FILE_RETURNED")
        record = manage("/license/get", {"license_key": key})
        self.assertEqual((record["hwid"], record["files"]), (None, []))

    def test_an_air_gapped_device_is_activated_from_its_request_and_freed_by_its_return_code(self):
        key = new_license(hwid_lock=True)
        device = client(url=None, state_dir=self.directory)
        request = device.activation_request(key, "factory-pc", lifetime_seconds=86400).request

        status, answer = client_route("/license-file", {"request": request})
        self.assertEqual((status, answer["message"]), (200, "LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY"))
        claims = device.load_license_file(answer["data"]["license_file"] + "\n")
        self.assertEqual((claims["sub"], claims["hwid"], claims["air_gapped"]), (key, "factory-pc", True))
        self.assertEqual(device.check(license=key, hwid="factory-pc").message, "LICENSE_FILE_VALID")

        code = device.return_code(key, "factory-pc")
        status, answer = client_route("/license-file/return", {"request": code})
        self.assertEqual((status, answer["message"]), (200, "LICENSE_FILE_RETURNED"))
        self.assertIsNone(manage("/license/get", {"license_key": key})["hwid"])
        with self.assertRaises(LicenseError):
            device.check(license=key, hwid="factory-pc")

    def test_a_file_the_service_made_for_another_device_is_refused(self):
        key = new_license(hwid_lock=True, max_devices=2)
        device = client(url=None, state_dir=self.directory)
        device.activation_request(key, "pc-1")
        status, answer = client_route("/license-file", {"app_id": device.app_id, "license": key, "hwid": "pc-2"})
        self.assertEqual(status, 200)
        with self.assertRaises(LicenseError) as refused:
            device.load_license_file(answer["data"]["license_file"])
        self.assertEqual(refused.exception.code, "LICENSE_FILE_MISMATCH")
