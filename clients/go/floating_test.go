package licensing_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	licensing "licensing-service/clients/go"
)

func leases(t *testing.T, s *service, key string) []interface{} {
	t.Helper()
	list, _ := s.license(t, key)["leases"].([]interface{})
	return list
}

func TestOneSeatIsTakenByOneClientRefusedToAnotherAndFreeOnceReleased(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	first, second := s.client(t, s.url), s.client(t, s.url)
	seat, err := first.StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "desk-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if until := time.Until(seat.LeaseExpiresAt()); until < 50*time.Second || until > 61*time.Second {
		t.Fatalf("lease ends in %s", until)
	}
	if hwids := licenseData(t, seat.Result()).HWIDs; strings.Join(hwids, ",") != "desk-a" {
		t.Fatalf("hwids %v", hwids)
	}

	exhausted := refused(t, "SEATS_EXHAUSTED")(second.Check(ctx, licensing.Credentials{License: key, HWID: "desk-b"}))
	if !strings.Contains(string(exhausted.Data), `"max_devices":1`) || !strings.Contains(string(exhausted.Data), seat.LeaseExpiresAt().UTC().Format("2006-01-02T15:04:05.000Z")) {
		t.Fatalf("SEATS_EXHAUSTED data %s", exhausted.Data)
	}
	_, err = second.StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "desk-b"}, nil)
	refused(t, "SEATS_EXHAUSTED")(nil, err)

	if err := seat.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := seat.Stop(ctx); err != nil {
		t.Fatal("a second Stop repeats the first's outcome")
	}
	if held := leases(t, s, key); len(held) != 0 {
		t.Fatalf("leases after Stop: %v", held)
	}
	taken := ok(t)(second.Check(ctx, licensing.Credentials{License: key, HWID: "desk-b"}))
	if hwids := licenseData(t, taken).HWIDs; strings.Join(hwids, ",") != "desk-b" {
		t.Fatalf("hwids %v", hwids)
	}
	released := ok(t)(second.Release(ctx, licensing.Credentials{License: key, HWID: "desk-b"}))
	if data := licenseData(t, released); released.Message != "SEAT_RELEASED" || len(data.HWIDs) != 0 || data.LeaseExpiresAt != nil {
		t.Fatalf("released: %+v %s", released, released.Data)
	}
	refused(t, "HWID_NOT_BOUND")(second.Release(ctx, licensing.Credentials{License: key, HWID: "desk-b"}))
}

func TestTheNextRenewalIsDueAtAboutHalfTheLeaseWhateverTheComputerClockSays(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	// An hour behind: the lease is measured from the answer (last_login to lease_expires_at), not against this clock.
	clock := &fakeClock{now: time.Now().Add(-time.Hour)}
	seat, err := s.client(t, s.url, withClock(clock)).StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "desk-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer seat.Stop(ctx)
	if due := seat.NextRenewalAt().Sub(clock.Now()); due < 27*time.Second || due > 33*time.Second {
		t.Fatalf("next renewal in %s", due)
	}
	firstEnd := seat.LeaseExpiresAt()
	time.Sleep(20 * time.Millisecond)
	seat.RenewNow(ctx)
	if !seat.LeaseExpiresAt().After(firstEnd) || seat.Err() != nil {
		t.Fatalf("renewed to %s from %s (%v)", seat.LeaseExpiresAt(), firstEnd, seat.Err())
	}
}

func TestASeatTakenOverIsReportedThroughOnLostAndLost(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	var lost []*licensing.Error
	var mu sync.Mutex
	seat, err := s.client(t, s.url).StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "desk-a"}, func(failure *licensing.Error) {
		mu.Lock()
		defer mu.Unlock()
		lost = append(lost, failure)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.manage(t, "/hwid/remove", map[string]interface{}{"license_key": key, "hwid": "desk-a"})
	ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "desk-b"}))
	seat.RenewNow(ctx)
	select {
	case <-seat.Lost():
	default:
		t.Fatal("Lost() is not closed")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lost) != 1 || lost[0].Code != "SEATS_EXHAUSTED" || seat.Err() != lost[0] || !seat.NextRenewalAt().IsZero() {
		t.Fatalf("lost %v, Err %v", lost, seat.Err())
	}
	if err := seat.Stop(ctx); err != nil {
		t.Fatalf("a lost seat has nothing to release: %v", err)
	}
	if held := leases(t, s, key); len(held) != 1 || held[0].(map[string]interface{})["hwid"] != "desk-b" {
		t.Fatalf("leases %v", held)
	}
}

