package licensing

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// License files: a compact JWS (typ license+jwt) by the application's key
// carrying the offline token's claims, the license data ("data") and
// "air_gapped"; or, asked for encrypted, a compact JWE (dir, A256GCM) holding
// one, whose key is HKDF-SHA256 of the license key and the HWID, so that only
// that key on that device reads it. The checks and their codes are those of
// the TypeScript library, in the same order.

const (
	// CodeLicenseFileExpired: the license file is past its exp (Data: {expired_at}).
	CodeLicenseFileExpired = "LICENSE_FILE_EXPIRED"
	// CodeLicenseFileMismatch: the text is no license file of this application,
	// license, device or activation request, or is not valid yet.
	CodeLicenseFileMismatch = "LICENSE_FILE_MISMATCH"
	// CodeClockMovedBack: the computer clock is more than a day behind a time this
	// program has already seen, so a stored token or file is not trusted (Data: {latest_seen_at}).
	CodeClockMovedBack = "CLOCK_MOVED_BACK"
	// MessageLicenseFileValid is the Message of a Check answered from the stored
	// license file, and of LoadLicenseFile.
	MessageLicenseFileValid = "LICENSE_FILE_VALID"
)

// fileNotBeforeLeeway: the service's iat may be a little ahead of a computer's
// clock that is right; nbf (= iat) gets this leeway, exp none.
const fileNotBeforeLeeway = 60.0

// FileOptions are what a license file is asked for with.
type FileOptions struct {
	// Lifetime is the file's lifetime, whole seconds from an hour to ten years;
	// 0: the application's longest.
	Lifetime time.Duration
	// Encrypt asks for a file only this license key on this device can read.
	Encrypt bool
}

// ActivationRequest is what a device that cannot reach the service hands over.
type ActivationRequest struct {
	// Request is "lfr1." and the base64url of {app_id, license, hwid, nonce, lifetime_seconds?, encrypt?}.
	Request string
	// Link is "<portal>/activate/#<request>" for a QR code; "" without a portal URL.
	Link string
}

func mismatch(detail string) *Error { return &Error{Code: CodeLicenseFileMismatch, detail: detail} }

// fileKey is the key of an encrypted file: HKDF-SHA256(ikm = the license key, salt = the HWID, info = "license-file").
func fileKey(license, hwid string) ([]byte, error) {
	return hkdfSHA256([]byte(license), []byte(hwid), []byte("license-file"), 32)
}

// decryptFile gives the JWS inside a JWE made for this license and device; false when it does not decrypt or holds no license file.
func decryptFile(parts []string, license, hwid string) (string, bool) {
	header, ok := decodeObject(parts[0])
	if !ok || parts[1] != "" {
		return "", false
	}
	// Only what the service makes is read: compression or a critical extension is none of it.
	alg, _ := stringMember(header, "alg")
	enc, _ := stringMember(header, "enc")
	cty, _ := stringMember(header, "cty")
	_, zip := header["zip"]
	_, crit := header["crit"]
	if alg != "dir" || enc != "A256GCM" || cty != "license+jwt" || zip || crit {
		return "", false
	}
	iv, errIV := base64.RawURLEncoding.DecodeString(parts[2])
	ciphertext, errText := base64.RawURLEncoding.DecodeString(parts[3])
	tag, errTag := base64.RawURLEncoding.DecodeString(parts[4])
	key, errKey := fileKey(license, hwid)
	if errIV != nil || errText != nil || errTag != nil || errKey != nil || len(iv) != 12 || len(tag) != 16 {
		return "", false
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", false
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return "", false
	}
	// The additional data is the protected header as it is written in the file.
	plain, err := gcm.Open(nil, iv, append(ciphertext, tag...), []byte(parts[0]))
	if err != nil {
		return "", false
	}
	return string(plain), true
}

