"""An air-gapped program: `request`, then `load FILE` with the file the user brings back; no command checks, `return` returns."""
import os
import sys

from licensing_client import LicenseClient, LicenseError

# No URL: this device never reaches the service, and check() answers from the license file at once.
client = LicenseClient(
    url=None,
    app_id=os.environ["LICENSING_APP_ID"],
    public_key=os.environ["LICENSING_PUBLIC_KEY"],
    state_dir=os.path.join(os.path.expanduser("~"), ".example-app", "licensing"),
)
license_key, device = sys.argv[1], client.machine_id()
command = sys.argv[2] if len(sys.argv) > 2 else "check"

try:
    if command == "request":
        # 1. The request, as text and as a link to show as a QR code: a phone opens it in the customer portal.
        request = client.activation_request(license_key, device, portal_url=os.environ["LICENSING_PORTAL_URL"])
        print("Scan or open: %s\nor send this to your vendor: %s" % (request.link, request.request))
    elif command == "load":
        # 2. The file made from that request (downloaded from the portal, carried on a USB stick): checked and kept.
        with open(sys.argv[3], encoding="utf-8") as handle:
            claims = client.load_license_file(handle.read())
        print("License file installed for %s" % claims["subscription_name"])
    elif command == "return":
        # 4. Moving to another device: the file is deleted here, and the portal takes this code to free the device.
        print("Return code: %s" % client.return_code(license_key, device))
    else:
        # 3. Every start: the stored file, checked again by the computer's clock.
        result = client.check(license=license_key, hwid=device)
        print("Licensed (%s) until %s by %s" % (result.data["subscription_name"], result.data["offline_until"], result.message))
except LicenseError as error:
    sys.exit("Not licensed: %s" % error.code)
