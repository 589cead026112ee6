package licensing

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
)

// hkdfSHA256 is HKDF (RFC 5869) with HMAC-SHA-256: the key of an encrypted
// license file is derived with it. Go 1.19's standard library has no HKDF (it
// came with crypto/hkdf in Go 1.24, and golang.org/x/crypto is no standard
// library), so it is written here over crypto/hmac, in the RFC's two steps,
// and tested with the RFC's own SHA-256 test vectors.
func hkdfSHA256(ikm, salt, info []byte, length int) ([]byte, error) {
	if length < 0 || length > 255*sha256.Size {
		return nil, errors.New("licensing: HKDF-SHA256 gives at most 8160 bytes")
	}
	// Extract: PRK = HMAC-Hash(salt, IKM). No salt is to be HashLen zero bytes,
	// which HMAC makes of an empty key anyway (it pads keys with zeros).
	extract := hmac.New(sha256.New, salt)
	extract.Write(ikm)
	prk := extract.Sum(nil)

	// Expand: T(i) = HMAC-Hash(PRK, T(i-1) | info | i), OKM = the first length bytes of T(1) | T(2) | ...
	expand := hmac.New(sha256.New, prk)
	okm := make([]byte, 0, length+sha256.Size)
	var previous []byte
	for counter := byte(1); len(okm) < length; counter++ {
		expand.Reset()
		expand.Write(previous)
		expand.Write(info)
		expand.Write([]byte{counter})
		previous = expand.Sum(nil)
		okm = append(okm, previous...)
	}
	return okm[:length], nil
}
