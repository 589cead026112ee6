package licensing

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What a Client keeps in its StateDir besides the offline token: the license
// file (license.lic), the activation requests waiting for their file
// (activation-requests.json) and the latest time seen (clock.json). The names
// and formats are those of the TypeScript and Python libraries, so a state
// folder one program's library wrote is read by another's.
const (
	licenseFileName = "license.lic"
	requestsName    = "activation-requests.json"
	clockName       = "clock.json"
	// clockSlack is how far the clock may be behind the latest time seen before
	// a stored token or file is refused: time zones, a dead clock battery put
	// right by hand.
	clockSlack = 24 * time.Hour
	// keptRequests: requests made again and again without their file arriving
	// (a lost QR code, a second try) are kept, the oldest dropped past this many.
	keptRequests = 10
)

// replaceFile replaces the file whole (a temporary file renamed over it, mode
// 0600: the files hold license keys): a crash or a concurrent reader sees the
// old content or the new, never part of one.
func replaceFile(dir, name string, text []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	temporary, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	_, err = temporary.Write(text)
	if err == nil {
		err = temporary.Sync()
	}
	if closeErr := temporary.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temporary.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(temporary.Name())
	}
	return err
}

// storedLicenseFile is the stored license file, trimmed; "" when there is none.
func (c *Client) storedLicenseFile() string {
	if c.stateDir == "" {
		return ""
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	text, err := os.ReadFile(filepath.Join(c.stateDir, licenseFileName))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(text))
}

// storeLicenseFile writes the compact string and one newline, so the file can be copied and read by any JOSE library.
func (c *Client) storeLicenseFile(compact string) error {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	return replaceFile(c.stateDir, licenseFileName, []byte(strings.TrimSpace(compact)+"\n"))
}

// dropLicenseFile deletes the stored file only if it is still this one: a newer one loaded meanwhile stays.
func (c *Client) dropLicenseFile(compact string) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	path := filepath.Join(c.stateDir, licenseFileName)
	if text, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(text)) == compact {
		os.Remove(path)
	}
}

// pendingRequest is an activation request this program made, kept until the license file made from it is loaded.
type pendingRequest struct {
	License string `json:"license"`
	HWID    string `json:"hwid"`
	Nonce   string `json:"nonce"`
}

// pendingRequests are the kept requests, oldest first; anything else in the file is left out. Call with stateMu held.
func (c *Client) pendingRequests() []pendingRequest {
	text, err := os.ReadFile(filepath.Join(c.stateDir, requestsName))
	if err != nil {
		return nil
	}
	var kept []json.RawMessage
	if json.Unmarshal(text, &kept) != nil {
		return nil
	}
	pending := []pendingRequest{}
	for _, entry := range kept {
		var fields map[string]json.RawMessage
		if json.Unmarshal(entry, &fields) != nil {
			continue
		}
		license, okLicense := stringMember(fields, "license")
		hwid, okHWID := stringMember(fields, "hwid")
		nonce, okNonce := stringMember(fields, "nonce")
		if okLicense && okHWID && okNonce {
			pending = append(pending, pendingRequest{License: license, HWID: hwid, Nonce: nonce})
		}
	}
	return pending
}

// changeRequests reads, changes and writes the kept requests under the client's lock.
func (c *Client) changeRequests(change func([]pendingRequest) []pendingRequest) error {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	changed := change(c.pendingRequests())
	if changed == nil {
		changed = []pendingRequest{}
	}
	text, err := json.Marshal(changed)
	if err != nil {
		return err
	}
	return replaceFile(c.stateDir, requestsName, text)
}

func (c *Client) keepRequest(request pendingRequest) error {
	return c.changeRequests(func(kept []pendingRequest) []pendingRequest {
		kept = append(kept, request)
		if len(kept) > keptRequests {
			kept = kept[len(kept)-keptRequests:]
		}
		return kept
	})
}

// forgetRequests: a file arrived for this license and device, and every request waiting for one is answered.
func (c *Client) forgetRequests(license, hwid string) error {
	return c.changeRequests(func(kept []pendingRequest) []pendingRequest {
		left := []pendingRequest{}
		for _, request := range kept {
			if request.License != license || request.HWID != hwid {
				left = append(left, request)
			}
		}
		return left
	})
}

// seconds is a time as the clock file keeps it: seconds since the epoch, to the millisecond.
func seconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// isoTime is the instant as JavaScript's toISOString writes it, as the other libraries give it.
func isoTime(seconds float64) string {
	return time.UnixMilli(int64(math.Round(seconds * 1000))).UTC().Format("2006-01-02T15:04:05.000Z")
}

func (c *Client) writeClock(seen float64) {
	text, err := json.Marshal(map[string]float64{"seen": seen})
	if err == nil {
		// A folder that cannot be written costs the clock's record, not the call that saw the time.
		_ = replaceFile(c.stateDir, clockName, text)
	}
}

// judgeClock comes before a stored token or file is trusted by the computer's
// clock: CLOCK_MOVED_BACK when now is more than a day behind the latest time
// seen, else now is recorded when it is later. Without a StateDir nothing is
// stored to trust, and nothing is judged.
func (c *Client) judgeClock(now time.Time) error {
	if c.stateDir == "" {
		return nil
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	var kept struct {
		Seen *float64 `json:"seen"`
	}
	text, err := os.ReadFile(filepath.Join(c.stateDir, clockName))
	known := err == nil && json.Unmarshal(text, &kept) == nil && kept.Seen != nil
	if known && seconds(now) < *kept.Seen-clockSlack.Seconds() {
		data, _ := json.Marshal(map[string]string{"latest_seen_at": isoTime(*kept.Seen)})
		return &Error{Code: CodeClockMovedBack, Data: data, detail: "the computer clock is more than a day behind a time this program has already seen"}
	}
	if !known || seconds(now) > *kept.Seen {
		c.writeClock(seconds(now))
	}
	return nil
}

// sawServiceTime records the service's time (iat) of a token or file that
// came with this request's nonce as the latest time seen, even when earlier
// than the one kept: a clock once set ahead and then put right is forgiven at
// the next answer instead of refusing offline use until that date.
func (c *Client) sawServiceTime(iat float64) {
	if c.stateDir == "" {
		return
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	c.writeClock(iat)
}
