package claims

import (
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func TestOpenLoop(t *testing.T) {
	ms := int64(1e6)
	// Planned every 100 ms; sent 0, 2, 4, 6 ms late; each takes 50 ms;
	// the last one fails. A warm-up is not counted.
	recs := []schemas.Record{{Phase: schemas.PhaseWarmup, PlannedNs: 1, StartNs: 500 * ms, EndNs: 900 * ms, OK: true}}
	for i := range 4 {
		p := int64(1000+100*i) * ms
		s := p + int64(2*i)*ms
		recs = append(recs, schemas.Record{Phase: schemas.PhaseMeasure, PlannedNs: p, StartNs: s, EndNs: s + 50*ms, OK: i < 3})
	}
	var m schemas.Metrics
	OpenLoop(&m, recs, 10)
	near := func(name string, got *float64, want float64) {
		if got == nil || *got < want-1e-9 || *got > want+1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("offered", m.OfferedRate, 10)
	near("send rate", m.SendRate, 3/0.306)
	near("lateness p50", m.LatenessP50S, 0.003)
	near("lateness p99", m.LatenessP99S, 0.002*(2+0.97))
	near("arrival p50", m.ArrivalLatencyP50S, 0.052)
	near("arrival p99", m.ArrivalLatencyP99S, 0.050+0.002*1.98)
}

func TestGoodput(t *testing.T) {
	ms := int64(1e6)
	recs := []schemas.Record{
		{Phase: schemas.PhaseMeasure, OK: true, PlannedNs: 100 * ms, StartNs: 100 * ms, FirstByteNs: 150 * ms, EndNs: 300 * ms},  // meets both
		{Phase: schemas.PhaseMeasure, OK: true, PlannedNs: 200 * ms, StartNs: 500 * ms, FirstByteNs: 550 * ms, EndNs: 650 * ms},  // e2e 450 ms from arrival
		{Phase: schemas.PhaseMeasure, OK: true, StartNs: 700 * ms, FirstByteNs: 950 * ms, EndNs: 1000 * ms},                      // ttfb 250 ms (closed: from the send)
		{Phase: schemas.PhaseMeasure, OK: false, PlannedNs: 800 * ms, StartNs: 800 * ms, FirstByteNs: 810 * ms, EndNs: 820 * ms}, // failed
		{Phase: schemas.PhaseWarmup, OK: true, StartNs: 1, FirstByteNs: 2, EndNs: 3},
	}
	e2e, ttfb := 0.4, 0.2
	if g := Goodput(recs, schemas.SLO{E2ES: &e2e, TTFBS: &ttfb}, 2); g == nil || *g != 0.5 {
		t.Errorf("goodput %v, want 1 request / 2 s", g)
	}
	if g := Goodput(recs, schemas.SLO{E2ES: &e2e}, 2); g == nil || *g != 1 {
		t.Errorf("goodput e2e only %v, want 2 requests / 2 s", g)
	}
}
