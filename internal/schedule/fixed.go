package schedule

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// A fixed schedule (run --fixed-schedule FILE) replaces a level's derived
// offsets with a trace's: FILE holds one send offset per line, in seconds
// from the measured phase's start, non-decreasing (blank lines and lines
// starting with # are skipped; anything after a comma on a line is the
// trace's own and ignored). run.json keeps the offsets in nanoseconds and
// the file's SHA-256, so a verifier holds the sends to them and a reader
// ties them to the trace.

// MaxFixed bounds a fixed schedule's requests (run.json keeps each).
const MaxFixed = 1 << 20

// ReadFixed reads a fixed schedule and returns its offsets and the
// SHA-256 of the bytes read.
func ReadFixed(r io.Reader) ([]time.Duration, string, error) {
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	var out []time.Duration
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		field, _, _ := strings.Cut(text, ",")
		s, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
		if err != nil || s < 0 || math.IsInf(s, 0) || math.IsNaN(s) {
			return nil, "", fmt.Errorf("line %d: %q is not a send offset in seconds (0 or more)", line, field)
		}
		d := time.Duration(math.Round(s * 1e9))
		if n := len(out); n > 0 && d < out[n-1] {
			return nil, "", fmt.Errorf("line %d: offset %vs comes before the one above it: a schedule's offsets do not decrease", line, s)
		}
		if len(out) == MaxFixed {
			return nil, "", fmt.Errorf("more than %d requests", MaxFixed)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("no send offset")
	}
	if out[len(out)-1] <= 0 {
		return nil, "", fmt.Errorf("every offset is 0: a schedule spans some time")
	}
	return out, hex.EncodeToString(h.Sum(nil)), nil
}

// FixedRate is a fixed schedule's mean offered rate: its requests over
// its last offset, in requests per second (as a level of rate R and N
// requests lands its last at N/R).
func FixedRate(offs []time.Duration) float64 {
	if len(offs) == 0 || offs[len(offs)-1] <= 0 {
		return 0
	}
	return float64(len(offs)) / offs[len(offs)-1].Seconds()
}

// Nanos is offs as run.json keeps them; Durations reads them back.
func Nanos(offs []time.Duration) []int64 {
	out := make([]int64, len(offs))
	for i, d := range offs {
		out[i] = d.Nanoseconds()
	}
	return out
}

// Durations is Nanos read back.
func Durations(ns []int64) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}
