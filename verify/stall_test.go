package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// closedLoop is a measured phase of conc workers, each sending n requests
// of lat back to back from t=0; stall delays worker 0's request k (and its
// later ones) by d.
func closedLoop(conc, n int, lat time.Duration, k int, d time.Duration) []schemas.Record {
	var recs []schemas.Record
	for w := range conc {
		t := int64(0)
		for i := range n {
			if w == 0 && i == k {
				t += int64(d)
			}
			recs = append(recs, schemas.Record{Phase: schemas.PhaseMeasure, Worker: w, Seq: i*conc + w, StartNs: t, EndNs: t + int64(lat)})
			t += int64(lat) + 50_000 // 0.05 ms dispatch gap, as measured
		}
	}
	return recs
}

// A stall a busy client machine explains (one 90 ms pause in 8 workers x
// 2.5 s) WARNs with its length; stalls that add up to more than
// maxStallShare of the phase's worker time FAIL; none passes.
func TestClosedLoopStalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stall  time.Duration
		status Status
		text   string
	}{
		{"no stall", 0, Pass, ""},
		{"one GC-sized stall", 90 * time.Millisecond, Warn, "the client stalled (stalls add up to 0.4 %"},
		{"a worker held back", 2 * time.Second, Fail, "a closed-loop worker sends its next request as soon as the previous one ends; stalls add up to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Check{Status: Pass}
			checkClosedLoop(c, "records/a/c8-r1.jsonl", closedLoop(8, 50, 50*time.Millisecond, 10, tc.stall), 8, true)
			if c.Status != tc.status {
				t.Fatalf("status %s, want %s: %+v", c.Status, tc.status, c.Findings)
			}
			if tc.text != "" && (len(c.Findings) == 0 || !strings.Contains(c.Findings[0].Reason, tc.text)) {
				t.Errorf("findings %+v, want %q", c.Findings, tc.text)
			}
		})
	}
}
