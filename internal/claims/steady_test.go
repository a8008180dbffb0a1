package claims

import (
	"math"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// A closed loop of 2 workers: 4 requests of 1 s back to back on each
// worker is steady; a worker that drains 3 s early is not, and the
// requests that would reach steady state follow from the drain.
func TestSteadyState(t *testing.T) {
	rec := func(start, end float64) schemas.Record {
		return schemas.Record{Phase: schemas.PhaseMeasure, StartNs: int64(start * 1e9), EndNs: int64(end * 1e9)}
	}
	var recs []schemas.Record
	for i := range 4 {
		recs = append(recs, rec(float64(i), float64(i+1)), rec(float64(i), float64(i+1)))
	}
	recs = append(recs, schemas.Record{Phase: schemas.PhaseWarmup, StartNs: -5e9, EndNs: 0})
	mean, full, ok := SteadyState(recs, 2)
	if !ok || math.Abs(mean-2) > 1e-12 || math.Abs(full-1) > 1e-12 {
		t.Fatalf("back to back: mean %v, full %v, ok %v", mean, full, ok)
	}
	m := schemas.Metrics{Requests: 8, MeanInFlight: &mean, FullConcurrencyShare: &full}
	if s, known := Steady(m, 2); !s || !known || SteadyRequests(m, 2) != 8 {
		t.Fatalf("steady %v known %v need %d", s, known, SteadyRequests(m, 2))
	}

	// Worker 2 sends one request of 1 s; worker 1 four: window 4 s,
	// Σ latency 5 s, mean 1.25 of 2, both busy 1 s of 4.
	recs = []schemas.Record{rec(0, 1), rec(0, 1), rec(1, 2), rec(2, 3), rec(3, 4)}
	mean, full, _ = SteadyState(recs, 2)
	if math.Abs(mean-1.25) > 1e-12 || math.Abs(full-0.25) > 1e-12 {
		t.Fatalf("drained: mean %v, full %v", mean, full)
	}
	m = schemas.Metrics{Requests: 5, MeanInFlight: &mean, FullConcurrencyShare: &full}
	if s, known := Steady(m, 2); s || !known {
		t.Fatal("a drained level is called steady")
	}
	// Mean: (2 − 1.25)/(2·0.1) = 3.75×; share: 0.75/0.2 = 3.75×: 19 requests.
	if n := SteadyRequests(m, 2); n != 19 {
		t.Fatalf("need %d, want 19", n)
	}
	if _, known := Steady(schemas.Metrics{}, 2); known {
		t.Fatal("claims without the figures are not known")
	}
}
