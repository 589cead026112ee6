// Command usage counts a metered feature: each export counts once, even when
// an answer is lost on the way and the call is retried.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	licensing "licensing-service/clients/go"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) != 2 {
		log.Fatal("usage: usage LICENSE-KEY")
	}
	client, err := licensing.NewClient(licensing.Options{
		URL:       os.Getenv("LICENSING_URL"),
		AppID:     os.Getenv("LICENSING_APP_ID"),
		PublicKey: os.Getenv("LICENSING_PUBLIC_KEY"),
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	license := licensing.Credentials{License: os.Args[1], HWID: client.MachineID()}
	if _, err := client.Check(ctx, license); err != nil {
		log.Fatal(err)
	}

	result, err := client.RecordUsage(ctx, license, licensing.Usage{Counter: "exports"})
	var counter licensing.UsageCounter
	var refused *licensing.Error
	if errors.As(err, &refused) && refused.Code == "USAGE_LIMIT_REACHED" {
		if json.Unmarshal(refused.Data, &counter) != nil || counter.ResetsAt == nil {
			log.Fatal("No exports left")
		}
		log.Fatalf("No exports left until %s", *counter.ResetsAt)
	} else if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(result.Data, &counter); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Exported; %d exports left\n", counter.Remaining)
}
