package licensing

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The recorded answers every client library checks (clients/testdata/answers.json,
// its README gives the format): each case goes through the code a live answer or
// a stored token goes through, and must come out as the case says.
type recordedAnswers struct {
	AppID        string `json:"app_id"`
	PublicKeyPEM string `json:"public_key_pem"`

	Answers []struct {
		Name    string `json:"name"`
		Request struct {
			Path          string  `json:"path"`
			Body          string  `json:"body"`
			ContentDigest string  `json:"content_digest"`
			Nonce         string  `json:"nonce"`
			License       *string `json:"license"`
		} `json:"request"`
		Answer struct {
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
			Body    string            `json:"body"`
		} `json:"answer"`
		Expect expectation `json:"expect"`
	} `json:"answers"`
	Tokens []struct {
		Name    string      `json:"name"`
		Token   string      `json:"token"`
		AppID   string      `json:"app_id"`
		License string      `json:"license"`
		HWID    *string     `json:"hwid"`
		Nonce   *string     `json:"nonce"`
		Now     int64       `json:"now"`
		Expect  expectation `json:"expect"`
	} `json:"tokens"`
}

type expectation struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Refused string `json:"refused"`
	Code    string `json:"code"`
}

func loadRecordedAnswers(t *testing.T) *recordedAnswers {
	text, err := os.ReadFile(filepath.Join("..", "testdata", "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors recordedAnswers
	if err := json.Unmarshal(text, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.Answers) < 10 || len(vectors.Tokens) < 10 {
		t.Fatalf("%d answers and %d tokens recorded", len(vectors.Answers), len(vectors.Tokens))
	}
	return &vectors
}

func recordedClient(t *testing.T, appID, publicKey string, options Options) *Client {
	options.URL, options.AppID, options.PublicKey = "http://127.0.0.1:9", appID, publicKey
	client, err := NewClient(options)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// outcome is a decision as the cases write it: the message of a success, or the code of a failure.
func outcome(t *testing.T, message string, err error) expectation {
	t.Helper()
	if err == nil {
		return expectation{OK: true, Message: message}
	}
	var failure *Error
	if !errors.As(err, &failure) {
		t.Fatalf("no *Error: %v", err)
	}
	return expectation{Code: failure.Code}
}

func TestEveryRecordedAnswerIsDecidedAsItsCaseExpects(t *testing.T) {
	vectors := loadRecordedAnswers(t)
	client := recordedClient(t, vectors.AppID, vectors.PublicKeyPEM, Options{})
	for _, vector := range vectors.Answers {
		vector := vector
		t.Run(vector.Name, func(t *testing.T) {
			req := &request{path: vector.Request.Path, body: []byte(vector.Request.Body), digest: vector.Request.ContentDigest, nonce: vector.Request.Nonce}
			if vector.Request.License != nil {
				req.license = *vector.Request.License
			}
			var sent struct {
				License  string `json:"license"`
				Username string `json:"username"`
				HWID     string `json:"hwid"`
			}
			if err := json.Unmarshal(req.body, &sent); err != nil {
				t.Fatal(err)
			}
			header := http.Header{}
			for name, value := range vector.Answer.Headers {
				header.Set(name, value)
			}
			// What post and authenticate do with an answer that is not retried.
			got, err := settle(rawAnswer{status: vector.Answer.Status, header: header, body: []byte(vector.Answer.Body)}, client.key, req)
			message := ""
			if err == nil {
				message = got.message
				if req.path == "/auth" {
					err = client.acceptToken(got, req, Credentials{License: sent.License, Username: sent.Username, HWID: sent.HWID})
				}
			}
			want := vector.Expect
			if want.Refused != "" {
				want = expectation{Code: want.Refused}
			}
			if decided := outcome(t, message, err); decided != want {
				t.Fatalf("decided %+v (%v), the case expects %+v", decided, err, vector.Expect)
			}
		})
	}
}

func TestEveryRecordedTokenIsDecidedAsItsCaseExpects(t *testing.T) {
	vectors := loadRecordedAnswers(t)
	for _, vector := range vectors.Tokens {
		vector := vector
		t.Run(vector.Name, func(t *testing.T) {
			now := time.Unix(vector.Now, 0)
			credentials := Credentials{License: vector.License}
			if vector.HWID != nil {
				credentials.HWID = *vector.HWID
			}
			var err error
			if vector.Nonce != nil {
				// A token that came with the answer to the request of that nonce, about that license.
				client := recordedClient(t, vector.AppID, vectors.PublicKeyPEM, Options{Now: func() time.Time { return now }})
				data, _ := json.Marshal(map[string]string{"key": vector.License, "offline_token": vector.Token})
				err = client.acceptToken(&answer{data: data}, &request{nonce: *vector.Nonce}, credentials)
			} else {
				// A token read back from the StateDir while the service is out of reach.
				dir := t.TempDir()
				if err := storeToken(dir, storedToken{Token: vector.Token}); err != nil {
					t.Fatal(err)
				}
				client := recordedClient(t, vector.AppID, vectors.PublicKeyPEM, Options{StateDir: dir, Now: func() time.Time { return now }})
				_, err = client.offline(credentials, &Error{Code: CodeNetworkError})
			}
			want := vector.Expect
			if decided := outcome(t, "", err); decided.OK != want.OK || decided.Code != want.Code {
				t.Fatalf("decided %+v (%v), the case expects %+v", decided, err, want)
			}
		})
	}
}
