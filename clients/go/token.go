package licensing

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// TokenClaims are the claims of an offline token (the repository's
// docs/verifying-answers.md#offline-tokens): what a Check answered from the
// stored token gives as Data (which also holds "key", the license key, as
// online data does).
type TokenClaims struct {
	// Iss is the application's id.
	Iss string `json:"iss"`
	// Sub is the license key.
	Sub               string   `json:"sub"`
	HWID              *string  `json:"hwid"`
	HWIDs             []string `json:"hwids"`
	SubscriptionName  string   `json:"subscription_name"`
	SubscriptionLevel int      `json:"subscription_level"`
	// ExpiresAt is the license's own expiry (null for a license that never expires).
	ExpiresAt *string  `json:"expires_at"`
	Features  []string `json:"features,omitempty"`
	IssuedAt  int64    `json:"iat"`
	NotBefore int64    `json:"nbf"`
	// Expiry is when the token stops being accepted, in seconds since the epoch.
	Expiry int64  `json:"exp"`
	ID     string `json:"jti"`
	Nonce  string `json:"nonce,omitempty"`
	// Borrowed is set on the token of a borrowed floating seat: Expiry is the borrow's end.
	Borrowed bool `json:"borrowed,omitempty"`
}

// tokenExpectations are what a token must say to count for this program.
type tokenExpectations struct {
	appID string
	// license and hwid are checked when not empty: a token without an HWID
	// lock names no device, and any device may use it.
	license string
	hwid    string
	// nonce is checked when not empty: the nonce of the request that brought the token.
	nonce string
	// now is the time nbf and exp are judged by; nil judges a token that has
	// just come with its request's nonce at its own iat: it is fresh, and the
	// computer's clock being wrong must not refuse it.
	now *time.Time
	// notBeforeLeeway is how far past now nbf may be.
	notBeforeLeeway time.Duration
}

// storedTokenLeeway: a token is issued at the service's time (nbf = iat, in
// whole seconds), so a client clock a little behind it must not refuse a
// token it has just been given; exp gets no such leeway.
const storedTokenLeeway = time.Minute

// verifyToken returns the token's claims (as the JSON object it holds) once its
// EdDSA signature by the pinned key, typ, issuer, nbf and exp check out, then
// its nonce, license and device: OFFLINE_TOKEN_EXPIRED past exp,
// INVALID_SIGNATURE for anything else. The checks and their order are those of
// the TypeScript library (jose's jwtVerify, then the nonce, then the names).
func verifyToken(token string, pinned *pinnedKey, expected tokenExpectations) (map[string]json.RawMessage, error) {
	header, claims, err := verifyCompactJWS(token, pinned)
	if err != nil {
		return nil, err
	}
	if typ, ok := stringMember(header, "typ"); !ok || normalizeTyp(typ) != "application/jwt" {
		return nil, invalidSignature("the offline token's typ is not JWT")
	}
	for _, required := range []string{"iss", "sub", "exp", "nbf", "iat"} {
		if _, ok := claims[required]; !ok {
			return nil, invalidSignature("the offline token has no " + required)
		}
	}
	if iss, ok := stringMember(claims, "iss"); !ok || iss != expected.appID {
		return nil, invalidSignature("the offline token is of another application")
	}
	iat, iatOK := numberMember(claims, "iat")
	if !iatOK {
		return nil, invalidSignature("the offline token's iat is no number")
	}
	now := math.Floor(iat)
	if expected.now != nil {
		now = float64(expected.now.Unix())
	}
	if nbf, ok := numberMember(claims, "nbf"); !ok || nbf > now+expected.notBeforeLeeway.Seconds() {
		return nil, invalidSignature("the offline token is not valid yet")
	}
	if exp, ok := numberMember(claims, "exp"); !ok {
		return nil, invalidSignature("the offline token's exp is no number")
	} else if exp <= now {
		return nil, &Error{Code: CodeOfflineTokenExpired, detail: "the offline token has expired"}
	}
	if expected.nonce != "" {
		if nonce, ok := stringMember(claims, "nonce"); !ok || nonce != expected.nonce {
			return nil, invalidSignature("the offline token is for another request")
		}
	}
	if !namesLicenseAndDevice(claims, expected.license, expected.hwid, false) {
		return nil, invalidSignature("the offline token is for another license or device")
	}
	return claims, nil
}

