//go:build !unix

package bench

import "time"

// sleepFine is time.Sleep where no nanosleep(2) is at hand.
func sleepFine(d time.Duration) { time.Sleep(d) }
