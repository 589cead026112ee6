package licensing

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var background = context.Background()

func TestARequestCarriesItsBodysDigestAFreshNonceAndAsksForNoContentCoding(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(fakeRequest) fakeAnswer { return licenseAnswer(nil) }
	client := f.client(t, Options{})
	for i := 0; i < 2; i++ {
		if _, err := client.Check(background, Credentials{License: "KEY-1", HWID: "pc"}); err != nil {
			t.Fatal(err)
		}
	}
	seen := f.seen()
	for _, request := range seen {
		if request.header.Get("Content-Digest") != contentDigest(request.body) || request.header.Get("Accept-Encoding") != "identity" {
			t.Fatalf("headers %v", request.header)
		}
		if request.fields["app_id"] != fakeAppID || request.fields["license"] != "KEY-1" || request.fields["hwid"] != "pc" || len(request.fields["nonce"].(string)) != 24 {
			t.Fatalf("body %s", request.body)
		}
	}
	if seen[0].fields["nonce"] == seen[1].fields["nonce"] {
		t.Fatal("a nonce was used twice")
	}
}

func TestARedirectIsTheUnsignedAnswerItIsAndIsNotFollowed(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(request fakeRequest) fakeAnswer {
		if request.path != "/auth" {
			return licenseAnswer(nil)
		}
		return fakeAnswer{status: 302, body: "moved", unsigned: true, header: map[string]string{"Location": "/elsewhere"}}
	}
	_, err := f.client(t, Options{}).Check(background, Credentials{License: "KEY-1"})
	if failure, ok := err.(*Error); !ok || failure.Code != CodeInvalidSignature || failure.Status != 302 {
		t.Fatalf("got %v", err)
	}
	if len(f.seen()) != 1 {
		t.Fatal("the redirect was followed")
	}
}

func TestASigned5xxIsRetriedOnceItVerifiesAndRejectedWhenItDoesNot(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(request fakeRequest) fakeAnswer {
		if len(f.seen()) == 1 {
			return fakeAnswer{status: 503, body: map[string]interface{}{"success": false, "message": "Internal server error"}, header: map[string]string{"Retry-After": "0"}}
		}
		return licenseAnswer(nil)
	}
	started := time.Now()
	if _, err := f.client(t, Options{}).Check(background, Credentials{License: "KEY-1"}); err != nil || len(f.seen()) != 2 {
		t.Fatalf("%v after %d attempts", err, len(f.seen()))
	}
	if waited := time.Since(started); waited > 200*time.Millisecond {
		t.Fatalf("a Retry-After of 0 waited %s", waited)
	}

	altered := newFakeService(t)
	// The service's signed 200, its status made a 503 on the way: retrying it would end in the offline path.
	altered.handle = func(fakeRequest) fakeAnswer {
		answer := licenseAnswer(nil)
		answer.status, answer.signedStatus = 503, 200
		return answer
	}
	_, err := altered.client(t, Options{StateDir: t.TempDir()}).Check(background, Credentials{License: "KEY-1"})
	if codeOf(err) != CodeInvalidSignature || len(altered.seen()) != 1 {
		t.Fatalf("%v after %d attempts", err, len(altered.seen()))
	}
}

func TestAnAnswerLargerThanAnyTheServiceMakesIsRejected(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(fakeRequest) fakeAnswer {
		return licenseAnswer(map[string]interface{}{"padding": strings.Repeat("x", maxAnswerBytes)})
	}
	if _, err := f.client(t, Options{}).Check(background, Credentials{License: "KEY-1"}); codeOf(err) != CodeInvalidSignature {
		t.Fatalf("got %v", err)
	}
}

func TestTheSignatureFieldsMustBeExactlyWhatTheServiceWrites(t *testing.T) {
	changes := map[string]func(fields map[string]string){
		"a second member in Signature":         func(h map[string]string) { h["Signature"] += ", sig2=:AAAA:" },
		"a parameter added to Signature-Input": func(h map[string]string) { h["Signature-Input"] += `;expires=9999999999` },
		"another key id": func(h map[string]string) {
			h["Signature-Input"] = strings.Replace(h["Signature-Input"], `keyid="`, `keyid="x`, 1)
		},
		"a created that is no integer": func(h map[string]string) {
			h["Signature-Input"] = strings.Replace(h["Signature-Input"], ";created=", ";created=-", 1)
		},
		"a digest of another algorithm": func(h map[string]string) {
			h["Content-Digest"] = strings.Replace(h["Content-Digest"], "sha-256", "sha-512", 1)
		},
		"a signature that is no byte sequence": func(h map[string]string) { h["Signature"] = strings.Trim(h["Signature"], ":") },
		"three padding characters":             func(h map[string]string) { h["Signature"] = strings.TrimSuffix(h["Signature"], ":") + "=:" },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			f := newFakeService(t)
			f.handle = func(request fakeRequest) fakeAnswer {
				answer := licenseAnswer(nil)
				answer.unsigned = true
				text := []byte(`{"data":{"key":"KEY-1","last_login":"2030-01-01T00:00:00.000Z","subscription_name":"Pro"},"message":"LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY","success":true}`)
				answer.header = f.signatureFields(200, text, request.fields["nonce"].(string), request.header.Get("Content-Digest"))
				change(answer.header)
				answer.body = json.RawMessage(text)
				return answer
			}
			if _, err := f.client(t, Options{}).Check(background, Credentials{License: "KEY-1"}); codeOf(err) != CodeInvalidSignature {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestUsageSendsOneAsTheDefaultAmountAndAUsageIDOfTheNonceAlphabet(t *testing.T) {
	f := newFakeService(t)
	f.handle = func(fakeRequest) fakeAnswer {
		return fakeAnswer{status: 200, body: map[string]interface{}{"success": true, "message": "USAGE_RECORDED", "data": map[string]interface{}{"counter": "exports", "used": 1}}}
	}
	if _, err := f.client(t, Options{}).RecordUsage(background, Credentials{License: "KEY-1"}, Usage{Counter: "exports"}); err != nil {
		t.Fatal(err)
	}
	sent := f.seen()[0].fields
	if sent["amount"] != float64(1) || sent["counter"] != "exports" || len(sent["usage_id"].(string)) != 24 || strings.ContainsAny(sent["usage_id"].(string), "+/=") {
		t.Fatalf("sent %v", sent)
	}
}