// openLicenseFile gives the claims of a license file, once decrypted (a JWE)
// with the key of this license and device and verified with the pinned key:
// LICENSE_FILE_MISMATCH for a text that is no license file or a JWE that does
// not decrypt, INVALID_SIGNATURE for a signature that does not verify.
func (c *Client) openLicenseFile(text, license, hwid string) (map[string]json.RawMessage, error) {
	compact := strings.TrimSpace(text)
	parts := strings.Split(compact, ".")
	jws := compact
	switch len(parts) {
	case 5:
		var ok bool
		if jws, ok = decryptFile(parts, license, hwid); !ok {
			return nil, mismatch("the encrypted license file does not decrypt with this license key and device")
		}
	case 3:
	default:
		return nil, mismatch("the text is no license file")
	}
	jwsParts := strings.Split(jws, ".")
	header, ok := decodeObject(jwsParts[0])
	if len(jwsParts) != 3 || !ok {
		return nil, mismatch("the text is no license file")
	}
	if kid, _ := stringMember(header, "kid"); kid != c.key.keyID {
		return nil, invalidSignature("the license file is signed with another key")
	}
	header, claims, err := verifyCompactJWS(jws, c.key)
	if err != nil {
		return nil, invalidSignature("the license file does not verify")
	}
	// Checked once the signature holds, so an offline token or another signed document passed as a file is a mismatch, not a forgery.
	if typ, _ := stringMember(header, "typ"); typ != "license+jwt" {
		return nil, mismatch("the signed text is not a license file")
	}
	return claims, nil
}

// fileExpectations are what a file's claims must say: nonce "" is any; now nil is not judged by a clock.
type fileExpectations struct {
	license, hwid, nonce string
	now                  *time.Time
}

