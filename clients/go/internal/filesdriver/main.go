// Command filesdriver makes one call of the license-file and trial surface per
// run, for the cases that test/support/native-license-files.ts shares among
// the native libraries:
//
//	filesdriver <call> [name=value ...]
//
// with the client's settings in LICENSING_URL (unset: no service),
// LICENSING_APP_ID, LICENSING_PUBLIC_KEY, LICENSING_STATE_DIR,
// LICENSING_TIMEOUT_MS and LICENSING_NOW (seconds). It prints one JSON line:
// {"ok":true,"message","data","offline"} or {"ok":false,"code","data"}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	licensing "licensing-service/clients/go"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: filesdriver <call> [name=value ...]")
		os.Exit(2)
	}
	fields := map[string]string{}
	for _, argument := range os.Args[2:] {
		name, value, _ := strings.Cut(argument, "=")
		fields[name] = value
	}
	options := licensing.Options{
		URL:       os.Getenv("LICENSING_URL"),
		AppID:     os.Getenv("LICENSING_APP_ID"),
		PublicKey: os.Getenv("LICENSING_PUBLIC_KEY"),
		StateDir:  os.Getenv("LICENSING_STATE_DIR"),
	}
	if timeout, err := strconv.Atoi(os.Getenv("LICENSING_TIMEOUT_MS")); err == nil {
		options.Timeout = time.Duration(timeout) * time.Millisecond
	}
	if now, err := strconv.ParseFloat(os.Getenv("LICENSING_NOW"), 64); err == nil {
		options.Now = func() time.Time { return time.UnixMilli(int64(math.Round(now * 1000))) }
	}
	client, err := licensing.NewClient(options)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	lifetime, _ := strconv.ParseInt(fields["lifetime_seconds"], 10, 64)
	file := licensing.FileOptions{Lifetime: time.Duration(lifetime) * time.Second, Encrypt: fields["encrypt"] == "true"}
	credentials := licensing.Credentials{License: fields["license"], Username: fields["username"], Password: fields["password"], HWID: fields["hwid"]}
	ctx := context.Background()

	var result *licensing.Result
	switch os.Args[1] {
	case "check":
		result, err = client.Check(ctx, credentials)
	case "license-file":
		result, err = client.LicenseFile(ctx, credentials, file)
	case "activation-request":
		var made *licensing.ActivationRequest
		if made, err = client.ActivationRequest(credentials.License, credentials.HWID, file, fields["portal_url"]); err == nil {
			data := map[string]string{"request": made.Request}
			if made.Link != "" {
				data["link"] = made.Link
			}
			result = dataResult(data)
		}
	case "load":
		result, err = client.LoadLicenseFile(fields["text"])
	case "return-code":
		var code string
		if code, err = client.ReturnCode(credentials.License, credentials.HWID); err == nil {
			result = dataResult(map[string]string{"return_code": code})
		}
	case "return-file":
		result, err = client.ReturnLicenseFile(ctx, credentials.License, credentials.HWID)
	case "trial":
		result, err = client.StartTrial(ctx, credentials.HWID)
	default:
		fmt.Fprintln(os.Stderr, "unknown call", os.Args[1])
		os.Exit(2)
	}
	report(result, err)
}

func dataResult(data map[string]string) *licensing.Result {
	text, _ := json.Marshal(data)
	return &licensing.Result{Data: text}
}

func report(result *licensing.Result, err error) {
	var line interface{}
	var failure *licensing.Error
	switch {
	case err == nil:
		line = map[string]interface{}{"ok": true, "message": result.Message, "data": result.Data, "offline": result.Offline}
	case errors.As(err, &failure):
		data := failure.Data
		if data == nil {
			data = json.RawMessage("null")
		}
		line = map[string]interface{}{"ok": false, "code": failure.Code, "data": data}
	default:
		// A call the library refuses to make (a missing StateDir, a malformed argument), as the C library's INVALID_ARGUMENT.
		line = map[string]interface{}{"ok": false, "code": "INVALID_ARGUMENT", "data": nil, "detail": err.Error()}
	}
	text, _ := json.Marshal(line)
	fmt.Println(string(text))
}
