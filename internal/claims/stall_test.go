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
	if ClientStalled(small, 4) {
		t.Error("a 90 ms pause over 4 workers' 2 s (the load at 98.9 % of C) is called a stalled client")
	}
	big := closedLoop(4, 20, lat, 2e9, 5)
	if s, ok := WorstStall(big, 4); !ok || !s.Open() || s.Share < MaxStallShare {
		t.Errorf("2 s pause: %+v, want above %v", s, MaxStallShare)
	}
	if sh, ok := WorkerIdleShare(big, 4); !ok || sh < 0.1 {
		t.Errorf("2 s pause: idle share %v", sh)
	}
	if !ClientStalled(big, 4) {
		t.Error("a 2 s pause is no stall of the client")
	}
}

// ClientStalled weighs a dispatch gap against the requests it delays
// (StalledIdleShare): one 2.2 ms gap before one of four 1 s requests at
// C = 1 is a dispatch-gap p99 above 1 ms with the load at 99.9 % of C,
// not a stalled client (CI's replay at 1 s a request was called "not
// comparable" for it); 3 ms before each 100 ms request is.
func TestClientStalledWeighsGaps(t *testing.T) {
	slow := closedLoop(1, 4, 1e9, 2.2e6, 2)
	if g, ok := DispatchGapP99(slow); !ok || g <= SaturatedGap {
		t.Fatalf("fixture: p99 %v, want above %v", g, SaturatedGap)
	}
	if ClientStalled(slow, 1) {
		t.Error("one 2.2 ms gap among 1 s requests: client stalled")
	}
	var gappy []schemas.Record
	for w := range 2 {
		at := int64(0)
		for i := range 10 {
			gappy = append(gappy, schemas.Record{Concurrency: 2, Phase: schemas.PhaseMeasure, Seq: 2*i + w, Worker: w, StartNs: at, EndNs: at + 100e6, OK: true})
			at += 103e6
		}
	}
	if !ClientStalled(gappy, 2) {
		sh, _ := WorkerIdleShare(gappy, 2)
		t.Errorf("3 ms before each 100 ms request (idle %.1f %%): not a stalled client", 100*sh)
	}
}

// BenchmarkStalls applies the stall rule to a closed-loop step of 40,000
// requests at C=16 (the runner does after every step, verify per step).
func BenchmarkStalls(b *testing.B) {
	const c, n = 16, 40000
	recs := make([]schemas.Record, 0, n)
	for i := range n {
		w := i % c
		start := int64(i/c)*1e6 + int64(w)*1e3
		recs = append(recs, schemas.Record{Phase: schemas.PhaseMeasure, Worker: w, Seq: i, StartNs: start, EndNs: start + 9e5})
	}
	for b.Loop() {
		if _, ok := WorstStall(recs, c); ok {
			b.Fatal("a stall in a step without one")
		}
	}
}
