"""A protected program: it runs only with a valid license, online or (for a while) offline."""
import os
import sys

from licensing_client import LicenseClient, LicenseError

# Ship these three with the program; the key is your application's public key (PEM or JWK), pinned.
client = LicenseClient(
    url=os.environ["LICENSING_URL"],
    app_id=os.environ["LICENSING_APP_ID"],
    public_key=os.environ["LICENSING_PUBLIC_KEY"],
    token_file=os.path.join(os.path.expanduser("~"), ".example-app", "license-token"),
)

try:
    result = client.check(license=sys.argv[1], hwid=client.machine_id())
except LicenseError as error:
    sys.exit("This copy is not licensed: %s" % error.code)

if result.offline:
    print("Offline: licensed until %s at the latest" % result.data["offline_until"])
print("Licensed (%s), valid until %s" % (result.data["subscription_name"], result.data["expires_at"]))