func TestAnUnreachableServiceLosesTheSeatOnlyOnceTheLeaseHasEnded(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	clock := newFakeClock()
	seat, err := s.client(t, s.proxyURL, withClock(clock), withTimeout(time.Second)).StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "desk-a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.proxy(t, "gateway-502", nil)
	seat.RenewNow(ctx)
	if seat.Err() != nil {
		t.Fatalf("an unreachable service is no lost seat while the lease runs: %v", seat.Err())
	}
	clock.Advance(61 * time.Second)
	seat.RenewNow(ctx)
	if failure := seat.Err(); failure == nil || failure.Code != licensing.CodeNetworkError {
		t.Fatalf("Err %v", failure)
	}
}

func TestAHeartbeatAndAReleaseNeedAFloatingLicense(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	client := s.client(t, s.url)
	_, err := client.StartHeartbeat(ctx, licensing.Credentials{License: key, HWID: "pc"}, nil)
	refused(t, licensing.CodeLicenseNotFloating)(nil, err)
	refused(t, licensing.CodeLicenseNotFloating)(client.Release(ctx, licensing.Credentials{License: key, HWID: "pc"}))
	refused(t, licensing.CodeLicenseNotFloating)(client.Borrow(ctx, licensing.Credentials{License: key, HWID: "pc"}, time.Hour))
}

func TestABorrowedSeatWorksOfflineUntilTheBorrowEndsAndCannotBeReleasedEarly(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	dir, clock := t.TempDir(), newFakeClock()
	// The service's answers take the default timeout; the checks made while it is down take a second (each retries until then).
	online := s.client(t, s.url, withStateDir(dir), withClock(clock))
	laptop := s.client(t, s.url, withStateDir(dir), withClock(clock), withTimeout(time.Second))
	borrowed := ok(t)(online.Borrow(ctx, licensing.Credentials{License: key, HWID: "laptop"}, 2*time.Minute))
	data := licenseData(t, borrowed)
	claims := claimsOf(t, data.OfflineToken)
	leaseEnd, err := time.Parse(time.RFC3339Nano, *data.LeaseExpiresAt)
	if err != nil || claims["borrowed"] != true || claims["exp"] != float64(leaseEnd.Unix()) || readStored(t, dir).Token != data.OfflineToken {
		t.Fatalf("borrowed %s", borrowed.Data)
	}
	refused(t, "LEASE_BORROWED")(online.Release(ctx, licensing.Credentials{License: key, HWID: "laptop"}))

	s.stopServer(t)
	offline := ok(t)(laptop.Check(ctx, licensing.Credentials{License: key, HWID: "laptop"}))
	if !offline.Offline || !strings.Contains(string(offline.Data), `"borrowed":true`) {
		t.Fatalf("offline %+v", offline)
	}
	clock.Advance(3 * time.Minute)
	refused(t, licensing.CodeOfflineTokenExpired)(laptop.Check(ctx, licensing.Credentials{License: key, HWID: "laptop"}))
}

func TestOneClientServesSeveralGoroutines(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 3)
	shared := s.client(t, s.url, withStateDir(t.TempDir()))
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, hwid := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func(hwid string) {
			defer wg.Done()
			result, err := shared.Check(ctx, licensing.Credentials{License: key, HWID: hwid})
			if err == nil && !strings.Contains(string(result.Data), `"key":"`+key+`"`) {
				err = fmt.Errorf("an answer about another license: %s", result.Data)
			}
			errs <- err
		}(hwid)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if held := leases(t, s, key); len(held) != 3 {
		t.Fatalf("leases %v", held)
	}
}
