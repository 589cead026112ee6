// Command trial starts without a key: it asks for this computer's trial (one
// per computer, however often it asks) and runs while it lasts.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	licensing "licensing-service/clients/go"
)

func main() {
	log.SetFlags(0)
	config, err := os.UserConfigDir()
	if err != nil {
		log.Fatal(err)
	}
	client, err := licensing.NewClient(licensing.Options{
		URL:       os.Getenv("LICENSING_URL"),
		AppID:     os.Getenv("LICENSING_APP_ID"),
		PublicKey: os.Getenv("LICENSING_PUBLIC_KEY"),
		StateDir:  filepath.Join(config, "example-app"),
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	hwid := client.MachineID()

	// TRIAL_STARTED the first time, TRIAL_RESUMED after: the same trial license, whose key the program checks with.
	started, err := client.StartTrial(ctx, hwid)
	var refused *licensing.Error
	if errors.As(err, &refused) {
		switch refused.Code {
		case "TRIAL_EXPIRED":
			log.Fatal("Your trial has ended: buy a license to go on")
		case "TRIAL_CONVERTED":
			log.Fatal("This computer's trial was bought: start the program with your license key")
		default:
			log.Fatalf("This copy is not licensed: %s", refused.Code)
		}
	} else if err != nil {
		log.Fatal(err)
	}
	var trial licensing.TrialData
	if err := json.Unmarshal(started.Data, &trial); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s until %s\n", started.Message, *trial.ExpiresAt)

	result, err := client.Check(ctx, licensing.Credentials{License: trial.License, HWID: hwid})
	if errors.As(err, &refused) {
		log.Fatalf("This copy is not licensed: %s", refused.Code)
	} else if err != nil {
		log.Fatal(err)
	}
	var license licensing.LicenseData
	if err := json.Unmarshal(result.Data, &license); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Licensed (%s)\n", license.SubscriptionName)
	// ... the program itself ...
}
