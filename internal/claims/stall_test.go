package claims

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// closedLoop is a closed-loop step's measured records: each of conc
// workers sends n requests of lat ns back to back from t=0, worker 0's
// k-th request (k >= 1) delayed by delay ns.
func closedLoop(conc, n int, lat, delay int64, k int) []schemas.Record {
	var recs []schemas.Record
	for w := range conc {
		at := int64(0)
		for i := range n {
			if w == 0 && i == k {
				at += delay
			}
			recs = append(recs, schemas.Record{Concurrency: conc, Phase: schemas.PhaseMeasure, Seq: i*conc + w, Worker: w, StartNs: at, EndNs: at + lat, OK: true})
			at += lat
		}
	}
	return recs
}

// The stall rule, the one verify's check 7 and the runner share: a
// closed loop back to back has no stall; a 90 ms pause among 4 workers
// over 2 s is a stall within MaxStallShare; a 2 s pause breaks it. The
// workers' idle share and ClientStalled read the same gaps.
func TestStalls(t *testing.T) {
	const lat = 100e6
	if s := Stalls(closedLoop(4, 20, lat, 0, 5), 4); len(s) != 0 {
		t.Errorf("back to back: %+v", s)
	}
	if sh, ok := WorkerIdleShare(closedLoop(4, 20, lat, 0, 5), 4); !ok || sh != 0 {
		t.Errorf("back to back: idle share %v %v", sh, ok)
	}
	if ClientStalled(closedLoop(4, 20, lat, 0, 5), 4) {
		t.Error("back to back: client stalled")
	}
	small := closedLoop(4, 20, lat, 90e6, 5)
	s, ok := WorstStall(small, 4)
	if !ok || s.Open() || s.Share <= 0 || s.Phase != schemas.PhaseMeasure || !strings.Contains(s.First, "worker 0 sent seq 20 90.0 ms after its seq 16 ended") {
		t.Errorf("90 ms pause: %+v", s)
	}
	if !ClientStalled(small, 4) {
		t.Error("a 90 ms pause is no stall of the client")
	}
	big := closedLoop(4, 20, lat, 2e9, 5)
	if s, ok := WorstStall(big, 4); !ok || !s.Open() || s.Share < MaxStallShare {
		t.Errorf("2 s pause: %+v, want above %v", s, MaxStallShare)
	}
	if sh, ok := WorkerIdleShare(big, 4); !ok || sh < 0.1 {
		t.Errorf("2 s pause: idle share %v", sh)
	}
}
