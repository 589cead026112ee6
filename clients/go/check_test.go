package licensing_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	licensing "licensing-service/clients/go"
)

func TestCheckAcceptsAVerifiedAnswerWithTheJWKOrThePEMPinned(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)

	first := ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key}))
	if first.Message != "LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY" || first.Offline || licenseData(t, first).Key != key {
		t.Fatalf("first check: %+v", first)
	}
	again := ok(t)(s.client(t, s.url, func(o *licensing.Options) { o.PublicKey = s.pem }).Check(ctx, licensing.Credentials{License: key}))
	if again.Message != "LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY" || licenseData(t, again).SubscriptionName != "Go client tests" {
		t.Fatalf("second check: %+v", again)
	}
}

func TestRegisterThenCheckByUsernameAndPasswordInAnyCase(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	username := unique("go-user")
	registered := ok(t)(s.client(t, s.url).Register(ctx, key, username, "correct horse battery"))
	if registered.Message != "License credentials updated successfully" {
		t.Fatalf("register: %+v", registered)
	}
	result := ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{Username: strings.ToUpper(username), Password: "correct horse battery"}))
	if licenseData(t, result).Key != key {
		t.Fatalf("check by username: %s", result.Data)
	}
	refused(t, "INVALID_USERNAME_OR_PASSWORD")(s.client(t, s.url).Check(ctx, licensing.Credentials{Username: username, Password: "wrong password!"}))
}

func TestTheServiceRefusalsAreErrorsWithTheirDataAndAreNotRetried(t *testing.T) {
	s := theService(t)
	missing := refused(t, "LICENSE_NOT_FOUND")(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: "NOPE-NOPE-NOPE"}))
	if missing.Status != 403 || missing.Data != nil {
		t.Fatalf("refusal: %+v", missing)
	}
	if sent := s.proxyLog(t); len(sent) != 1 {
		t.Fatalf("a refusal was sent %d times", len(sent))
	}

	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "device-one"}))
	mismatch := refused(t, "HWID_MISMATCH")(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "device-two"}))
	var data map[string]interface{}
	if err := json.Unmarshal(mismatch.Data, &data); err != nil || data["hwid_reset_allowed"] != true || data["hwid_reset_cooldown"] != float64(0) {
		t.Fatalf("HWID_MISMATCH data %s", mismatch.Data)
	}

	noCredentials := refused(t, "No valid authentication method provided (missing license key or username/password)")(s.client(t, s.url).Check(ctx, licensing.Credentials{}))
	if noCredentials.Status != 400 {
		t.Fatalf("status %d", noCredentials.Status)
	}
}

func TestResetHWIDMovesALockedLicenseToAnotherDevice(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	client := s.client(t, s.url)
	ok(t)(client.Check(ctx, licensing.Credentials{License: key, HWID: "old-pc"}))
	refused(t, "HWID_MISMATCH")(client.Check(ctx, licensing.Credentials{License: key, HWID: "new-pc"}))
	reset := ok(t)(client.ResetHWID(ctx, licensing.Credentials{License: key}))
	if reset.Message != "HWID_RESET" || licenseData(t, reset).Key != key {
		t.Fatalf("reset: %+v", reset)
	}
	if moved := ok(t)(client.Check(ctx, licensing.Credentials{License: key, HWID: "new-pc"})); moved.Message != "LICENSE_VERIFIED_USED_AND_LOCKED_KEY" {
		t.Fatalf("after the reset: %+v", moved)
	}
	refused(t, "HWID_NOT_BOUND")(client.ResetHWID(ctx, licensing.Credentials{License: key, HWID: "old-pc"}))
}

func TestAnAnswerUnderAnotherKeyOrUnsignedIsInvalidSignature(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	spki, err := x509.MarshalPKIXPublicKey(private.Public())
	if err != nil {
		t.Fatal(err)
	}
	otherKey := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}))
	refused(t, licensing.CodeInvalidSignature)(s.client(t, s.url, func(o *licensing.Options) { o.PublicKey = otherKey }).Check(ctx, licensing.Credentials{License: key}))
	// An unknown application has no key to sign with: its answer is unsigned.
	unknownApp := s.client(t, s.url, func(o *licensing.Options) { o.AppID = "00000000-0000-4000-8000-000000000000" })
	refused(t, licensing.CodeInvalidSignature)(unknownApp.Check(ctx, licensing.Credentials{License: key}))
}

