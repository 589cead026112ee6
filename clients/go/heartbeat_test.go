package licensing

import (
	"sync/atomic"
	"testing"
	"time"
)

// A service whose leases last two seconds, so that the timer's renewals come within a test's patience.
func shortLeases(t *testing.T, lease time.Duration) (*fakeService, *int32) {
	f := newFakeService(t)
	var refuse int32
	f.handle = func(request fakeRequest) fakeAnswer {
		now := time.Now().UTC()
		switch {
		case request.path == "/release":
			return fakeAnswer{status: 200, body: map[string]interface{}{"success": true, "message": "SEAT_RELEASED", "data": map[string]interface{}{"key": "KEY-1", "lease_expires_at": nil}}}
		case atomic.LoadInt32(&refuse) == 1:
			return fakeAnswer{status: 403, body: map[string]interface{}{"success": false, "message": "LICENSE_EXPIRED", "data": map[string]interface{}{"expires_at": now.Format(time.RFC3339Nano)}}}
		}
		return licenseAnswer(map[string]interface{}{"last_login": now.Format(time.RFC3339Nano), "lease_expires_at": now.Add(lease).Format(time.RFC3339Nano)})
	}
	return f, &refuse
}

func count(requests []fakeRequest, path string) int {
	n := 0
	for _, request := range requests {
		if request.path == path {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, within time.Duration, condition func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if condition() {
			return
		}
	}
	t.Fatalf("not within %s", within)
}

func TestTheHeartbeatRenewsByItsTimerAndStopReleasesTheSeatOnce(t *testing.T) {
	f, _ := shortLeases(t, 3*time.Second)
	seat, err := f.client(t, Options{}).StartHeartbeat(background, Credentials{License: "KEY-1", HWID: "desk"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if due := time.Until(seat.NextRenewalAt()); due < 1200*time.Millisecond || due > 1700*time.Millisecond {
		t.Fatalf("half of a 3 s lease, with 10%% jitter, is due in %s", due)
	}
	first := seat.LeaseExpiresAt()
	// Renewals a busy machine delays still come well within 10 s: two of them, by the timer alone.
	waitFor(t, 10*time.Second, func() bool { return count(f.seen(), "/auth") >= 3 })
	if !seat.LeaseExpiresAt().After(first) || seat.Err() != nil {
		t.Fatalf("lease %s after %s, Err %v", seat.LeaseExpiresAt(), first, seat.Err())
	}
	if err := seat.Stop(background); err != nil {
		t.Fatal(err)
	}
	renewals := count(f.seen(), "/auth")
	time.Sleep(2 * time.Second)
	if seen := f.seen(); count(seen, "/release") != 1 || count(seen, "/auth") != renewals {
		t.Fatalf("after Stop: %d releases, %d renewals (was %d)", count(seen, "/release"), count(seen, "/auth"), renewals)
	}
	if !seat.NextRenewalAt().IsZero() {
		t.Fatal("a stopped heartbeat plans no renewal")
	}
}

func TestARefusedRenewalLosesTheSeatOnceThroughEveryChannel(t *testing.T) {
	f, refuse := shortLeases(t, 2*time.Second)
	var calls int32
	lost := make(chan *Error, 2)
	seat, err := f.client(t, Options{}).StartHeartbeat(background, Credentials{License: "KEY-1", HWID: "desk"}, func(failure *Error) {
		atomic.AddInt32(&calls, 1)
		lost <- failure
	})
	if err != nil {
		t.Fatal(err)
	}
	atomic.StoreInt32(refuse, 1)
	select {
	case <-seat.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the seat was not lost by the timer's renewal")
	}
	failure := <-lost
	if failure.Code != "LICENSE_EXPIRED" || failure.Status != 403 || seat.Err() != failure || string(failure.Data) == "" {
		t.Fatalf("lost with %+v, Err %v", failure, seat.Err())
	}
	time.Sleep(1500 * time.Millisecond)
	if atomic.LoadInt32(&calls) != 1 || count(f.seen(), "/auth") != 2 {
		t.Fatalf("onLost called %d times, %d renewals", calls, count(f.seen(), "/auth"))
	}
	if err := seat.Stop(background); err != nil || count(f.seen(), "/release") != 0 {
		t.Fatalf("a lost seat is not released: %v", err)
	}
}

func TestAnAnswerWithoutALeaseIsNoSeatToKeep(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(fakeRequest) fakeAnswer { return licenseAnswer(nil) }
	_, err := f.client(t, Options{}).StartHeartbeat(background, Credentials{License: "KEY-1", HWID: "desk"}, nil)
	if codeOf(err) != CodeLicenseNotFloating {
		t.Fatalf("got %v", err)
	}
}
