package licensing_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	licensing "licensing-service/clients/go"
)

// What an intercepting proxy does to a genuine answer (test/support/steered-service.ts).
var alterations = []string{
	"status",        // 200 made 403, 403 made 200
	"status-5xx",    // a signed answer made a 503 (retrying it would open the offline path)
	"body",          // success and level changed, digest left
	"body-redigest", // the same with a recomputed Content-Digest
	"signature",     // one bit of the signature flipped
	"strip",         // signature headers removed: an unsigned 200 or 403
	"nonce-request", // the request's nonce replaced (digest recomputed): a genuine answer to another nonce
	"nonce-answer",  // the nonce parameter of Signature-Input replaced
}

func TestEveryAlterationOfASuccessIsRejectedWithoutTouchingTheStoredToken(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	dir := t.TempDir()
	ok(t)(s.client(t, s.url, withStateDir(dir)).Check(ctx, licensing.Credentials{License: key}))
	stored, err := os.ReadFile(filepath.Join(dir, "offline-token.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range alterations {
		t.Run(mode, func(t *testing.T) {
			s.proxy(t, mode, nil)
			refused(t, licensing.CodeInvalidSignature)(s.client(t, s.proxyURL, withStateDir(dir)).Check(ctx, licensing.Credentials{License: key}))
			if now, err := os.ReadFile(filepath.Join(dir, "offline-token.json")); err != nil || string(now) != string(stored) {
				t.Fatalf("a rejected answer touched the stored token: %v", err)
			}
		})
	}
}

func TestEveryAlterationOfARefusalIsRejected(t *testing.T) {
	s := theService(t)
	for _, mode := range alterations {
		t.Run(mode, func(t *testing.T) {
			s.proxy(t, mode, nil)
			refused(t, licensing.CodeInvalidSignature)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: "NOT-A-LICENSE"}))
		})
	}
}

func TestAnOldAnswerReplayedIsRejected(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	client := s.client(t, s.proxyURL)
	ok(t)(client.Check(ctx, licensing.Credentials{License: key}))
	s.proxy(t, "replay", map[string]interface{}{"times": 1})
	refused(t, licensing.CodeInvalidSignature)(client.Check(ctx, licensing.Credentials{License: key}))
	if sent := s.proxyLog(t); len(sent) != 0 {
		t.Fatalf("the proxy asked the service: %v", sent)
	}
}

func TestAGenuineAnswerAboutAnotherLicenseReplayedIsRejected(t *testing.T) {
	s := theService(t)
	theirs, mine := s.newLicense(t, nil), s.newLicense(t, nil)
	ok(t)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: theirs}))
	s.proxy(t, "replay", map[string]interface{}{"times": 1})
	refused(t, licensing.CodeInvalidSignature)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: mine}))
}

func TestARelayedAnswerAboutAnotherLicenseIsRejected(t *testing.T) {
	s := theService(t)
	genuine := s.newLicense(t, nil)
	dir := t.TempDir()
	s.proxy(t, "relay", map[string]interface{}{"license": genuine})
	// Even with the relaying proxy's own digest, the answer is signed over the proxy's body, not ours.
	refused(t, licensing.CodeInvalidSignature)(s.client(t, s.proxyURL, withStateDir(dir)).Check(ctx, licensing.Credentials{License: "CRACKED-KEY"}))
	if sent := s.proxyLog(t); len(sent) != 1 || sent[0]["license"] != "CRACKED-KEY" {
		t.Fatalf("sent %v", sent)
	}
	if _, err := os.Stat(filepath.Join(dir, "offline-token.json")); !os.IsNotExist(err) {
		t.Fatalf("the relayed answer's token was kept: %v", err)
	}
}

func TestTheOtherRoutesAreVerifiedToo(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true, "usage_limits": map[string]interface{}{"exports": map[string]interface{}{"limit": 5, "period": "none"}}})
	ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "pc-1"}))
	device := licensing.Credentials{License: key, HWID: "pc-1"}
	calls := map[string]func(*licensing.Client) (*licensing.Result, error){
		"usage": func(c *licensing.Client) (*licensing.Result, error) {
			return c.RecordUsage(ctx, device, licensing.Usage{Counter: "exports"})
		},
		"reset": func(c *licensing.Client) (*licensing.Result, error) { return c.ResetHWID(ctx, device) },
		"register": func(c *licensing.Client) (*licensing.Result, error) {
			return c.Register(ctx, key, unique("tampered"), "password-123")
		},
		"release": func(c *licensing.Client) (*licensing.Result, error) { return c.Release(ctx, device) },
		"borrow":  func(c *licensing.Client) (*licensing.Result, error) { return c.Borrow(ctx, device, time.Hour) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			s.proxy(t, "body-redigest", nil)
			refused(t, licensing.CodeInvalidSignature)(call(s.client(t, s.proxyURL)))
		})
	}
}
