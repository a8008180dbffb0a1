package main

import (
	"strings"
	"time"
)

// durationList reads --duration: one positive duration for every level,
// or one per level of --request-rate (n levels).
func durationList(s string, n int) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, usageErrorf("--duration %q: want a positive duration (30s, 2m), or one per level, comma-separated", s)
		}
		out = append(out, d)
	}
	if len(out) != 1 && len(out) != n {
		return nil, usageErrorf("--duration %q: %d durations for %d levels: give one, or one per level", s, len(out), n)
	}
	return out, nil
}
