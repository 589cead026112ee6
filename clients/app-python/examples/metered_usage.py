"""Counting a metered feature: each export counts once, even when an answer is lost and retried."""
import os
import sys

from licensing_client import LicenseClient, LicenseError

client = LicenseClient(os.environ["LICENSING_URL"], os.environ["LICENSING_APP_ID"], os.environ["LICENSING_PUBLIC_KEY"])
license_key, device = sys.argv[1], client.machine_id()
client.check(license=license_key, hwid=device)

try:
    usage = client.record_usage(license=license_key, hwid=device, counter="exports")
except LicenseError as error:
    if error.code == "USAGE_LIMIT_REACHED":
        sys.exit("No exports left until %s" % error.data["resets_at"])
    raise
print("Exported; %d exports left" % usage.data["remaining"])