// verifyCompactJWS checks a compact JWS's EdDSA signature by the pinned key and
// returns its protected header and its payload, a JSON object.
func verifyCompactJWS(token string, pinned *pinnedKey) (header, payload map[string]json.RawMessage, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, nil, invalidSignature("the token is no compact JWS")
	}
	header, ok := decodeObject(parts[0])
	if !ok {
		return nil, nil, invalidSignature("the token's header is no JSON object")
	}
	// A critical extension would change what the signature means, and the service sets none.
	if _, critical := header["crit"]; critical {
		return nil, nil, invalidSignature("the token names critical extensions")
	}
	if alg, ok := stringMember(header, "alg"); !ok || alg != "EdDSA" {
		return nil, nil, invalidSignature("the token is not signed with EdDSA")
	}
	signature, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(pinned.key, []byte(parts[0]+"."+parts[1]), signature) {
		return nil, nil, invalidSignature("the token's signature does not verify")
	}
	payload, ok = decodeObject(parts[1])
	if !ok {
		return nil, nil, invalidSignature("the token's payload is no JSON object")
	}
	return header, payload, nil
}

func decodeObject(part string) (map[string]json.RawMessage, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil || !utf8.Valid(raw) {
		return nil, false
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(raw, &object); err != nil || object == nil {
		return nil, false
	}
	return object, true
}

// normalizeTyp compares media types as JOSE libraries do: case-insensitively,
// with "application/" implied when no "/" is given.
func normalizeTyp(typ string) string {
	lower := strings.ToLower(typ)
	if strings.Contains(typ, "/") {
		return lower
	}
	return "application/" + lower
}

func stringMember(object map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := object[name]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var value string
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", false
	}
	return value, true
}

func numberMember(object map[string]json.RawMessage, name string) (float64, bool) {
	raw, ok := object[name]
	if !ok {
		return 0, false
	}
	var value float64
	if err := json.Unmarshal(raw, &value); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return 0, false
	}
	return value, true
}

// namesLicenseAndDevice says whether a token is about this license and device.
// A token of a license without an HWID lock names no device (hwid null, hwids
// empty), and any device may use that license. A missing hwid claim counts as
// null only where absentHWIDIsNull says so (the look at a stored token before
// verifying it); in a verified token it names no device that could match.
func namesLicenseAndDevice(claims map[string]json.RawMessage, license, hwid string, absentHWIDIsNull bool) bool {
	if license != "" {
		if sub, ok := stringMember(claims, "sub"); !ok || sub != license {
			return false
		}
	}
	if hwid == "" {
		return true
	}
	named, matched := 0, false
	consider := func(raw json.RawMessage) {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return
		}
		named++
		var device string
		if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &device) == nil && device == hwid {
			matched = true
		}
	}
	if raw, ok := claims["hwid"]; ok {
		consider(raw)
	} else if !absentHWIDIsNull {
		named++
	}
	var list []json.RawMessage
	if raw, ok := claims["hwids"]; ok && json.Unmarshal(raw, &list) == nil {
		for _, device := range list {
			consider(device)
		}
	}
	return named == 0 || matched
}

// peekClaims decodes a token's payload without verifying it, to tell a token
// of another license or device (no answer to this check) from a bad one.
func peekClaims(token string) (map[string]json.RawMessage, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
	return decodeObject(parts[1])
}

// storedToken is what the token file holds: the last token, and the username
// it was got with (a token names only the license).
type storedToken struct {
	Token    string `json:"token"`
	Username string `json:"username,omitempty"`
}

const tokenFileName = "offline-token.json"

// storeToken replaces the token file whole (replaceFile).
func storeToken(dir string, stored storedToken) error {
	text, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	return replaceFile(dir, tokenFileName, text)
}

// loadToken is the stored token; nil when there is none or the file holds something else.
func loadToken(dir string) *storedToken {
	text, err := os.ReadFile(filepath.Join(dir, tokenFileName))
	if err != nil {
		return nil
	}
	var stored storedToken
	if json.Unmarshal(text, &stored) != nil || stored.Token == "" {
		return nil
	}
	return &stored
}

func removeToken(dir string) {
	os.Remove(filepath.Join(dir, tokenFileName))
}

// sameUser compares usernames as the service does, trimmed and in any case.
// The service also brings both to Unicode NFC first, which Go's standard
// library cannot: a name typed in another normal form than at the last online
// check finds no stored token, and the check stays the NETWORK_ERROR it was.
func sameUser(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
