package licensing

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// shortestWait keeps a heartbeat whose lease is nearly over from renewing in a busy loop.
const shortestWait = time.Second

// Heartbeat keeps a floating seat: it renews it (one /auth) at about half of
// what is left of the lease, with jitter so that many programs started
// together spread out, from a goroutine of its own. A failed renewal is retried
// while the lease lasts; a refusal, or a lease that ends unrenewed, loses the
// seat: OnLost is called once, Lost() is closed, Err() says why, and the
// heartbeat ends. Stop gives the seat back. Its methods are safe for
// concurrent use.
//
// The lease is measured as the service gave it (from the authentication to
// lease_expires_at) on the computer's own clock, so a clock that is off does
// not make it renew late. Timers do not run while a computer sleeps: call
// RenewNow when it wakes.
type Heartbeat struct {
	client      *Client
	credentials Credentials
	onLost      func(*Error)
	lost        chan struct{}

	// beating is held for the whole of a renewal, so renewals never overlap and Stop can wait for one.
	beating sync.Mutex

	mu        sync.Mutex
	state     heartbeatState
	timer     *time.Timer
	last      *Result
	leaseEnd  time.Time
	leaseLen  time.Duration
	renewedAt time.Time
	next      time.Time
	err       *Error
	stopOnce  sync.Once
	stopErr   error
}

type heartbeatState int

const (
	running heartbeatState = iota
	seatLost
	stopped
)

// StartHeartbeat takes or renews this device's floating seat now (failing as
// Check does, e.g. SEATS_EXHAUSTED with {max_devices, next_seat_at} as Data, or
// LICENSE_NOT_FLOATING when the license holds no lease), then keeps it; see
// Heartbeat. onLost may be nil; it is called from the heartbeat's goroutine.
// The context bounds the first renewal only.
func (c *Client) StartHeartbeat(ctx context.Context, credentials Credentials, onLost func(*Error)) (*Heartbeat, error) {
	first, err := c.authenticate(ctx, credentials, c.fields(credentials))
	if err != nil {
		return nil, err
	}
	end, length, ok := leaseOf(first)
	if !ok {
		return nil, notFloating()
	}
	heartbeat := &Heartbeat{client: c, credentials: credentials, onLost: onLost, lost: make(chan struct{}), last: first, leaseEnd: end, leaseLen: length, renewedAt: c.now()}
	heartbeat.mu.Lock()
	heartbeat.schedule()
	heartbeat.mu.Unlock()
	return heartbeat, nil
}

func notFloating() *Error {
	return &Error{Code: CodeLicenseNotFloating, detail: "the answer holds no lease: the license is not floating"}
}

// leaseOf is the lease an answer gives: its end as the service wrote it, and
// its length by the service's own clock (from this authentication to the end).
func leaseOf(result *Result) (end time.Time, length time.Duration, ok bool) {
	var data struct {
		LastLogin      string  `json:"last_login"`
		LeaseExpiresAt *string `json:"lease_expires_at"`
	}
	if json.Unmarshal(result.Data, &data) != nil || data.LeaseExpiresAt == nil {
		return time.Time{}, 0, false
	}
	end, endErr := time.Parse(time.RFC3339Nano, *data.LeaseExpiresAt)
	login, loginErr := time.Parse(time.RFC3339Nano, data.LastLogin)
	if endErr != nil || loginErr != nil {
		return time.Time{}, 0, false
	}
	return end, end.Sub(login), true
}

// LeaseExpiresAt is the end of the lease as of the last renewal (the service's clock).
func (h *Heartbeat) LeaseExpiresAt() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.leaseEnd
}

// NextRenewalAt is when the next renewal is due (the client's clock); zero once the heartbeat has ended.
func (h *Heartbeat) NextRenewalAt() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next
}

// Result is the last renewal's answer.
func (h *Heartbeat) Result() *Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// Lost is closed when the seat is lost.
func (h *Heartbeat) Lost() <-chan struct{} { return h.lost }

// Err is why the seat was lost (the service's refusal, or NETWORK_ERROR when
// the lease ended while the service was out of reach); nil while it is held.
func (h *Heartbeat) Err() *Error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// RenewNow renews at once instead of at the time planned, e.g. when the
// computer wakes from sleep, and returns once the renewal is done; a loss goes
// to OnLost and Err as always. The context bounds this renewal.
func (h *Heartbeat) RenewNow(ctx context.Context) {
	h.mu.Lock()
	if h.state == running && h.timer != nil {
		h.timer.Stop()
	}
	h.mu.Unlock()
	h.beat(ctx)
}

// Stop stops renewing and releases the seat (POST /release) unless it was
// already lost, and returns the release's error, if any. Later calls return
// the first one's result. Call it before the program ends (defer it, and stop
// on SIGINT/SIGTERM): a seat not released comes back only when its lease ends.
func (h *Heartbeat) Stop(ctx context.Context) error {
	h.stopOnce.Do(func() {
		h.mu.Lock()
		holding := h.state == running
		h.state = stopped
		h.next = time.Time{}
		if h.timer != nil {
			h.timer.Stop()
		}
		h.mu.Unlock()
		// Taking the lock waits for a renewal under way: the release must come after it.
		h.beating.Lock()
		h.beating.Unlock()
		if holding {
			_, h.stopErr = h.client.Release(ctx, h.credentials)
		}
	})
	return h.stopErr
}

// schedule plans the next renewal; h.mu is held.
func (h *Heartbeat) schedule() {
	left := h.leaseLen - h.client.now().Sub(h.renewedAt)
	delay := jittered(left/2, 0.9, 1.1)
	if delay < shortestWait {
		delay = shortestWait
	}
	h.next = h.client.now().Add(delay)
	if h.timer != nil {
		h.timer.Stop()
	}
	h.timer = time.AfterFunc(delay, func() { h.beat(context.Background()) })
}

func (h *Heartbeat) beat(ctx context.Context) {
	h.beating.Lock()
	defer h.beating.Unlock()
	h.mu.Lock()
	if h.state != running {
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()

	result, err := h.client.authenticate(ctx, h.credentials, h.client.fields(h.credentials))

	h.mu.Lock()
	if h.state != running {
		h.mu.Unlock()
		return
	}
	if err == nil {
		end, length, ok := leaseOf(result)
		if ok {
			h.last, h.leaseEnd, h.leaseLen, h.renewedAt = result, end, length, h.client.now()
			h.schedule()
			h.mu.Unlock()
			return
		}
		err = notFloating()
	}
	var failure *Error
	if !errors.As(err, &failure) {
		failure = &Error{Code: CodeNetworkError, detail: "the renewal failed", cause: err}
	}
	if failure.Code == CodeNetworkError && h.client.now().Sub(h.renewedAt) < h.leaseLen {
		h.schedule()
		h.mu.Unlock()
		return
	}
	h.state = seatLost
	h.err = failure
	h.next = time.Time{}
	close(h.lost)
	h.mu.Unlock()
	if h.onLost != nil {
		h.onLost(failure)
	}
}
