// Command floating is a program sold with floating seats: it holds a seat
// while it runs and gives it back when it closes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	licensing "licensing-service/clients/go"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) != 2 {
		log.Fatal("usage: floating LICENSE-KEY")
	}
	client, err := licensing.NewClient(licensing.Options{
		URL:       os.Getenv("LICENSING_URL"),
		AppID:     os.Getenv("LICENSING_APP_ID"),
		PublicKey: os.Getenv("LICENSING_PUBLIC_KEY"),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Ctrl-C or SIGTERM ends the program cleanly, so that its seat is given back.
	running, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	seat, err := client.StartHeartbeat(running, licensing.Credentials{License: os.Args[1], HWID: client.MachineID()}, nil)
	var refused *licensing.Error
	if errors.As(err, &refused) && refused.Code == "SEATS_EXHAUSTED" {
		var full struct {
			MaxDevices int    `json:"max_devices"`
			NextSeatAt string `json:"next_seat_at"`
		}
		_ = json.Unmarshal(refused.Data, &full)
		log.Fatalf("All %d seats are in use; the next one is free at %s", full.MaxDevices, full.NextSeatAt)
	} else if errors.As(err, &refused) {
		log.Fatalf("Not licensed: %s", refused.Code)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Seat held until %s\n", seat.LeaseExpiresAt().UTC().Format(time.RFC3339))

	select {
	case <-running.Done():
		// The program's real work runs here until the user closes it.
	case <-seat.Lost():
		// The service refused a renewal (the owner freed the seat, the license expired, ...)
		// or stayed out of reach until the lease ended: save the user's work and stop.
		log.Fatalf("Seat lost: %s", seat.Err().Code)
	}
	releasing, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := seat.Stop(releasing); err != nil {
		log.Fatalf("The seat comes back when its lease ends: %v", err)
	}
	fmt.Println("Seat released")
}
