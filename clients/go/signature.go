package licensing

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// contentDigest is the RFC 9530 Content-Digest (sha-256) of a body, written as
// RFC 8941 writes a one-member dictionary.
func contentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// signedComponents is what every answer must be signed over: its status, its
// body's digest, and the digest of the request it answers (so that a relaying
// proxy that sent another body cannot hand over the answer to its own request).
const signedComponents = `("@status" "content-digest" "content-digest";req)`

// rawAnswer is an answer as it came off the wire.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// onlyValue is the single value of a header field; ok is false when the field
// is missing or repeated (a second Signature or Signature-Input would be a
// second member the service never sends).
func onlyValue(header http.Header, name string) (value string, ok bool) {
	values := header.Values(name)
	if len(values) != 1 {
		return "", false
	}
	return strings.Trim(values[0], " \t"), true
}

func hasSignatureFields(header http.Header) bool {
	return len(header.Values("Content-Digest")) > 0 || len(header.Values("Signature-Input")) > 0 || len(header.Values("Signature")) > 0
}

// verifyAnswer fails with INVALID_SIGNATURE unless the answer is signed by the
// pinned key, over this body and status, for the request whose digest and nonce
// are given.
//
// The header fields are not parsed: the service writes each structured field in
// its one RFC 8941 serialisation, so each field is required to be exactly the
// text of what this request must get back, with only `created` and the
// signature's bytes unknown. Anything else, an extra member or parameter
// included, is refused; that is stricter than a parser, and needs none.
//
// `created` is not held against the computer's clock: an answer carrying this
// call's fresh random nonce was made after the call began, and a user whose
// clock is wrong must not be locked out by it.
func verifyAnswer(answer rawAnswer, pinned *pinnedKey, nonce, requestDigest string) error {
	digest, hasDigest := onlyValue(answer.header, "Content-Digest")
	input, hasInput := onlyValue(answer.header, "Signature-Input")
	signature, hasSignature := onlyValue(answer.header, "Signature")
	if !hasDigest || !hasInput || !hasSignature {
		return invalidSignature("the answer is not signed")
	}
	if digest != contentDigest(answer.body) {
		return invalidSignature("the body does not match Content-Digest")
	}

	paramsAfterCreated := `;keyid="` + pinned.keyID + `";alg="ed25519";nonce="` + nonce + `"`
	head := "sig1=" + signedComponents + ";created="
	created := ""
	if strings.HasPrefix(input, head) && strings.HasSuffix(input, paramsAfterCreated) && len(input) > len(head)+len(paramsAfterCreated) {
		created = input[len(head) : len(input)-len(paramsAfterCreated)]
	}
	if !isDigits(created, 12) {
		return invalidSignature("Signature-Input is not for this request, nonce and key")
	}

	encoded := ""
	if strings.HasPrefix(signature, "sig1=:") && strings.HasSuffix(signature, ":") && len(signature) > len("sig1=::") {
		encoded = signature[len("sig1=:") : len(signature)-1]
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(encoded, "="))
	if encoded == "" || err != nil || len(encoded)-len(strings.TrimRight(encoded, "=")) > 2 {
		return invalidSignature("Signature holds no sig1")
	}

	// RFC 9421 section 2.5: one line per component, then the parameters, no newline at the end.
	base := strings.Join([]string{
		`"@status": ` + strconv.Itoa(answer.status),
		`"content-digest": ` + digest,
		`"content-digest";req: ` + requestDigest,
		`"@signature-params": ` + signedComponents + ";created=" + created + paramsAfterCreated,
	}, "\n")
	if !ed25519.Verify(pinned.key, []byte(base), raw) {
		return invalidSignature("the signature does not verify")
	}
	return nil
}

// isDigits says whether text is 1 to most ASCII digits.
func isDigits(text string, most int) bool {
	if text == "" || len(text) > most {
		return false
	}
	for _, c := range text {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
