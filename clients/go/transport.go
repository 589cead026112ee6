package licensing

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxAnswerBytes bounds what is read of an answer: the service's are a few
// kilobytes, and a hostile proxy must not make the program hold gigabytes.
const maxAnswerBytes = 1 << 20

// backoff holds the first waits before a retry; later ones repeat the last,
// all within the call's timeout.
var backoff = []time.Duration{250 * time.Millisecond, time.Second, 4 * time.Second}

// request is one client-route request as sent: its exact body, that body's
// Content-Digest, and the nonce and license it carries.
type request struct {
	path    string
	body    []byte
	digest  string
	nonce   string
	license string
}

// answer is a verified success: the body's message and data.
type answer struct {
	message string
	data    json.RawMessage
}

// newRequest draws a fresh random nonce (so that no earlier answer can pass for
// this one's) and makes the body the request sends on every attempt.
func newRequest(path string, fields map[string]interface{}) (*request, error) {
	nonce, err := randomToken()
	if err != nil {
		return nil, err
	}
	fields["nonce"] = nonce
	body, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	license, _ := fields["license"].(string)
	return &request{path: path, body: body, digest: contentDigest(body), nonce: nonce, license: license}, nil
}

// randomToken is 18 random bytes in base64url: 24 characters of the alphabet
// the service takes for nonces and usage ids.
func randomToken() (string, error) {
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// post sends the request and returns its verified success, or an *Error.
// Network errors and the unsigned 429 and 5xx a gateway makes are retried with
// backoff until the timeout has passed since the call began, sending the same
// bytes again (every client route is safe to repeat); then NETWORK_ERROR. A
// signed 429 or 5xx is the service's own and is retried once it verifies; one
// that does not verify was altered on the way, and is INVALID_SIGNATURE like
// every other answer that does not verify.
func (c *Client) post(ctx context.Context, req *request) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var lastFailure error
	for attempt := 0; ; attempt++ {
		got, err := c.send(ctx, req)
		askedWait, asked := time.Duration(0), false
		var rejected *Error
		switch {
		case errors.As(err, &rejected):
			return nil, rejected
		case err != nil:
			lastFailure = err
		case got.status == http.StatusTooManyRequests || got.status >= 500:
			if hasSignatureFields(got.header) {
				if err := verifyAnswer(*got, c.key, req.nonce, req.digest); err != nil {
					return nil, withStatus(err, got.status)
				}
			}
			lastFailure = fmt.Errorf("HTTP %d", got.status)
			askedWait, asked = retryAfter(got.header)
		default:
			return settle(*got, c.key, req)
		}
		if !wait(ctx, attempt, askedWait, asked) {
			break
		}
	}
	if ctx.Err() != nil && !errors.Is(lastFailure, ctx.Err()) {
		lastFailure = fmt.Errorf("%w (last: %v)", ctx.Err(), lastFailure)
	}
	return nil, &Error{Code: CodeNetworkError, detail: fmt.Sprintf("no usable answer from the licensing service within %s", c.timeout), cause: lastFailure}
}

func (c *Client) send(ctx context.Context, req *request) (*rawAnswer, error) {
	httpRequest, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+req.path, bytes.NewReader(req.body))
	if err != nil {
		return nil, err
	}
	httpRequest.Header.Set("Content-Type", "application/json")
	httpRequest.Header.Set("Content-Digest", req.digest)
	// The digest is over the body as sent: no content coding may come between.
	httpRequest.Header.Set("Accept-Encoding", "identity")
	response, err := c.http.Do(httpRequest)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(io.LimitReader(response.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxAnswerBytes {
		return nil, withStatus(invalidSignature("the answer is larger than any the service makes"), response.StatusCode)
	}
	return &rawAnswer{status: response.StatusCode, header: response.Header, body: body}, nil
}

// settle turns an answer that is not retried into the verified success, or an *Error.
func settle(got rawAnswer, pinned *pinnedKey, req *request) (*answer, error) {
	if err := verifyAnswer(got, pinned, req.nonce, req.digest); err != nil {
		return nil, withStatus(err, got.status)
	}
	var parsed struct {
		Success json.RawMessage `json:"success"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(got.body, &parsed); err != nil {
		return nil, withStatus(invalidSignature("the signed answer is no JSON object"), got.status)
	}
	if parsed.Message == nil {
		return nil, withStatus(invalidSignature("the signed answer has no message"), got.status)
	}
	data := parsed.Data
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		data = nil
	}
	if string(parsed.Success) != "true" || got.status != http.StatusOK {
		return nil, &Error{Code: *parsed.Message, Data: data, Status: got.status}
	}
	// The request digest already ties the answer to this body; this keeps a
	// license's data from ever passing for another's.
	var object map[string]json.RawMessage
	if req.license != "" && json.Unmarshal(data, &object) == nil {
		if _, present := object["key"]; present {
			if key, ok := stringMember(object, "key"); !ok || key != req.license {
				return nil, withStatus(invalidSignature("the answer is about another license"), got.status)
			}
		}
	}
	return &answer{message: *parsed.Message, data: data}, nil
}

func withStatus(err error, status int) error {
	var licensingError *Error
	if errors.As(err, &licensingError) {
		licensingError.Status = status
	}
	return err
}

// wait sleeps before the next attempt, as long as the answer asked (its
// Retry-After), else by the backoff with jitter so that many programs that
// lost the service together do not come back in step; false when the wait
// would end past the deadline.
func wait(ctx context.Context, attempt int, asked time.Duration, hasAsked bool) bool {
	delay := asked
	if !hasAsked {
		planned := backoff[len(backoff)-1]
		if attempt < len(backoff) {
			planned = backoff[attempt]
		}
		delay = jittered(planned, 0.8, 1.2)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Now().Add(delay).After(deadline) {
		return false
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// retryAfter is a Retry-After given in seconds; ok is false when there is none.
func retryAfter(header http.Header) (wait time.Duration, ok bool) {
	value := strings.TrimSpace(header.Get("Retry-After"))
	if !isDigits(value, 9) {
		return 0, false
	}
	seconds, _ := strconv.Atoi(value)
	return time.Duration(seconds) * time.Second, true
}

// jittered is d times a random factor between low and high. The random numbers
// come from crypto/rand: Go 1.19's math/rand starts from the same seed in every
// process, which would put every program's retries back in step.
func jittered(d time.Duration, low, high float64) time.Duration {
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return time.Duration(float64(d) * (low + high) / 2)
	}
	fraction := float64(binary.BigEndian.Uint64(raw[:])>>11) / (1 << 53)
	return time.Duration(float64(d) * (low + fraction*(high-low)))
}
