package licensing

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const fakeAppID = "6f1c2a8e-0d4b-4a4f-9c3e-2b7d5e8f1a90"

// fakeService is an in-process stand-in for the service that signs its answers
// as the service does, for what the real one cannot be made to do on cue (a
// two-second lease, a redirect, a signed 503). handle answers each request.
type fakeService struct {
	t       *testing.T
	private ed25519.PrivateKey
	jwk     string
	keyID   string
	server  *httptest.Server

	mu       sync.Mutex
	requests []fakeRequest
	handle   func(request fakeRequest) fakeAnswer
}

type fakeRequest struct {
	path   string
	header http.Header
	body   []byte
	fields map[string]interface{}
}

type fakeAnswer struct {
	status int
	body   interface{}
	// unsigned leaves the signature fields out; header adds or replaces fields after signing.
	unsigned bool
	header   map[string]string
	// signedStatus signs another status than the one sent.
	signedStatus int
}

func newFakeService(t *testing.T) *fakeService {
	public, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pinned := newPinnedKey(public)
	f := &fakeService{
		t:       t,
		private: private,
		jwk:     `{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(public) + `"}`,
		keyID:   pinned.keyID,
	}
	f.server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.server.Close)
	return f
}

func (f *fakeService) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	request := fakeRequest{path: r.URL.Path, header: r.Header, body: body}
	_ = json.Unmarshal(body, &request.fields)
	f.mu.Lock()
	f.requests = append(f.requests, request)
	handle := f.handle
	f.mu.Unlock()
	answer := handle(request)
	text, err := json.Marshal(answer.body)
	if err != nil {
		f.t.Error(err)
	}
	if !answer.unsigned {
		nonce, _ := request.fields["nonce"].(string)
		status := answer.status
		if answer.signedStatus != 0 {
			status = answer.signedStatus
		}
		for name, value := range f.signatureFields(status, text, nonce, r.Header.Get("Content-Digest")) {
			w.Header().Set(name, value)
		}
	}
	for name, value := range answer.header {
		w.Header().Set(name, value)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(answer.status)
	_, _ = w.Write(text)
}

// signatureFields are the three fields the service adds to an answer.
func (f *fakeService) signatureFields(status int, body []byte, nonce, requestDigest string) map[string]string {
	params := `("@status" "content-digest" "content-digest";req);created=` + strconv.FormatInt(time.Now().Unix(), 10) + `;keyid="` + f.keyID + `";alg="ed25519";nonce="` + nonce + `"`
	digest := contentDigest(body)
	base := strings.Join([]string{`"@status": ` + strconv.Itoa(status), `"content-digest": ` + digest, `"content-digest";req: ` + requestDigest, `"@signature-params": ` + params}, "\n")
	return map[string]string{
		"Content-Digest":  digest,
		"Signature-Input": "sig1=" + params,
		"Signature":       "sig1=:" + base64.StdEncoding.EncodeToString(ed25519.Sign(f.private, []byte(base))) + ":",
	}
}

// token is a compact JWS of these header and claims, signed with the service's key.
func (f *fakeService) token(header, claims map[string]interface{}) string {
	encode := func(value interface{}) string {
		text, err := json.Marshal(value)
		if err != nil {
			f.t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(text)
	}
	input := encode(header) + "." + encode(claims)
	return input + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(f.private, []byte(input)))
}

func (f *fakeService) seen() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

func (f *fakeService) client(t *testing.T, options Options) *Client {
	options.URL, options.AppID, options.PublicKey = f.server.URL, fakeAppID, f.jwk
	client, err := NewClient(options)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func licenseAnswer(fields map[string]interface{}) fakeAnswer {
	data := map[string]interface{}{"key": "KEY-1", "last_login": time.Now().UTC().Format(time.RFC3339Nano), "subscription_name": "Pro"}
	for name, value := range fields {
		data[name] = value
	}
	return fakeAnswer{status: 200, body: map[string]interface{}{"success": true, "message": "LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY", "data": data}}
}

func codeOf(err error) string {
	if failure, ok := err.(*Error); ok {
		return failure.Code
	}
	return ""
}
