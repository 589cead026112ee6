"""A program sold with floating seats: it holds a seat while it runs and gives it back when it closes."""
import os
import sys
import threading

from licensing_client import LicenseClient, LicenseError

client = LicenseClient(os.environ["LICENSING_URL"], os.environ["LICENSING_APP_ID"], os.environ["LICENSING_PUBLIC_KEY"])
seat_lost = threading.Event()


def on_lost(error):
    # Called from the heartbeat thread: save the user's work and stop, e.g. SEATS_EXHAUSTED.
    print("Seat lost: %s" % error.code)
    seat_lost.set()


try:
    seat = client.start_heartbeat(license=sys.argv[1], hwid=client.machine_id(), on_lost=on_lost)
except LicenseError as error:
    if error.code == "SEATS_EXHAUSTED":
        sys.exit("All %d seats are in use; the next one is free at %s" % (error.data["max_devices"], error.data["next_seat_at"]))
    sys.exit("Not licensed: %s" % error.code)

print("Seat held until %s" % seat.result.data["lease_expires_at"])
seat_lost.wait(timeout=1)  # the program's real work goes here
seat.stop()  # also done at exit
print("Seat released")