// checkFileClaims holds the claims to this application, license, device and
// request (LICENSE_FILE_MISMATCH) and, judged by a clock, to nbf
// (LICENSE_FILE_MISMATCH: not valid yet) and exp (LICENSE_FILE_EXPIRED).
func (c *Client) checkFileClaims(claims map[string]json.RawMessage, expected fileExpectations) error {
	if iss, _ := stringMember(claims, "iss"); iss != c.appID {
		return mismatch("the license file is for another application")
	}
	if sub, ok := stringMember(claims, "sub"); !ok || sub != expected.license {
		return mismatch("the license file is for another license")
	}
	if !namesLicenseAndDevice(claims, "", expected.hwid, false) {
		return mismatch("the license file is for another device")
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(claims["data"], &data) != nil || data == nil {
		return mismatch("the license file holds no license data of its license")
	}
	if key, ok := stringMember(data, "key"); !ok || key != expected.license {
		return mismatch("the license file holds no license data of its license")
	}
	_, hasJTI := stringMember(claims, "jti")
	_, hasIAT := numberMember(claims, "iat")
	nbf, hasNBF := numberMember(claims, "nbf")
	exp, hasEXP := numberMember(claims, "exp")
	if !hasJTI || !hasIAT || !hasNBF || !hasEXP {
		return mismatch("the license file lacks its jti, iat, nbf or exp")
	}
	if expected.nonce != "" {
		if nonce, ok := stringMember(claims, "nonce"); !ok || nonce != expected.nonce {
			return mismatch("the license file was made for another request")
		}
	}
	if expected.now != nil {
		now := seconds(*expected.now)
		if now+fileNotBeforeLeeway < nbf {
			return mismatch("the license file is not valid yet")
		}
		if now >= exp {
			data, _ := json.Marshal(map[string]string{"expired_at": isoTime(exp)})
			return &Error{Code: CodeLicenseFileExpired, Data: data, detail: "the license file has expired"}
		}
	}
	return nil
}

func claimsResult(message string, claims map[string]json.RawMessage, offline bool) (*Result, error) {
	data, err := json.Marshal(claims)
	if err != nil {
		return nil, err
	}
	return &Result{Message: message, Data: data, Offline: offline}, nil
}

// LicenseFile checks out a license file for this device (POST /license-file,
// with all of a check's effects: first use, binding, on a floating license the
// seat borrowed for the file's lifetime), verifies it with this request's
// nonce, and keeps it in the StateDir as license.lic. Data is the service's:
// the license data and "license_file".
func (c *Client) LicenseFile(ctx context.Context, credentials Credentials, options FileOptions) (*Result, error) {
	if credentials.HWID == "" {
		return nil, errors.New("licensing: a license file is made for a device: Credentials.HWID is required")
	}
	fields := c.fields(credentials)
	if options.Lifetime != 0 {
		fields["lifetime_seconds"] = int64(options.Lifetime / time.Second)
	}
	if options.Encrypt {
		fields["encrypt"] = true
	}
	got, req, err := c.call(ctx, "/license-file", fields)
	if err != nil {
		return nil, err
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(got.data, &data)
	file, okFile := stringMember(data, "license_file")
	key, okKey := stringMember(data, "key")
	if !okFile || !okKey {
		return nil, invalidSignature("success without the license file asked for")
	}
	claims, err := c.openLicenseFile(file, key, credentials.HWID)
	if err == nil {
		err = c.checkFileClaims(claims, fileExpectations{license: key, hwid: credentials.HWID, nonce: req.nonce})
	}
	var failure *Error
	if errors.As(err, &failure) && failure.Code != CodeInvalidSignature {
		// Like a token in an answer: a file that is not this request's makes the answer no answer.
		return nil, invalidSignature("the license file in the answer: " + failure.detail)
	} else if err != nil {
		return nil, err
	}
	if c.stateDir != "" {
		if err := c.storeLicenseFile(file); err != nil {
			return nil, err
		}
		iat, _ := numberMember(claims, "iat")
		c.sawServiceTime(iat)
	}
	return &Result{Message: got.message, Data: got.data}, nil
}

// encodeCode is prefix and the base64url (no padding) of the fields' JSON: the activation request (lfr1.) and the return code (lfx1.).
func encodeCode(prefix string, fields interface{}) (string, error) {
	text, err := json.Marshal(fields)
	if err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(text), nil
}

// ActivationRequest makes the request of a device that cannot reach the
// service, with a fresh nonce kept in the StateDir until the file made from it
// is loaded (LoadLicenseFile). The owner's dashboard or the customer portal
// (portalURL, for the link) turns it into a license file.
func (c *Client) ActivationRequest(license, hwid string, options FileOptions, portalURL string) (*ActivationRequest, error) {
	if c.stateDir == "" {
		return nil, errors.New("licensing: an activation request needs a StateDir: that is where it is kept until its file arrives")
	}
	if license == "" || hwid == "" || len(hwid) > 256 {
		return nil, errors.New("licensing: license must be the license key and hwid 1 to 256 characters")
	}
	lifetime := int64(options.Lifetime / time.Second)
	if lifetime != 0 && (lifetime < 3600 || lifetime > 315360000 || options.Lifetime%time.Second != 0) {
		return nil, errors.New("licensing: Lifetime must be 0 (the application's longest) or whole seconds from 3600 to 315360000")
	}
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	nonce := base64.RawURLEncoding.EncodeToString(raw)
	request, err := encodeCode("lfr1.", struct {
		AppID    string `json:"app_id"`
		License  string `json:"license"`
		HWID     string `json:"hwid"`
		Nonce    string `json:"nonce"`
		Lifetime int64  `json:"lifetime_seconds,omitempty"`
		Encrypt  bool   `json:"encrypt,omitempty"`
	}{c.appID, license, hwid, nonce, lifetime, options.Encrypt})
	if err != nil {
		return nil, err
	}
	if err := c.keepRequest(pendingRequest{License: license, HWID: hwid, Nonce: nonce}); err != nil {
		return nil, err
	}
	made := &ActivationRequest{Request: request}
	if portalURL != "" {
		made.Link = strings.TrimRight(portalURL, "/") + "/activate/#" + request
	}
	return made, nil
}

// LoadLicenseFile accepts a license file made for one of this program's
// waiting activation requests (white space around it ignored) and keeps it in
// the StateDir, where Check finds it: it must decrypt (when encrypted) with the
// request's license key and device, verify with the pinned key, and name this
// application, that license and device, the request's nonce (a file made from
// a request) and a time within nbf and exp. Data is the file's claims.
func (c *Client) LoadLicenseFile(text string) (*Result, error) {
	if c.stateDir == "" {
		return nil, errors.New("licensing: loading a license file needs a StateDir")
	}
	c.stateMu.Lock()
	pending := c.pendingRequests()
	c.stateMu.Unlock()
	if len(pending) == 0 {
		return nil, mismatch("no activation request of this program is waiting for a license file")
	}
	now := c.now()
	if err := c.judgeClock(now); err != nil {
		return nil, err
	}
	var failure error
	// The newest request first; another request's mismatch says less about this file than the right request's refusal.
	for i := len(pending) - 1; i >= 0; i-- {
		request := pending[i]
		claims, err := c.openLicenseFile(text, request.License, request.HWID)
		if err == nil {
			expected := fileExpectations{license: request.License, hwid: request.HWID, now: &now}
			if airGapped := claims["air_gapped"]; string(airGapped) == "true" {
				expected.nonce = request.Nonce
			}
			err = c.checkFileClaims(claims, expected)
		}
		if err == nil {
			if err := c.storeLicenseFile(text); err != nil {
				return nil, err
			}
			if err := c.forgetRequests(request.License, request.HWID); err != nil {
				return nil, err
			}
			return claimsResult(MessageLicenseFileValid, claims, true)
		}
		var known *Error
		if !errors.As(err, &known) {
			return nil, err
		}
		var previous *Error
		if failure == nil || (errors.As(failure, &previous) && previous.Code == CodeLicenseFileMismatch) {
			failure = err
		}
	}
	return nil, failure
}

// storedFile is the stored license file when it is about these credentials
// and this device, its signature verified; "" when there is none, or it is
// another license's or device's. An encrypted file is read only by a check
// that names the license key and the device, which its key is made of.
func (c *Client) storedFile(credentials Credentials) (string, map[string]json.RawMessage, error) {
	text := c.storedLicenseFile()
	if text == "" || credentials.HWID == "" {
		return "", nil, nil
	}
	license := credentials.License
	if license == "" {
		peeked, _ := peekClaims(text)
		license, _ = stringMember(peeked, "sub")
	}
	if license == "" {
		return "", nil, nil
	}
	claims, err := c.openLicenseFile(text, license, credentials.HWID)
	var failure *Error
	if errors.As(err, &failure) && failure.Code == CodeLicenseFileMismatch {
		return "", nil, nil
	} else if err != nil {
		return "", nil, err
	}
	asked := false
	if credentials.License != "" {
		sub, _ := stringMember(claims, "sub")
		asked = sub == credentials.License
	} else {
		var data map[string]json.RawMessage
		_ = json.Unmarshal(claims["data"], &data)
		username, ok := stringMember(data, "username")
		asked = ok && credentials.Username != "" && sameUser(username, credentials.Username)
	}
	if !asked || !namesLicenseAndDevice(claims, "", credentials.HWID, false) {
		return "", nil, nil
	}
	return text, claims, nil
}

// fromLicenseFile answers a Check from the stored license file; nil, nil when none is for these credentials.
func (c *Client) fromLicenseFile(credentials Credentials) (*Result, error) {
	text, claims, err := c.storedFile(credentials)
	if err != nil || text == "" {
		return nil, err
	}
	now := c.now()
	if err := c.judgeClock(now); err != nil {
		return nil, err
	}
	sub, _ := stringMember(claims, "sub")
	if err := c.checkFileClaims(claims, fileExpectations{license: sub, hwid: credentials.HWID, now: &now}); err != nil {
		return nil, err
	}
	return claimsResult(MessageLicenseFileValid, claims, true)
}

// forgetLicenseFile deletes the stored file when it is of the license (or username) the service refused.
func (c *Client) forgetLicenseFile(credentials Credentials) {
	if text, _, err := c.storedFile(credentials); err == nil && text != "" {
		c.dropLicenseFile(text)
	}
}

// returnable is the stored file of this license and device, verified, and its return code.
func (c *Client) returnable(license, hwid string) (string, string, error) {
	if c.stateDir == "" {
		return "", "", errors.New("licensing: returning a license file needs a StateDir")
	}
	text := c.storedLicenseFile()
	if text == "" {
		return "", "", mismatch("no license file is stored")
	}
	claims, err := c.openLicenseFile(text, license, hwid)
	if err == nil {
		err = c.checkFileClaims(claims, fileExpectations{license: license, hwid: hwid})
	}
	if err != nil {
		return "", "", err
	}
	jti, _ := stringMember(claims, "jti")
	code, err := encodeCode("lfx1.", struct {
		AppID   string `json:"app_id"`
		License string `json:"license"`
		HWID    string `json:"hwid"`
		JTI     string `json:"jti"`
	}{c.appID, license, hwid, jti})
	return text, code, err
}

// ReturnCode deletes the stored license file of this license and device and
// gives its return code, "lfx1." and the base64url of {app_id, license, hwid,
// jti}, which the owner's dashboard or the customer portal takes to free the
// device (under the license's reset rules). The file itself stays valid until
// its exp: the code only tells the service this program no longer uses it.
func (c *Client) ReturnCode(license, hwid string) (string, error) {
	text, code, err := c.returnable(license, hwid)
	if err != nil {
		return "", err
	}
	c.dropLicenseFile(text)
	return code, nil
}

// ReturnLicenseFile returns the stored license file online (POST
// /license-file/return, LICENSE_FILE_RETURNED, Data the license data after it)
// and deletes it once the service took it back; a refusal keeps it.
func (c *Client) ReturnLicenseFile(ctx context.Context, license, hwid string) (*Result, error) {
	text, code, err := c.returnable(license, hwid)
	if err != nil {
		return nil, err
	}
	req, err := newRequest("/license-file/return", map[string]interface{}{"app_id": c.appID, "request": code})
	if err != nil {
		return nil, err
	}
	req.license = license
	got, err := c.post(ctx, req)
	if err != nil {
		return nil, err
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(got.data, &data)
	if key, ok := stringMember(data, "key"); !ok || key != license {
		return nil, invalidSignature("the answer is about another license")
	}
	c.dropLicenseFile(text)
	return &Result{Message: got.message, Data: got.data}, nil
}

// StartTrial asks for this device's trial (POST /trial): TRIAL_STARTED or, for
// a device whose trial runs, TRIAL_RESUMED, with the trial license's data and
// its key in Data's "license" (TrialData), which the program keeps and checks
// with from then on. A trial that ended, was bought or cannot start is an
// *Error: TRIAL_EXPIRED, TRIAL_CONVERTED, TRIAL_LIMIT_REACHED, TRIALS_DISABLED.
func (c *Client) StartTrial(ctx context.Context, hwid string) (*Result, error) {
	if hwid == "" {
		return nil, errors.New("licensing: a trial is for a device: hwid is required")
	}
	got, _, err := c.call(ctx, "/trial", map[string]interface{}{"app_id": c.appID, "hwid": hwid})
	if err != nil {
		return nil, err
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(got.data, &data)
	license, ok := stringMember(data, "license")
	if !ok || license == "" {
		return nil, invalidSignature("the trial answer names no license of its own")
	}
	if _, present := data["key"]; present {
		if key, ok := stringMember(data, "key"); !ok || key != license {
			return nil, invalidSignature("the trial answer names no license of its own")
		}
	}
	return &Result{Message: got.message, Data: got.data}, nil
}

// TrialData is the data of StartTrial: the trial license's data and its key.
type TrialData struct {
	LicenseData
	License string `json:"license"`
}
