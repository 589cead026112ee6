import os
import subprocess
import sys
import threading
import time

from licensing_client import LicenseError
from service import APP_ID, PROXY_URL, PUBLIC_KEY_PEM, URL, FakeClock, ServiceTestCase, client, floating_license, manage, new_license, proxy


def wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


class FloatingTest(ServiceTestCase):
    def test_two_clients_share_one_seat_taken_and_released(self):
        key = floating_license()
        first, second = client(), client()
        seat = first.start_heartbeat(license=key, hwid="desk-a", interval=0.2)
        self.addCleanup(seat.stop)
        self.assertEqual(seat.result.data["hwids"], ["desk-a"])
        with self.assertRaises(LicenseError) as exhausted:
            second.check(license=key, hwid="desk-b")
        self.assertEqual(exhausted.exception.code, "SEATS_EXHAUSTED")
        self.assertEqual(exhausted.exception.data["max_devices"], 1)
        released = seat.stop()
        self.assertEqual(released.message, "SEAT_RELEASED")
        self.assertEqual(second.check(license=key, hwid="desk-b").data["hwids"], ["desk-b"])

    def test_the_heartbeat_renews_the_lease(self):
        key = floating_license()
        seat = client().start_heartbeat(license=key, hwid="desk-a", interval=0.2)
        self.addCleanup(seat.stop)
        first_end = seat.result.data["lease_expires_at"]
        self.assertTrue(wait_for(lambda: seat.result.data["lease_expires_at"] > first_end))
        self.assertIsNone(seat.lost)

    def test_without_an_interval_it_renews_at_about_half_the_lease(self):
        key = floating_license()
        clock = FakeClock()
        seat = client(clock=clock).start_heartbeat(license=key, hwid="desk-a")
        self.addCleanup(seat.stop)
        delays = [seat._delay() for _ in range(20)]
        self.assertTrue(all(0.8 * 30 <= delay <= 1.2 * 30 for delay in delays), delays)
        self.assertGreater(len(set(delays)), 1, "jittered")

    def test_a_lost_seat_is_reported_through_on_lost(self):
        key = floating_license()
        lost = []
        seat = client(PROXY_URL).start_heartbeat(license=key, hwid="desk-a", on_lost=lost.append, interval=0.2)
        self.addCleanup(seat.stop)
        # Desk A's renewals fail on the way while the owner frees its seat and desk B takes it.
        proxy("gateway-502")
        manage("/hwid/remove", {"license_key": key, "hwid": "desk-a"})
        client().check(license=key, hwid="desk-b")
        self.assertEqual(lost, [], "an unreachable service is no lost seat while the lease runs")
        proxy("pass")
        self.assertTrue(wait_for(lambda: lost))
        self.assertEqual(lost[0].code, "SEATS_EXHAUSTED")
        self.assertIs(seat.lost, lost[0])
        self.assertIsNone(seat.stop(), "a lost seat has nothing to release")

    def test_an_unreachable_service_loses_the_seat_only_when_the_lease_has_ended(self):
        key = floating_license()
        clock = FakeClock()
        lost = []
        laptop = client(PROXY_URL, clock=clock)
        seat = laptop.start_heartbeat(license=key, hwid="desk-a", on_lost=lost.append, interval=0.2)
        self.addCleanup(seat.stop)
        # The seat is taken with the usual timeout (a busy machine may take seconds); the renewals then give up fast.
        laptop.timeout = 0.5
        proxy("gateway-502")
        time.sleep(1.5)
        self.assertEqual(lost, [])
        clock.advance(120)
        self.assertTrue(wait_for(lambda: lost))
        self.assertEqual(lost[0].code, "NETWORK_ERROR")

    def test_a_full_license_refuses_the_heartbeat_at_once(self):
        key = floating_license()
        client().check(license=key, hwid="desk-a")
        with self.assertRaises(LicenseError) as refused:
            client().start_heartbeat(license=key, hwid="desk-b")
        self.assertEqual(refused.exception.code, "SEATS_EXHAUSTED")

    def test_on_a_license_that_is_not_floating_it_keeps_checking_and_stops_quietly(self):
        key = new_license()
        seat = client().start_heartbeat(license=key, hwid="desk-a", interval=0.2)
        renewed = seat.result.data["last_login"]
        self.assertTrue(wait_for(lambda: seat.result.data["last_login"] > renewed))
        self.assertIsNone(seat.stop(), "no seat to give back")

    def test_release_gives_the_seat_back(self):
        key = floating_license()
        client().check(license=key, hwid="desk-a")
        self.assertEqual(client().release(license=key, hwid="desk-a").message, "SEAT_RELEASED")
        with self.assertRaises(LicenseError) as again:
            client().release(license=key, hwid="desk-a")
        self.assertEqual(again.exception.code, "HWID_NOT_BOUND")

    def test_a_clean_exit_releases_the_seat(self):
        key = floating_license()
        program = (
            "import sys\n"
            "from licensing_client import LicenseClient\n"
            "client = LicenseClient(sys.argv[1], sys.argv[2], sys.argv[3])\n"
            "client.start_heartbeat(license=sys.argv[4], hwid='desk-a')\n"
        )
        subprocess.run([sys.executable, "-c", program, URL, APP_ID, PUBLIC_KEY_PEM, key], check=True, timeout=60, env=os.environ.copy())
        self.assertEqual(client().check(license=key, hwid="desk-b").data["hwids"], ["desk-b"])


