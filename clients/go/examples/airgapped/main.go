// Command airgapped runs on a computer that never reaches the service: it
// shows an activation request (a link a phone can open), accepts the license
// file made from it, and from then on runs from that file until the file's end.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	licensing "licensing-service/clients/go"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 || len(os.Args) > 3 {
		log.Fatal("usage: airgapped LICENSE-KEY [LICENSE-FILE] | --return LICENSE-KEY")
	}
	config, err := os.UserConfigDir()
	if err != nil {
		log.Fatal(err)
	}
	// No URL: this client never goes online. The license file and the pending request live in the StateDir.
	client, err := licensing.NewClient(licensing.Options{
		AppID:     os.Getenv("LICENSING_APP_ID"),
		PublicKey: os.Getenv("LICENSING_PUBLIC_KEY"),
		StateDir:  filepath.Join(config, "example-app"),
	})
	if err != nil {
		log.Fatal(err)
	}
	hwid := client.MachineID()
	var refused *licensing.Error

	if os.Args[1] == "--return" && len(os.Args) == 3 {
		// Moving to another computer: the file is deleted, and the code tells the vendor this one no longer uses it.
		code, err := client.ReturnCode(os.Args[2], hwid)
		if errors.As(err, &refused) {
			log.Fatalf("This copy is not licensed: %s", refused.Code)
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println("Give this return code to your vendor:", code)
		return
	}
	license := os.Args[1]
	if len(os.Args) == 3 {
		text, err := os.ReadFile(os.Args[2])
		if err != nil {
			log.Fatal(err)
		}
		if _, err := client.LoadLicenseFile(string(text)); errors.As(err, &refused) {
			// LICENSE_FILE_MISMATCH, LICENSE_FILE_EXPIRED, INVALID_SIGNATURE or CLOCK_MOVED_BACK.
			log.Fatalf("This copy is not licensed: %s", refused.Code)
		} else if err != nil {
			log.Fatal(err)
		}
	}
	// Without a URL the check never waits on a network: it answers from the stored license file.
	result, err := client.Check(context.Background(), licensing.Credentials{License: license, HWID: hwid})
	if err == nil {
		fmt.Println("Licensed with the license file of this computer:", result.Message)
		return
	}
	if !errors.As(err, &refused) {
		log.Fatal(err)
	} else if refused.Code != licensing.CodeNetworkError {
		log.Fatalf("This copy is not licensed: %s", refused.Code)
	}
	// NETWORK_ERROR: no file is stored for this license and computer yet.
	request, err := client.ActivationRequest(license, hwid, licensing.FileOptions{Encrypt: true}, os.Getenv("LICENSING_PORTAL_URL"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("This computer is not activated yet. Open this link on a phone or another computer:")
	fmt.Println(request.Link)
	fmt.Println("then start the program again with the license file it gives: airgapped", license, "license.lic")
	os.Exit(3)
}
