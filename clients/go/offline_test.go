package licensing_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	licensing "licensing-service/clients/go"
)

func readStored(t *testing.T, dir string) (stored struct {
	Token    string `json:"token"`
	Username string `json:"username"`
}) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, "offline-token.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(text, &stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

func claimsOf(t *testing.T, token string) map[string]interface{} {
	t.Helper()
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]interface{}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

func TestASuccessStoresItsOfflineTokenAtomicallyAndPrivately(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	dir := filepath.Join(t.TempDir(), "state")
	result := ok(t)(s.client(t, s.proxyURL, withStateDir(dir)).Check(ctx, licensing.Credentials{License: key, HWID: "laptop"}))
	stored := readStored(t, dir)
	if stored.Token == "" || stored.Token != licenseData(t, result).OfflineToken {
		t.Fatalf("stored %+v", stored)
	}
	claims := claimsOf(t, stored.Token)
	if claims["sub"] != key || claims["hwid"] != "laptop" || claims["nonce"] != s.proxyLog(t)[0]["nonce"] {
		t.Fatalf("claims %v", claims)
	}
	if sent := s.proxyLog(t)[0]; sent["offline_token"] != true {
		t.Fatalf("no token was asked for: %v", sent)
	}
	info, err := os.Stat(filepath.Join(dir, "offline-token.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v %v", info.Mode(), err)
	}
	// The token and the latest time seen (the token's iat), and no temporary file left beside them.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, entry := range entries {
		names = append(names, entry.Name())
	}
	if strings.Join(names, " ") != "clock.json offline-token.json" {
		t.Fatalf("the state folder holds %v", names)
	}
}

func TestWithoutAStateDirNoTokenIsAskedFor(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	result := ok(t)(s.client(t, s.proxyURL).Check(ctx, licensing.Credentials{License: key}))
	if _, asked := s.proxyLog(t)[0]["offline_token"]; asked || licenseData(t, result).OfflineToken != "" {
		t.Fatalf("a token was asked for: %s", result.Data)
	}
}

func TestTheStoredTokenAnswersWhileTheServiceIsDownUntilItExpires(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true, "features": []string{"export.pdf"}})
	dir, clock := t.TempDir(), newFakeClock()
	// Calls that must reach the service take the default timeout, so a busy machine cannot fail them; those made while it
	// is down take a second, as each retries an unreachable service until its timeout before answering from the token.
	online := func() *licensing.Client { return s.client(t, s.url, withStateDir(dir), withClock(clock)) }
	client := func() *licensing.Client {
		return s.client(t, s.url, withStateDir(dir), withClock(clock), withTimeout(time.Second))
	}
	if first := ok(t)(online().Check(ctx, licensing.Credentials{License: key, HWID: "laptop"})); first.Offline {
		t.Fatal("the first check was offline")
	}
	s.stopServer(t)

	started := time.Now()
	offline := ok(t)(client().Check(ctx, licensing.Credentials{License: key, HWID: "laptop"}))
	if elapsed := time.Since(started); elapsed > 3500*time.Millisecond {
		t.Fatalf("took %s", elapsed)
	}
	var claims licensing.TokenClaims
	var data struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(offline.Data, &claims); err != nil || json.Unmarshal(offline.Data, &data) != nil {
		t.Fatal(err)
	}
	if !offline.Offline || offline.Message != licensing.MessageOfflineTokenValid || data.Key != key || claims.Sub != key || claims.Iss != s.appID ||
		claims.SubscriptionName != "Go client tests" || strings.Join(claims.Features, ",") != "export.pdf" || claims.HWID == nil || *claims.HWID != "laptop" {
		t.Fatalf("offline: %+v %s", offline, offline.Data)
	}

	for _, other := range []licensing.Credentials{{License: key, HWID: "another-pc"}, {License: "ANOTHER-KEY", HWID: "laptop"}} {
		refused(t, licensing.CodeNetworkError)(client().Check(ctx, other))
	}

	clock.Advance(7*24*time.Hour + time.Minute)
	expired := refused(t, licensing.CodeOfflineTokenExpired)(client().Check(ctx, licensing.Credentials{License: key, HWID: "laptop"}))
	if expired.Status != 0 {
		t.Fatalf("an offline failure has no HTTP status: %d", expired.Status)
	}

	s.setServer(t, true)
	if again := ok(t)(online().Check(ctx, licensing.Credentials{License: key, HWID: "laptop"})); again.Offline {
		t.Fatal("the service is back, the answer is online")
	}
}

