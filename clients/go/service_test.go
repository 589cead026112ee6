package licensing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	licensing "licensing-service/clients/go"
)

// The service under test, as test/clients/go.test.ts starts it: the local
// server, an intercepting proxy in front of it that these tests steer, and an
// owner with an application. Without LICENSING_URL these tests are skipped:
// run them with `npm test -- test/clients/go.test.ts` at the repository's root.
type service struct {
	url, proxyURL, appID, apiKey, jwk, pem string
}

func theService(t *testing.T) *service {
	t.Helper()
	s := &service{
		url:      os.Getenv("LICENSING_URL"),
		proxyURL: os.Getenv("LICENSING_PROXY_URL"),
		appID:    os.Getenv("LICENSING_APP_ID"),
		apiKey:   os.Getenv("LICENSING_API_KEY"),
		jwk:      os.Getenv("LICENSING_PUBLIC_JWK"),
		pem:      os.Getenv("LICENSING_PUBLIC_KEY_PEM"),
	}
	if s.url == "" {
		t.Skip("needs the local server: run `npm test -- test/clients/go.test.ts` at the repository's root")
	}
	// Each test starts with the proxy passing answers through, and leaves it so.
	s.proxy(t, "pass", nil)
	t.Cleanup(func() { s.proxy(t, "pass", nil) })
	return s
}

func post(t *testing.T, url string, body interface{}, headers map[string]string) (int, map[string]interface{}) {
	t.Helper()
	text, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	request, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	request.Header.Set("Content-Type", "application/json")
	for name, value := range headers {
		request.Header.Set(name, value)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	response, err := client.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var answer map[string]interface{}
	if err := json.NewDecoder(response.Body).Decode(&answer); err != nil {
		t.Fatalf("%s answered %d with no JSON: %v", url, response.StatusCode, err)
	}
	return response.StatusCode, answer
}

// manage is a management call as the owner; its data.
func (s *service) manage(t *testing.T, path string, body map[string]interface{}) map[string]interface{} {
	t.Helper()
	status, answer := post(t, s.url+path, body, map[string]string{"x-api-key": s.apiKey})
	if status != http.StatusOK {
		t.Fatalf("%s answered %d: %v", path, status, answer)
	}
	data, _ := answer["data"].(map[string]interface{})
	return data
}

var subscription struct {
	sync.Mutex
	id string
}

func (s *service) subscriptionID(t *testing.T) string {
	subscription.Lock()
	defer subscription.Unlock()
	if subscription.id == "" {
		created := s.manage(t, "/subscription/create", map[string]interface{}{"app_id": s.appID, "name": "Go client tests", "level": 3})
		subscription.id = created["subscription_id"].(string)
	}
	return subscription.id
}

// newLicense is a new 30-day license of the test subscription (fields as /license/create takes them); its key.
func (s *service) newLicense(t *testing.T, fields map[string]interface{}) string {
	t.Helper()
	body := map[string]interface{}{"app_id": s.appID, "subscription_id": s.subscriptionID(t), "duration_unit": "days", "duration_value": 30}
	for name, value := range fields {
		body[name] = value
	}
	return s.manage(t, "/license/create", body)["key"].(string)
}

func (s *service) floatingLicense(t *testing.T, seats int) string {
	return s.newLicense(t, map[string]interface{}{"hwid_lock": true, "max_devices": seats, "lease_seconds": 60})
}

func (s *service) license(t *testing.T, key string) map[string]interface{} {
	return s.manage(t, "/license/get", map[string]interface{}{"license_key": key})
}

// proxy sets how the proxy treats the requests to come (all of them, or the
// next "times" when extra holds it) and clears its log.
func (s *service) proxy(t *testing.T, mode string, extra map[string]interface{}) {
	t.Helper()
	body := map[string]interface{}{"mode": mode}
	for name, value := range extra {
		body[name] = value
	}
	if status, answer := post(t, s.proxyURL+"/__control/mode", body, nil); status != http.StatusOK {
		t.Fatalf("the proxy refused mode %s: %v", mode, answer)
	}
}

// proxyLog is the request bodies the proxy forwarded since its mode was last set.
func (s *service) proxyLog(t *testing.T) []map[string]interface{} {
	t.Helper()
	_, answer := post(t, s.proxyURL+"/__control/log", map[string]interface{}{}, nil)
	entries, _ := answer["log"].([]interface{})
	log := make([]map[string]interface{}, 0, len(entries))
	for _, entry := range entries {
		log = append(log, entry.(map[string]interface{}))
	}
	return log
}

func (s *service) setServer(t *testing.T, running bool) {
	t.Helper()
	if status, _ := post(t, s.proxyURL+"/__control/server", map[string]interface{}{"running": running}, nil); status != http.StatusOK {
		t.Fatal("the proxy could not switch the server")
	}
}

// stopServer makes the service unreachable until the test ends (or startServer).
func (s *service) stopServer(t *testing.T) {
	s.setServer(t, false)
	t.Cleanup(func() { s.setServer(t, true) })
}

// client is a client of the test application, through the URL given (the
// service's, or the proxy's), with the JWK pinned unless options say otherwise.
func (s *service) client(t *testing.T, url string, configure ...func(*licensing.Options)) *licensing.Client {
	t.Helper()
	options := licensing.Options{URL: url, AppID: s.appID, PublicKey: s.jwk, Timeout: 10 * time.Second}
	for _, change := range configure {
		change(&options)
	}
	client, err := licensing.NewClient(options)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func withStateDir(dir string) func(*licensing.Options) {
	return func(options *licensing.Options) { options.StateDir = dir }
}

func withTimeout(timeout time.Duration) func(*licensing.Options) {
	return func(options *licensing.Options) { options.Timeout = timeout }
}

func withClock(clock *fakeClock) func(*licensing.Options) {
	return func(options *licensing.Options) { options.Now = clock.Now }
}

// fakeClock is a time that a test moves by hand.
type fakeClock struct {
	sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.Lock()
	defer c.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.Lock()
	defer c.Unlock()
	c.now = c.now.Add(d)
}

var ctx = context.Background()

// refused is how a test expects a call to fail: refused(t, code)(client.Check(...))
// is the *licensing.Error with that code the call failed with.
func refused(t *testing.T, code string) func(*licensing.Result, error) *licensing.Error {
	return func(result *licensing.Result, err error) *licensing.Error {
		t.Helper()
		var failed *licensing.Error
		if !errors.As(err, &failed) {
			t.Fatalf("expected %s, got %v (result %+v)", code, err, result)
		}
		if failed.Code != code {
			t.Fatalf("code %q (%v), want %q", failed.Code, failed, code)
		}
		return failed
	}
}

// ok is how a test expects a call to succeed: ok(t)(client.Check(...)) is its result.
func ok(t *testing.T) func(*licensing.Result, error) *licensing.Result {
	return func(result *licensing.Result, err error) *licensing.Result {
		t.Helper()
		if err != nil {
			t.Fatalf("the call failed: %v", err)
		}
		return result
	}
}

// licenseData is a result's data as license data.
func licenseData(t *testing.T, result *licensing.Result) licensing.LicenseData {
	t.Helper()
	var data licensing.LicenseData
	if err := json.Unmarshal(result.Data, &data); err != nil {
		t.Fatalf("data %s: %v", result.Data, err)
	}
	return data
}

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
}
