import os

from licensing_client import LicenseError
from service import APP_ID, PROXY_URL, ServiceTestCase, client, expire, floating_license, manage, new_license, proxy, set_team_plan


class RefusalTest(ServiceTestCase):
    """Each way the service refuses a license that has a stored token (docs/client-api.md, "Check order"):
    the refusal deletes the token, so no check is answered from it once the network is gone."""

    def token_client(self, url=None, timeout=30):
        """A client keeping its token in this test's file; the service's answers may take long on a busy machine."""
        return client(token_file=self.token_path(), timeout=timeout, **({} if url is None else {"url": url}))

    def assert_refusal_forgets(self, code, refused, url=None):
        """`refused` is the check the service refuses now; its stored token must go, and stay gone offline."""
        self.assertTrue(os.path.exists(self.token_path()))
        with self.assertRaises(LicenseError) as refusal:
            self.token_client(url).check(**refused)
        self.assertEqual(refusal.exception.code, code)
        self.assertFalse(os.path.exists(self.token_path()))
        self.stop_server()
        with self.assertRaises(LicenseError) as offline:
            self.token_client(timeout=1).check(**refused)
        self.assertEqual(offline.exception.code, "NETWORK_ERROR")

    def test_license_not_found(self):
        key = new_license()
        self.token_client().check(license=key)
        manage("/license/delete", {"license_key": key})
        self.assert_refusal_forgets("LICENSE_NOT_FOUND", {"license": key})

    def test_invalid_username_or_password(self):
        key = new_license()
        username = "refused-%s" % key[:5]
        client().register(key, username, "correct horse")
        self.token_client().check(username=username, password="correct horse")
        manage("/license/update-user-credentials", {"license_key": key, "username": username, "password": "another horse"})
        self.assert_refusal_forgets("INVALID_USERNAME_OR_PASSWORD", {"username": username, "password": "correct horse"})

    def test_license_not_active(self):
        key = new_license()
        self.token_client().check(license=key)
        manage("/license/update-status", {"license_key": key, "status": "paused"})
        self.assert_refusal_forgets("LICENSE_NOT_ACTIVE", {"license": key})

    def test_license_expired(self):
        key = new_license()
        self.token_client().check(license=key)
        expire(key)
        self.assert_refusal_forgets("LICENSE_EXPIRED", {"license": key})

    def test_application_not_active(self):
        key = new_license()
        self.token_client().check(license=key)
        manage("/app/update", {"app_id": APP_ID, "status": "inactive"})
        self.addCleanup(manage, "/app/update", {"app_id": APP_ID, "status": "active"})
        self.assert_refusal_forgets("APPLICATION_NOT_ACTIVE", {"license": key})

    def test_team_error(self):
        key = new_license()
        self.token_client().check(license=key)
        set_team_plan("2020-01-01T00:00:00.000Z")
        self.addCleanup(set_team_plan, None)
        self.assert_refusal_forgets("TEAM_ERROR", {"license": key})

    def test_subscription_error(self):
        tier = manage("/subscription/create", {"app_id": APP_ID, "name": "Deleted", "level": 1})["subscription_id"]
        key = new_license(subscription_id=tier)
        self.token_client().check(license=key)
        manage("/subscription/delete", {"subscription_id": tier})
        self.assert_refusal_forgets("SUBSCRIPTION_ERROR", {"license": key})

    def test_subscription_not_active(self):
        tier = manage("/subscription/create", {"app_id": APP_ID, "name": "Stopped", "level": 1})["subscription_id"]
        key = new_license(subscription_id=tier)
        self.token_client().check(license=key)
        manage("/subscription/edit", {"subscription_id": tier, "status": "inactive"})
        self.assert_refusal_forgets("SUBSCRIPTION_NOT_ACTIVE", {"license": key})

    def test_hwid_not_provided(self):
        key = new_license(hwid_lock=True)
        self.token_client().check(license=key, hwid="desk")
        self.assert_refusal_forgets("HWID_NOT_PROVIDED", {"license": key})

    def test_hwid_mismatch(self):
        key = new_license(hwid_lock=True)
        self.token_client().check(license=key, hwid="old-desk")
        manage("/hwid/edit", {"license_key": key, "hwid": "new-desk"})
        self.assert_refusal_forgets("HWID_MISMATCH", {"license": key, "hwid": "old-desk"})

    def test_device_already_registered_with_other_license(self):
        tier = manage("/subscription/create", {"app_id": APP_ID, "name": "One license a device", "level": 1, "single_key_per_hwid": True})["subscription_id"]
        holder, moved = new_license(subscription_id=tier, hwid_lock=True), new_license(subscription_id=tier, hwid_lock=True)
        client().check(license=holder, hwid="shared-desk")
        self.token_client().check(license=moved, hwid="own-desk")
        manage("/hwid/edit", {"license_key": moved, "hwid": None})
        self.assert_refusal_forgets("DEVICE_ALREADY_REGISTERED_WITH_OTHER_LICENSE", {"license": moved, "hwid": "shared-desk"})

    def test_seats_exhausted(self):
        key = floating_license()
        self.token_client().borrow(license=key, hwid="laptop", seconds=3600)
        manage("/hwid/remove", {"license_key": key, "hwid": "laptop"})
        client().check(license=key, hwid="desktop")
        self.assert_refusal_forgets("SEATS_EXHAUSTED", {"license": key, "hwid": "laptop"})

    def blacklisted(self, kind, value):
        manage("/blacklist/add", {"app_id": APP_ID, "type": kind, "value": value})
        self.addCleanup(manage, "/blacklist/delete", {"app_id": APP_ID, "type": kind, "value": value})

    def test_hwid_blacklisted(self):
        key = new_license()
        self.token_client().check(license=key, hwid="stolen-pc")
        self.blacklisted("hwid", "stolen-pc")
        self.assert_refusal_forgets("HWID_BLACKLISTED", {"license": key, "hwid": "stolen-pc"})

    def test_ip_blacklisted(self):
        key = new_license()
        self.token_client().check(license=key)
        self.blacklisted("ip", "127.0.0.1")
        self.assert_refusal_forgets("IP_BLACKLISTED", {"license": key})

    def assert_viewer_blacklisted(self, code, kind, value):
        """The viewer's country or ASN blacklisted: the proxy puts CloudFront's header on the check, as CloudFront would."""
        key = new_license()
        self.token_client().check(license=key)
        self.blacklisted(kind, value)
        proxy("pass", viewer={kind: value})
        self.assert_refusal_forgets(code, {"license": key}, url=PROXY_URL)

    def test_country_blacklisted(self):
        self.assert_viewer_blacklisted("COUNTRY_BLACKLISTED", "country", "AQ")

    def test_asn_blacklisted(self):
        self.assert_viewer_blacklisted("ASN_BLACKLISTED", "asn", "64500")

    def test_a_refusal_of_another_license_and_an_unverified_refusal_keep_the_token(self):
        key = new_license()
        self.token_client().check(license=key)
        stored = self.read_token_file()
        with self.assertRaises(LicenseError) as other:
            self.token_client().check(license="ANOTHER-LICENSE")
        self.assertEqual(other.exception.code, "LICENSE_NOT_FOUND")
        manage("/license/update-status", {"license_key": key, "status": "paused"})
        proxy("signature")
        with self.assertRaises(LicenseError) as forged:
            self.token_client(PROXY_URL).check(license=key)
        self.assertEqual(forged.exception.code, "INVALID_SIGNATURE")
        self.assertEqual(self.read_token_file(), stored)
