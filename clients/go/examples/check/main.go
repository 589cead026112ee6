// Command check is a protected program: it runs only with a valid license,
// online or, for a while, offline.
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
	if len(os.Args) != 2 {
		log.Fatal("usage: check LICENSE-KEY")
	}
	config, err := os.UserConfigDir()
	if err != nil {
		log.Fatal(err)
	}
	// Ship these three with the program; the key is your application's public key (PEM or JWK), pinned.
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
	result, err := client.Check(ctx, licensing.Credentials{License: os.Args[1], HWID: client.MachineID()})
	var refused *licensing.Error
	if errors.As(err, &refused) {
		// The service's code (LICENSE_EXPIRED, HWID_MISMATCH, ...), INVALID_SIGNATURE,
		// NETWORK_ERROR or OFFLINE_TOKEN_EXPIRED.
		log.Fatalf("This copy is not licensed: %s", refused.Code)
	} else if err != nil {
		log.Fatal(err)
	}

	var license licensing.LicenseData
	if err := json.Unmarshal(result.Data, &license); err != nil {
		log.Fatal(err)
	}
	if result.Offline {
		var token licensing.TokenClaims
		if err := json.Unmarshal(result.Data, &token); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Offline: licensed until %s at the latest\n", time.Unix(token.Expiry, 0).UTC().Format(time.RFC3339))
	}
	until := "it never expires"
	if license.ExpiresAt != nil {
		until = "valid until " + *license.ExpiresAt
	}
	fmt.Printf("Licensed (%s), %s\n", license.SubscriptionName, until)
}
