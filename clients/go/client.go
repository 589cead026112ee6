package licensing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Options configure a Client.
type Options struct {
	// URL is the service's base URL, e.g. the stack's ApiUrl output; empty: a
	// client that never goes online (an air-gapped program), whose Check
	// answers from the stored license file or token.
	URL string
	// AppID is the application's id.
	AppID string
	// PublicKey is the application's public key, pinned in the program: the
	// public_key_pem or the jwk (as JSON text) that POST /app/signing-key answers.
	PublicKey string
	// StateDir is where the library keeps the last offline token, the license
	// file, activation requests waiting for their file and the latest time seen
	// (one directory per application); empty: no offline use.
	StateDir string
	// Timeout is the longest a call may take, retries included; 10 seconds when 0.
	Timeout time.Duration
	// Now is the clock stored tokens and the heartbeat's lease are judged by;
	// time.Now when nil.
	Now func() time.Time
}

// Credentials name the license: License, or Username and Password (set with
// Register); HWID is the device, where the call takes one.
type Credentials struct {
	License  string
	Username string
	Password string
	HWID     string
}

// Result is an answer that verified, or a Check answered from the stored token.
type Result struct {
	// Message is the service's message (LICENSE_VERIFIED_USED_AND_LOCKED_KEY,
	// SEAT_RELEASED, USAGE_RECORDED, ...), or OFFLINE_TOKEN_VALID offline.
	Message string
	// Data is the answer's data as the service sent it (LicenseData for the
	// license routes, UsageCounter for RecordUsage); offline, the stored
	// token's claims (TokenClaims) with "key", the license key, added.
	Data json.RawMessage
	// Offline is true when the service could not be reached and the stored token answered.
	Offline bool
}

// MessageOfflineTokenValid is the Message of a Check answered from the stored token.
const MessageOfflineTokenValid = "OFFLINE_TOKEN_VALID"

// LicenseData is the data of a successful /auth, /release and /reset-hwid
// (the repository's docs/client-api.md#license-data); decode Result.Data into it.
type LicenseData struct {
	Key               string   `json:"key"`
	CreatedAt         string   `json:"created_at"`
	ExpiresAt         *string  `json:"expires_at"`
	FirstUsedAt       *string  `json:"first_used_at"`
	HWID              *string  `json:"hwid"`
	HWIDLock          bool     `json:"hwid_lock"`
	HWIDResetAllowed  bool     `json:"hwid_reset_allowed"`
	HWIDResetCooldown int64    `json:"hwid_reset_cooldown"`
	LastHWIDResetAt   *string  `json:"last_hwid_reset_at"`
	Username          *string  `json:"username"`
	LastLogin         string   `json:"last_login"`
	SubscriptionLevel int      `json:"subscription_level"`
	SubscriptionName  string   `json:"subscription_name"`
	HWIDs             []string `json:"hwids,omitempty"`
	MaxDevices        int      `json:"max_devices,omitempty"`
	// LeaseExpiresAt is this device's lease end on a floating license (null once released).
	LeaseExpiresAt *string  `json:"lease_expires_at,omitempty"`
	Features       []string `json:"features,omitempty"`
	GraceUntil     *string  `json:"grace_until,omitempty"`
	// OfflineToken is the token Check asks for when a StateDir is set, and that of a borrowed seat.
	OfflineToken string `json:"offline_token,omitempty"`
}

// UsageCounter is the data of RecordUsage: the counter after the call.
type UsageCounter struct {
	Counter   string  `json:"counter"`
	Used      int64   `json:"used"`
	Limit     int64   `json:"limit"`
	Overage   int64   `json:"overage"`
	Remaining int64   `json:"remaining"`
	Period    string  `json:"period"`
	ResetsAt  *string `json:"resets_at"`
}

