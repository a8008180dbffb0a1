//go:build !linux

package bench

import "time"

// sleepFine is time.Sleep off Linux.
func sleepFine(d time.Duration) { time.Sleep(d) }
