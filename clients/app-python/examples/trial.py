"""A program that starts without a key: it asks for this device's trial once, keeps the key, and checks it from then on."""
import os
import sys

from licensing_client import LicenseClient, LicenseError

client = LicenseClient(os.environ["LICENSING_URL"], os.environ["LICENSING_APP_ID"], os.environ["LICENSING_PUBLIC_KEY"])
key_file = os.path.join(os.path.expanduser("~"), ".example-app", "license-key")
device = client.machine_id()

try:
    if not os.path.exists(key_file):
        # TRIAL_STARTED the first time; TRIAL_RESUMED with the same key when this device asks again (a reinstall).
        trial = client.start_trial(device)
        os.makedirs(os.path.dirname(key_file), exist_ok=True)
        with open(key_file, "w", encoding="utf-8") as handle:
            handle.write(trial.data["license"])
        print("%s: trial until %s" % (trial.message, trial.data["expires_at"]))
    with open(key_file, encoding="utf-8") as handle:
        result = client.check(license=handle.read(), hwid=device)
    print("Licensed (%s) until %s" % (result.data["subscription_name"], result.data["expires_at"]))
except LicenseError as error:
    # TRIAL_EXPIRED (error.data["expires_at"]): offer to buy; TRIAL_CONVERTED: it was bought, ask for the key;
    # TRIAL_LIMIT_REACHED, TRIALS_DISABLED, or a check's refusal.
    sys.exit("Not licensed: %s" % error.code)