// Client calls the client routes of one application, every answer verified
// against its pinned key. It is safe for concurrent use.
type Client struct {
	url      string
	appID    string
	key      *pinnedKey
	stateDir string
	timeout  time.Duration
	now      func() time.Time
	http     *http.Client

	machineOnce sync.Once
	machineID   string
	// stateMu makes one client's reads and writes of its state files take turns.
	stateMu sync.Mutex
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// NewClient makes a client; it fails on a URL that is not http(s), an app id
// that is no UUID and a public key that is no Ed25519 key.
func NewClient(options Options) (*Client, error) {
	if options.URL != "" && !strings.HasPrefix(options.URL, "https://") && !strings.HasPrefix(options.URL, "http://") {
		return nil, errors.New("licensing: URL is no http(s) URL")
	}
	if !uuidPattern.MatchString(options.AppID) {
		return nil, errors.New("licensing: AppID is no UUID")
	}
	key, err := parsePublicKey(options.PublicKey)
	if err != nil {
		return nil, err
	}
	client := &Client{
		url:      strings.TrimRight(options.URL, "/"),
		appID:    options.AppID,
		key:      key,
		stateDir: options.StateDir,
		timeout:  options.Timeout,
		now:      options.Now,
		http: &http.Client{
			// A redirect is no answer of the service: it surfaces as the unsigned 3xx it is.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	if client.timeout <= 0 {
		client.timeout = 10 * time.Second
	}
	if client.now == nil {
		client.now = time.Now
	}
	return client, nil
}

// fields are the body of a request about the license: the app id, the
// credentials and the device.
func (c *Client) fields(credentials Credentials) map[string]interface{} {
	fields := map[string]interface{}{"app_id": c.appID}
	if credentials.License != "" {
		fields["license"] = credentials.License
	} else if credentials.Username != "" || credentials.Password != "" {
		fields["username"] = credentials.Username
		fields["password"] = credentials.Password
	}
	if credentials.HWID != "" {
		fields["hwid"] = credentials.HWID
	}
	return fields
}

func (c *Client) call(ctx context.Context, path string, fields map[string]interface{}) (*answer, *request, error) {
	if c.url == "" {
		return nil, nil, &Error{Code: CodeNetworkError, detail: "no service URL is set: this client works offline only"}
	}
	req, err := newRequest(path, fields)
	if err != nil {
		return nil, nil, err
	}
	got, err := c.post(ctx, req)
	return got, req, err
}

// Check authenticates (and on first use activates) the license. It succeeds
// with the service's verified answer or, when the service cannot be reached
// (NETWORK_ERROR) and a StateDir is set, from the stored license file
// (LICENSE_FILE_VALID, Data its claims) or else the stored offline token
// (OFFLINE_TOKEN_VALID) while it verifies, is within its nbf (with a minute's
// leeway) and exp by the client's clock, and names this license (or username)
// and this device; CLOCK_MOVED_BACK when the clock is more than a day behind
// the latest time seen. With a StateDir, every success asks for a new token
// and keeps it; a refusal of the license by the service (HTTP 403: paused,
// expired, another device, ...) deletes the stored token and license file of
// that license, which must not outlive the refusal.
func (c *Client) Check(ctx context.Context, credentials Credentials) (*Result, error) {
	fields := c.fields(credentials)
	if c.stateDir != "" {
		fields["offline_token"] = true
	}
	result, err := c.authenticate(ctx, credentials, fields)
	var failure *Error
	if err == nil || !errors.As(err, &failure) || c.stateDir == "" {
		return result, err
	}
	switch {
	case failure.Code == CodeNetworkError:
		return c.fromStored(credentials, failure)
	case failure.Status == http.StatusForbidden && failure.Code != CodeInvalidSignature:
		c.forgetToken(credentials)
		c.forgetLicenseFile(credentials)
	}
	return nil, err
}

// fromStored answers a Check the service could not answer: the license file
// first (it carries the license data), then the offline token. Nothing stored
// for this license and device leaves the network's failure; when something is
// but cannot be used (expired, altered, the clock set back), the first such
// reason is the error.
func (c *Client) fromStored(credentials Credentials, unreachable *Error) (*Result, error) {
	result, fileErr := c.fromLicenseFile(credentials)
	if result != nil {
		return result, nil
	}
	result, tokenErr := c.offline(credentials, unreachable)
	if result != nil {
		return result, nil
	}
	if fileErr != nil {
		return nil, fileErr
	}
	return nil, tokenErr
}

// Borrow holds this device's floating seat for the duration given (whole
// seconds, from 60 to the application's max_borrow_seconds; at the latest
// until the license's expiry) and keeps the answer's offline token in the
// StateDir, so that Check succeeds offline until the borrow ends. A borrowed
// seat cannot be released before its end (LEASE_BORROWED).
func (c *Client) Borrow(ctx context.Context, credentials Credentials, duration time.Duration) (*Result, error) {
	fields := c.fields(credentials)
	fields["borrow_seconds"] = int64(duration / time.Second)
	return c.authenticate(ctx, credentials, fields)
}

// Release gives this device's floating seat (Credentials.HWID) back at once.
func (c *Client) Release(ctx context.Context, credentials Credentials) (*Result, error) {
	return c.online(ctx, "/release", c.fields(credentials))
}

// ResetHWID releases the device Credentials.HWID, or every device of the
// license when it is empty, so that another computer can take the license
// (within the owner's rules: HWID_RESET_NOT_ALLOWED, HWID_RESET_COOLDOWN).
func (c *Client) ResetHWID(ctx context.Context, credentials Credentials) (*Result, error) {
	return c.online(ctx, "/reset-hwid", c.fields(credentials))
}

// Register sets or replaces the username and password of a license.
func (c *Client) Register(ctx context.Context, license, username, password string) (*Result, error) {
	return c.online(ctx, "/register", map[string]interface{}{"app_id": c.appID, "license": license, "username": username, "password": password})
}

// Usage is what RecordUsage counts.
type Usage struct {
	// Counter is the usage counter's name, e.g. "exports".
	Counter string
	// Amount is what to count, 1 when 0.
	Amount int64
	// UsageID makes the call safe to repeat: the service counts one usage id of
	// a license once within 24 hours. A random one is drawn when empty; pass
	// your own to repeat a call whose outcome you did not learn.
	UsageID string
}

// RecordUsage counts an amount against a usage counter. Its usage id is sent
// with each of the call's retries, so an answer lost on the way counts once.
// Data is the counter after the call (UsageCounter); a counter with too little
// left is refused with USAGE_LIMIT_REACHED and the counter as Data.
func (c *Client) RecordUsage(ctx context.Context, credentials Credentials, usage Usage) (*Result, error) {
	fields := c.fields(credentials)
	fields["counter"] = usage.Counter
	fields["amount"] = usage.Amount
	if usage.Amount == 0 {
		fields["amount"] = 1
	}
	fields["usage_id"] = usage.UsageID
	if usage.UsageID == "" {
		id, err := randomToken()
		if err != nil {
			return nil, err
		}
		fields["usage_id"] = id
	}
	return c.online(ctx, "/usage", fields)
}

// MachineID is this machine's fingerprint for this application, for programs
// that have no HWID of their own: the SHA-256 (hex) of the operating system's
// id of the installation, the user's name and the app id (the README lists the
// sources). It is computed once per client.
func (c *Client) MachineID() string {
	c.machineOnce.Do(func() { c.machineID = machineFingerprint(c.appID) })
	return c.machineID
}

func (c *Client) online(ctx context.Context, path string, fields map[string]interface{}) (*Result, error) {
	got, _, err := c.call(ctx, path, fields)
	if err != nil {
		return nil, err
	}
	return &Result{Message: got.message, Data: got.data}, nil
}

// authenticate is /auth; a token in the answer is checked (this request's
// nonce, the answer's license, this device) and, with a StateDir, kept.
func (c *Client) authenticate(ctx context.Context, credentials Credentials, fields map[string]interface{}) (*Result, error) {
	got, req, err := c.call(ctx, "/auth", fields)
	if err != nil {
		return nil, err
	}
	if err := c.acceptToken(got, req, credentials); err != nil {
		return nil, err
	}
	return &Result{Message: got.message, Data: got.data}, nil
}

func (c *Client) acceptToken(got *answer, req *request, credentials Credentials) error {
	var data map[string]json.RawMessage
	if json.Unmarshal(got.data, &data) != nil {
		return nil
	}
	if _, present := data["offline_token"]; !present {
		return nil
	}
	token, ok := stringMember(data, "offline_token")
	if !ok {
		return invalidSignature("the offline token is no string")
	}
	expected := tokenExpectations{appID: c.appID, hwid: credentials.HWID, nonce: req.nonce}
	if _, present := data["key"]; present {
		if expected.license, ok = stringMember(data, "key"); !ok {
			return invalidSignature("the answer's key is no string")
		}
	}
	claims, err := verifyToken(token, c.key, expected)
	if err != nil {
		return err
	}
	if c.stateDir == "" {
		return nil
	}
	// The service said yes: a token that cannot be kept is a setup mistake
	// (the StateDir is not writable), reported as the file system's error.
	c.stateMu.Lock()
	err = storeToken(c.stateDir, storedToken{Token: token, Username: credentials.Username})
	c.stateMu.Unlock()
	if err != nil {
		return fmt.Errorf("licensing: cannot keep the offline token in %s: %w", c.stateDir, err)
	}
	iat, _ := numberMember(claims, "iat")
	c.sawServiceTime(iat)
	return nil
}

// offline answers a Check the service could not answer from the stored token.
// A token of another license, username or device is no answer to this check:
// the failure stays the network's.
func (c *Client) offline(credentials Credentials, unreachable *Error) (*Result, error) {
	stored := loadToken(c.stateDir)
	if stored == nil {
		return nil, unreachable
	}
	if credentials.License == "" && (stored.Username == "" || !sameUser(stored.Username, credentials.Username)) {
		return nil, unreachable
	}
	peeked, ok := peekClaims(stored.Token)
	if !ok || !namesLicenseAndDevice(peeked, credentials.License, credentials.HWID, true) {
		return nil, unreachable
	}
	now := c.now()
	// A clock set back is refused before the token is judged by it.
	if err := c.judgeClock(now); err != nil {
		return nil, err
	}
	// A token not valid yet by this clock, past the leeway, is no answer either.
	if nbf, ok := numberMember(peeked, "nbf"); ok && nbf > float64(now.Add(storedTokenLeeway).Unix()) {
		return nil, unreachable
	}
	claims, err := verifyToken(stored.Token, c.key, tokenExpectations{appID: c.appID, license: credentials.License, hwid: credentials.HWID, now: &now, notBeforeLeeway: storedTokenLeeway})
	if err != nil {
		return nil, err
	}
	claims["key"] = claims["sub"]
	data, err := json.Marshal(claims)
	if err != nil {
		return nil, err
	}
	return &Result{Message: MessageOfflineTokenValid, Data: data, Offline: true}, nil
}

// forgetToken deletes the stored token when it is of the license (or username) the service refused.
func (c *Client) forgetToken(credentials Credentials) {
	stored := loadToken(c.stateDir)
	if stored == nil {
		return
	}
	claims, ok := peekClaims(stored.Token)
	sub, _ := stringMember(claims, "sub")
	refused := credentials.License != "" && (!ok || sub == credentials.License)
	if credentials.License == "" && stored.Username != "" && sameUser(stored.Username, credentials.Username) {
		refused = true
	}
	if refused {
		removeToken(c.stateDir)
	}
}
