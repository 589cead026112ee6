package licensing

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"
)

func TestOfflineTokensAreCheckedAsTheTypeScriptLibraryChecksThem(t *testing.T) {
	f := newFakeService(t)
	pinned, err := parsePublicKey(f.jwk)
	if err != nil {
		t.Fatal(err)
	}
	const iat = 1790000000
	// changed is a copy of base with the changes made: a nil value removes the member.
	changed := func(base, changes map[string]interface{}) map[string]interface{} {
		out := map[string]interface{}{}
		for name, value := range base {
			out[name] = value
		}
		for name, value := range changes {
			if value == nil {
				delete(out, name)
			} else {
				out[name] = value
			}
		}
		return out
	}
	header := func(changes map[string]interface{}) map[string]interface{} {
		return changed(map[string]interface{}{"alg": "EdDSA", "typ": "JWT", "kid": f.keyID}, changes)
	}
	claims := func(changes map[string]interface{}) map[string]interface{} {
		return changed(map[string]interface{}{
			"iss": fakeAppID, "sub": "KEY-1", "hwid": "pc-1", "hwids": []string{"pc-1", "pc-2"}, "subscription_name": "Pro", "subscription_level": 1,
			"expires_at": nil, "iat": iat, "nbf": iat, "exp": iat + 3600, "jti": "j", "nonce": "nonce-0001",
		}, changes)
	}
	at := func(seconds int64) *time.Time { moment := time.Unix(seconds, 0); return &moment }
	expect := tokenExpectations{appID: fakeAppID, license: "KEY-1", hwid: "pc-2", nonce: "nonce-0001", now: at(iat + 60)}
	with := func(change func(*tokenExpectations)) tokenExpectations {
		changed := expect
		change(&changed)
		return changed
	}
	good := f.token(header(nil), claims(nil))
	parts := strings.Split(good, ".")
	tamperedPayload, _ := json.Marshal(claims(map[string]interface{}{"subscription_level": 99}))

	cases := []struct {
		name     string
		token    string
		expected tokenExpectations
		code     string
	}{
		{"a good token for the second of its devices", good, expect, ""},
		{"a fresh token judged at its own iat, whatever the clock", good, with(func(e *tokenExpectations) { e.now = nil }), ""},
		{"a token of a license without HWID lock, for any device", f.token(header(nil), claims(map[string]interface{}{"hwid": json.RawMessage("null"), "hwids": []string{}})), expect, ""},
		{"application/jwt as its typ", f.token(header(map[string]interface{}{"typ": "application/JWT"}), claims(nil)), expect, ""},
		{"expired", good, with(func(e *tokenExpectations) { e.now = at(iat + 3600) }), CodeOfflineTokenExpired},
		{"expired and for another request: expiry is judged first", good, with(func(e *tokenExpectations) { e.now, e.nonce = at(iat+3600), "other-nonce" }), CodeOfflineTokenExpired},
		{"not valid yet", good, with(func(e *tokenExpectations) { e.now = at(iat - 1) }), CodeInvalidSignature},
		{"of another application", good, with(func(e *tokenExpectations) { e.appID = "another" }), CodeInvalidSignature},
		{"of another license", good, with(func(e *tokenExpectations) { e.license = "KEY-2" }), CodeInvalidSignature},
		{"of another device", good, with(func(e *tokenExpectations) { e.hwid = "pc-3" }), CodeInvalidSignature},
		{"for another request", good, with(func(e *tokenExpectations) { e.nonce = "other-nonce" }), CodeInvalidSignature},
		{"without a hwid claim, for a device", f.token(header(nil), claims(map[string]interface{}{"hwid": nil, "hwids": []string{}})), expect, CodeInvalidSignature},
		{"its payload altered", parts[0] + "." + base64.RawURLEncoding.EncodeToString(tamperedPayload) + "." + parts[2], expect, CodeInvalidSignature},
		{"signed by another key", newFakeService(t).token(header(nil), claims(nil)), expect, CodeInvalidSignature},
		{"alg none", f.token(header(map[string]interface{}{"alg": "none"}), claims(nil)), expect, CodeInvalidSignature},
		{"alg HS256", f.token(header(map[string]interface{}{"alg": "HS256"}), claims(nil)), expect, CodeInvalidSignature},
		{"no typ", f.token(header(map[string]interface{}{"typ": nil}), claims(nil)), expect, CodeInvalidSignature},
		{"another typ", f.token(header(map[string]interface{}{"typ": "license+jwt"}), claims(nil)), expect, CodeInvalidSignature},
		{"a critical extension", f.token(header(map[string]interface{}{"crit": []string{"exp"}}), claims(nil)), expect, CodeInvalidSignature},
		{"no nbf", f.token(header(nil), claims(map[string]interface{}{"nbf": nil})), expect, CodeInvalidSignature},
		{"an exp that is no number", f.token(header(nil), claims(map[string]interface{}{"exp": "2100-01-01"})), expect, CodeInvalidSignature},
		{"a payload that is no object", f.token(header(nil), nil), expect, CodeInvalidSignature},
		{"two parts", parts[0] + "." + parts[1], expect, CodeInvalidSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := verifyToken(c.token, pinned, c.expected)
			if codeOf(err) != c.code || (c.code == "" && err != nil) {
				t.Fatalf("got %v, want %q", err, c.code)
			}
		})
	}
}

func TestThePinnedKeyIsTakenAsPEMOrJWKAndNamedByItsThumbprint(t *testing.T) {
	// The Ed25519 key of RFC 8037 appendix A, whose RFC 7638 thumbprint that appendix gives.
	const jwk = `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
	const spki = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"
	for _, text := range []string{jwk, spki, strings.Replace(jwk, `"}`, `","kid":"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"}`, 1)} {
		pinned, err := parsePublicKey(text)
		if err != nil || pinned.keyID != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
			t.Fatalf("%q: %v %+v", text, err, pinned)
		}
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecSPKI, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		strings.Replace(jwk, `"}`, `","kid":"another"}`, 1),
		strings.Replace(jwk, "Ed25519", "X25519", 1),
		`{"kty":"OKP","crv":"Ed25519","x":"AAAA"}`,
		spki + spki,
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: ecSPKI})),
		"not a key",
	} {
		if _, err := parsePublicKey(text); err == nil {
			t.Errorf("%q was taken", text)
		}
	}
}