func TestEveryCallSendsAFreshNonce(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	client := s.client(t, s.proxyURL)
	ok(t)(client.Check(ctx, licensing.Credentials{License: key}))
	ok(t)(client.Check(ctx, licensing.Credentials{License: key}))
	sent := s.proxyLog(t)
	if len(sent) != 2 || sent[0]["nonce"] == sent[1]["nonce"] {
		t.Fatalf("sent %v", sent)
	}
	for _, body := range sent {
		if nonce, _ := body["nonce"].(string); !regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{8,128}$`).MatchString(nonce) {
			t.Fatalf("nonce %q", nonce)
		}
	}
}

func TestNewClientRefusesWhatIsNoEd25519PublicKeyAppIDOrHTTPURL(t *testing.T) {
	s := theService(t)
	var jwk map[string]interface{}
	if err := json.Unmarshal([]byte(s.jwk), &jwk); err != nil {
		t.Fatal(err)
	}
	jwk["kid"] = "another"
	wrongKid, _ := json.Marshal(jwk)
	for name, options := range map[string]licensing.Options{
		"a JWK whose kid is not its thumbprint": {URL: s.url, AppID: s.appID, PublicKey: string(wrongKid)},
		"an RSA JWK":                            {URL: s.url, AppID: s.appID, PublicKey: `{"kty":"RSA","n":"x","e":"AQAB"}`},
		"no key":                                {URL: s.url, AppID: s.appID, PublicKey: "not a key"},
		"an app id that is no UUID":             {URL: s.url, AppID: "my-app", PublicKey: s.jwk},
		"a URL that is not http(s)":             {URL: "ftp://example.com", AppID: s.appID, PublicKey: s.jwk},
	} {
		if _, err := licensing.NewClient(options); err == nil {
			t.Errorf("%s was taken", name)
		}
	}
	// No URL: a client that never goes online (an air-gapped program); its calls fail at once with NETWORK_ERROR.
	offline, err := licensing.NewClient(licensing.Options{AppID: s.appID, PublicKey: s.jwk})
	if err != nil {
		t.Fatal(err)
	}
	refused(t, licensing.CodeNetworkError)(offline.Check(ctx, licensing.Credentials{License: "KEY"}))
}

func TestUsageIsRecordedAndRefusedPastTheLimit(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"usage_limits": map[string]interface{}{"exports": map[string]interface{}{"limit": 2, "period": "none"}}})
	client := s.client(t, s.url)
	ok(t)(client.Check(ctx, licensing.Credentials{License: key}))
	recorded := ok(t)(client.RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "exports"}))
	var counter licensing.UsageCounter
	if err := json.Unmarshal(recorded.Data, &counter); err != nil || recorded.Message != "USAGE_RECORDED" || counter.Used != 1 || counter.Remaining != 1 {
		t.Fatalf("recorded %+v", recorded)
	}
	over := refused(t, "USAGE_LIMIT_REACHED")(client.RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "exports", Amount: 2}))
	if err := json.Unmarshal(over.Data, &counter); err != nil || counter.Used != 1 {
		t.Fatalf("refused with %s", over.Data)
	}
	refused(t, "USAGE_COUNTER_UNKNOWN")(client.RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "pages"}))
}

func TestALostUsageAnswerIsRetriedWithTheSameUsageIDAndCountedOnce(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"usage_limits": map[string]interface{}{"exports": map[string]interface{}{"limit": 10, "period": "month"}}})
	ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key}))
	s.proxy(t, "lose-answer", map[string]interface{}{"times": 1})
	recorded := ok(t)(s.client(t, s.proxyURL).RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "exports", Amount: 3}))
	var counter licensing.UsageCounter
	if err := json.Unmarshal(recorded.Data, &counter); err != nil || counter.Used != 3 {
		t.Fatalf("recorded %s", recorded.Data)
	}
	sent := s.proxyLog(t)
	if len(sent) != 2 || sent[0]["usage_id"] != sent[1]["usage_id"] {
		t.Fatalf("sent %v", sent)
	}
	usage := s.license(t, key)["usage"].([]interface{})
	if used := usage[0].(map[string]interface{})["used"]; used != float64(3) {
		t.Fatalf("the service counted %v", used)
	}
	// A new call is a new use: a new usage_id; one given is sent as it is.
	s.proxy(t, "pass", nil)
	ok(t)(s.client(t, s.proxyURL).RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "exports"}))
	ok(t)(s.client(t, s.proxyURL).RecordUsage(ctx, licensing.Credentials{License: key}, licensing.Usage{Counter: "exports", UsageID: "export-of-report-42"}))
	again := s.proxyLog(t)
	if again[0]["usage_id"] == sent[0]["usage_id"] || again[1]["usage_id"] != "export-of-report-42" {
		t.Fatalf("usage ids %v then %v", sent[0]["usage_id"], again)
	}
}

func TestUnsignedGatewayAnswersAreRetriedUntilTheTimeout(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)

	s.proxy(t, "gateway-502", map[string]interface{}{"times": 2})
	if data := licenseData(t, ok(t)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: key}))); data.Key != key {
		t.Fatalf("after two 502s: %+v", data)
	}

	s.proxy(t, "rate-limited", map[string]interface{}{"times": 1})
	started := time.Now()
	ok(t)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: key}))
	if waited := time.Since(started); waited < 950*time.Millisecond {
		t.Fatalf("the 429's Retry-After of 1 s was not honoured: %s", waited)
	}
	if sent := s.proxyLog(t); len(sent) != 2 {
		t.Fatalf("%d attempts", len(sent))
	}

	s.proxy(t, "gateway-502", nil)
	started = time.Now()
	failed := refused(t, licensing.CodeNetworkError)(s.client(t, s.proxyURL, withTimeout(1500*time.Millisecond)).Check(ctx, licensing.Credentials{License: key}))
	if elapsed := time.Since(started); elapsed > 1500*time.Millisecond+2*time.Second {
		t.Fatalf("gave up after %s", elapsed)
	}
	if failed.Unwrap() == nil {
		t.Fatal("a NETWORK_ERROR names its cause")
	}
}

func TestNothingListeningIsNetworkErrorWithinTheTimeout(t *testing.T) {
	s := theService(t)
	started := time.Now()
	refused(t, licensing.CodeNetworkError)(s.client(t, "http://127.0.0.1:9", withTimeout(time.Second)).Check(ctx, licensing.Credentials{License: "ANY-KEY"}))
	if elapsed := time.Since(started); elapsed > 3500*time.Millisecond {
		t.Fatalf("gave up after %s", elapsed)
	}
}

func TestMachineIDIsStablePerApplicationRevealsNothingAndIsTheTypeScriptLibrarys(t *testing.T) {
	s := theService(t)
	id := s.client(t, s.url).MachineID()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(id) || id != s.client(t, s.url).MachineID() {
		t.Fatalf("machine id %q", id)
	}
	if other := s.client(t, s.url, func(o *licensing.Options) { o.AppID = "11111111-1111-4111-8111-111111111111" }).MachineID(); other == id {
		t.Fatal("two applications see one machine id")
	}
	if system, err := os.ReadFile("/etc/machine-id"); err == nil && len(strings.TrimSpace(string(system))) >= 16 && strings.Contains(id, strings.TrimSpace(string(system))[:16]) {
		t.Fatal("the machine id shows the system's")
	}
	if want := os.Getenv("LICENSING_TS_MACHINE_ID"); id != want {
		t.Fatalf("machine id %q, the TypeScript library's %q", id, want)
	}

	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	if bound := ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: id})); bound.Message != "LICENSE_VERIFIED_UNUSED_AND_LOCKED_KEY" || s.license(t, key)["hwid"] != id {
		t.Fatalf("bound: %+v", bound)
	}
}
