package licensing

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
)

// pinnedKey is the application's public key as shipped in the program: never
// fetched at run time, so nobody between the program and the service can
// substitute one.
type pinnedKey struct {
	key ed25519.PublicKey
	// keyID is the RFC 7638 thumbprint of the key: the keyid every answer must name.
	keyID string
}

// parsePublicKey takes the `public_key_pem` (SPKI PEM) or the `jwk` (as JSON
// text) that POST /app/signing-key answers.
func parsePublicKey(text string) (*pinnedKey, error) {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "{") {
		var jwk struct {
			Kty string  `json:"kty"`
			Crv string  `json:"crv"`
			X   string  `json:"x"`
			Kid *string `json:"kid"`
		}
		if err := json.Unmarshal([]byte(trimmed), &jwk); err != nil {
			return nil, errors.New("licensing: PublicKey is neither a PEM public key nor a JWK")
		}
		if jwk.Kty != "OKP" || jwk.Crv != "Ed25519" {
			return nil, errors.New("licensing: PublicKey is no Ed25519 JWK ({kty: OKP, crv: Ed25519, x})")
		}
		x, err := base64.RawURLEncoding.DecodeString(jwk.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("licensing: the JWK's x is not a 32-byte Ed25519 key")
		}
		pinned := newPinnedKey(x)
		if jwk.Kid != nil && *jwk.Kid != pinned.keyID {
			return nil, errors.New("licensing: the JWK kid is not the thumbprint of its key")
		}
		return pinned, nil
	}
	block, rest := pem.Decode([]byte(trimmed))
	if block == nil || block.Type != "PUBLIC KEY" || len(strings.TrimSpace(string(rest))) != 0 {
		return nil, errors.New("licensing: PublicKey is neither a PEM public key nor a JWK")
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, errors.New("licensing: PublicKey is neither a PEM public key nor a JWK")
	}
	key, ok := parsed.(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("licensing: PublicKey is no Ed25519 public key")
	}
	return newPinnedKey(key), nil
}

func newPinnedKey(raw []byte) *pinnedKey {
	x := base64.RawURLEncoding.EncodeToString(raw)
	// RFC 7638: the required members in lexicographic order, no white space.
	thumbprint := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + x + `"}`))
	return &pinnedKey{key: ed25519.PublicKey(raw), keyID: base64.RawURLEncoding.EncodeToString(thumbprint[:])}
}