func TestAUsernameLoginWorksOfflineWithItsUsernameOnly(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	username := unique("offline")
	dir := t.TempDir()
	online := s.client(t, s.url, withStateDir(dir))
	client := func() *licensing.Client { return s.client(t, s.url, withStateDir(dir), withTimeout(time.Second)) }
	ok(t)(online.Register(ctx, key, username, "password-123"))
	ok(t)(online.Check(ctx, licensing.Credentials{Username: username, Password: "password-123"}))
	if stored := readStored(t, dir); stored.Username != username {
		t.Fatalf("stored %+v", stored)
	}
	s.stopServer(t)
	result := ok(t)(client().Check(ctx, licensing.Credentials{Username: " " + strings.ToUpper(username), Password: "anything"}))
	if !result.Offline || !strings.Contains(string(result.Data), `"key":"`+key+`"`) {
		t.Fatalf("offline by username: %+v", result)
	}
	refused(t, licensing.CodeNetworkError)(client().Check(ctx, licensing.Credentials{Username: "somebody-else", Password: "password-123"}))
}

func TestAnEditedTokenFileIsInvalidSignature(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	dir := t.TempDir()
	ok(t)(s.client(t, s.url, withStateDir(dir)).Check(ctx, licensing.Credentials{License: key}))
	stored := readStored(t, dir)
	parts := strings.Split(stored.Token, ".")
	claims := claimsOf(t, stored.Token)
	claims["exp"] = claims["exp"].(float64) + 365*86400
	payload, _ := json.Marshal(claims)
	forged, _ := json.Marshal(map[string]string{"token": parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]})
	if err := os.WriteFile(filepath.Join(dir, "offline-token.json"), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	s.stopServer(t)
	refused(t, licensing.CodeInvalidSignature)(s.client(t, s.url, withStateDir(dir), withTimeout(time.Second)).Check(ctx, licensing.Credentials{License: key}))
}

func TestNoStoredTokenIsNetworkError(t *testing.T) {
	s := theService(t)
	s.stopServer(t)
	refused(t, licensing.CodeNetworkError)(s.client(t, s.url, withStateDir(t.TempDir()), withTimeout(time.Second)).Check(ctx, licensing.Credentials{License: "ANY-KEY"}))
}

func TestARefusalOfTheLicenseDeletesItsStoredToken(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	dir := t.TempDir()
	client := s.client(t, s.url, withStateDir(dir))
	ok(t)(client.Check(ctx, licensing.Credentials{License: key}))
	// A refusal of another license leaves it.
	refused(t, "LICENSE_NOT_FOUND")(client.Check(ctx, licensing.Credentials{License: "ANOTHER-KEY"}))
	readStored(t, dir)

	s.manage(t, "/license/update-status", map[string]interface{}{"license_key": key, "status": "paused"})
	refused(t, "LICENSE_NOT_ACTIVE")(client.Check(ctx, licensing.Credentials{License: key}))
	if _, err := os.Stat(filepath.Join(dir, "offline-token.json")); !os.IsNotExist(err) {
		t.Fatalf("the token of the refused license is still there: %v", err)
	}
}

func TestAStateDirThatCannotBeWrittenFailsTheCheckWithTheFileSystemsError(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.client(t, s.url, withStateDir(filepath.Join(blocker, "state"))).Check(ctx, licensing.Credentials{License: key})
	var failed *licensing.Error
	if err == nil || errors.As(err, &failed) || !strings.Contains(err.Error(), "cannot keep the offline token") {
		t.Fatalf("got %v", err)
	}
}

func TestATokenIsNotUsedBeforeItsNotBeforeBeyondAMinuteOfClockSkew(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, nil)
	dir, clock := t.TempDir(), newFakeClock()
	ok(t)(s.client(t, s.url, withStateDir(dir), withClock(clock)).Check(ctx, licensing.Credentials{License: key}))
	client := s.client(t, s.url, withStateDir(dir), withClock(clock), withTimeout(time.Second))
	s.stopServer(t)
	clock.Advance(-30 * time.Second)
	if result := ok(t)(client.Check(ctx, licensing.Credentials{License: key})); !result.Offline {
		t.Fatal("not offline")
	}
	clock.Advance(-90 * time.Second)
	refused(t, licensing.CodeNetworkError)(client.Check(ctx, licensing.Credentials{License: key}))
}