class BorrowTest(ServiceTestCase):
    def test_a_check_with_a_token_file_keeps_no_token_of_a_floating_seat_only_a_borrow_gives_one(self):
        key = floating_license()
        desk = client(token_file=self.token_path())
        checked = desk.check(license=key, hwid="desk-a")
        self.assertNotIn("offline_token", checked.data)
        self.assertFalse(os.path.exists(self.token_path()))
        self.assertEqual(desk.release(license=key, hwid="desk-a").message, "SEAT_RELEASED")
        self.assertIn("offline_token", desk.borrow(license=key, hwid="desk-a", seconds=120).data)
        self.assertTrue(os.path.exists(self.token_path()))

    def test_a_borrowed_seat_works_offline_until_the_borrow_ends(self):
        key = floating_license()
        clock = FakeClock()
        # The usual deadline while the service runs (a busy machine may take seconds); a short one once it is stopped.
        online = client(token_file=self.token_path(), timeout=15, clock=clock)
        borrowed = online.borrow(license=key, hwid="laptop", seconds=120)
        self.assertIn("offline_token", borrowed.data)
        with self.assertRaises(LicenseError) as kept:
            online.release(license=key, hwid="laptop")
        self.assertEqual(kept.exception.code, "LEASE_BORROWED")

        self.stop_server()
        laptop = client(token_file=self.token_path(), timeout=1, clock=clock)
        offline = laptop.check(license=key, hwid="laptop")
        self.assertEqual((offline.offline, offline.data["borrowed"], offline.data["key"]), (True, True, key))
        clock.advance(180)
        with self.assertRaises(LicenseError) as ended:
            laptop.check(license=key, hwid="laptop")
        self.assertEqual(ended.exception.code, "OFFLINE_TOKEN_EXPIRED")

    def test_borrowing_needs_a_floating_license(self):
        key = new_license()
        with self.assertRaises(LicenseError) as refused:
            client().borrow(license=key, hwid="laptop", seconds=120)
        self.assertEqual(refused.exception.code, "LICENSE_NOT_FLOATING")


class ThreadSafetyTest(ServiceTestCase):
    def test_one_client_serves_several_threads(self):
        key = floating_license(seats=3)
        shared = client()
        results = []
        threads = [threading.Thread(target=lambda hwid=hwid: results.append(shared.check(license=key, hwid=hwid).data["key"])) for hwid in ("a", "b", "c")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual(results, [key, key, key])
