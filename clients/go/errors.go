package licensing

import (
	"encoding/json"
	"fmt"
)

// Codes the library gives a failure itself, beside the service's own messages
// (LICENSE_NOT_FOUND, LICENSE_EXPIRED, HWID_MISMATCH, SEATS_EXHAUSTED, ...; every
// one is in the repository's docs/client-api.md).
const (
	// CodeInvalidSignature: the answer, or the stored offline token, did not
	// verify against the pinned key for this very request. Never a success, and
	// never a reason to fall back on the stored token.
	CodeInvalidSignature = "INVALID_SIGNATURE"
	// CodeNetworkError: no usable answer within the timeout (network errors, and
	// the unsigned 429 and 5xx a gateway makes, are retried until then).
	CodeNetworkError = "NETWORK_ERROR"
	// CodeOfflineTokenExpired: the service could not be reached and the stored
	// token for this license and device is past its exp.
	CodeOfflineTokenExpired = "OFFLINE_TOKEN_EXPIRED"
	// CodeLicenseNotFloating is the service's refusal of /release and borrowing
	// on a license without leases, and what StartHeartbeat fails with when the
	// service's success holds no lease.
	CodeLicenseNotFloating = "LICENSE_NOT_FLOATING"
)

// Error is every failure of a licensing call: a refusal by the service (Code is
// its message, Data what it sent with it, Status the HTTP status), or one of the
// library's own codes above. Use errors.As to reach it.
type Error struct {
	// Code is the service's message (a 400's is its sentence, e.g. "Invalid nonce"),
	// or INVALID_SIGNATURE, NETWORK_ERROR, OFFLINE_TOKEN_EXPIRED, LICENSE_FILE_MISMATCH,
	// LICENSE_FILE_EXPIRED, CLOCK_MOVED_BACK.
	Code string
	// Data is what the service sent with a refusal, e.g. {max_devices, next_seat_at}
	// with SEATS_EXHAUSTED; nil when it sent none.
	Data json.RawMessage
	// Status is the HTTP status of the answer, 0 when there was none.
	Status int
	detail string
	cause  error
}

func (e *Error) Error() string {
	if e.detail == "" {
		return "licensing: " + e.Code
	}
	return fmt.Sprintf("licensing: %s: %s", e.Code, e.detail)
}

// Unwrap gives the cause of a NETWORK_ERROR (a net.Error, context.Canceled, ...).
func (e *Error) Unwrap() error { return e.cause }

func invalidSignature(detail string) *Error {
	return &Error{Code: CodeInvalidSignature, detail: detail}
}
