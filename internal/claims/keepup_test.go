package claims

import (
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// openRecs plans n requests every gap ms; request i takes took(i) ms
// from its planned arrival.
func openRecs(n int, gap int64, took func(i int) int64) []schemas.Record {
	ms := int64(1e6)
	var recs []schemas.Record
	for i := range n {
		p := (1000 + gap*int64(i)) * ms
		recs = append(recs, schemas.Record{Seq: i, Phase: schemas.PhaseMeasure, PlannedNs: p, StartNs: p, EndNs: p + took(i)*ms, OK: true})
	}
	return recs
}

func TestKeepUp(t *testing.T) {
	// Kept up: every request takes 50 ms, one every 100 ms; nothing is
	// in flight at an arrival.
	var m schemas.Metrics
	OpenLoop(&m, openRecs(30, 100, func(int) int64 { return 50 }), 10)
	if m.ArrivalGrowth == nil || *m.ArrivalGrowth != 1 || m.BacklogGrowth == nil || *m.BacklogGrowth != 0 {
		t.Fatalf("steady level: growth %v, backlog %v; want 1 and 0", m.ArrivalGrowth, m.BacklogGrowth)
	}
	if k := KeepUpOf(m, 0); k != KeptUp {
		t.Errorf("steady level: %v", k)
	}
	// Did not keep up: a server of 1 slot taking 150 ms offered one
	// request every 100 ms: request i waits 50·i ms.
	m = schemas.Metrics{}
	OpenLoop(&m, openRecs(30, 100, func(i int) int64 { return 150 + 50*int64(i) }), 10)
	// First third: 150..600 ms, median 375; last: 1150..1600, median 1375.
	if m.ArrivalGrowth == nil || *m.ArrivalGrowth < 1375.0/375-1e-9 || *m.ArrivalGrowth > 1375.0/375+1e-9 {
		t.Fatalf("growing queue: growth %v, want %v", m.ArrivalGrowth, 1375.0/375)
	}
	if m.BacklogGrowth == nil || !(*m.BacklogGrowth > 5) {
		t.Errorf("growing queue: backlog growth %v, want the backlog to grow", m.BacklogGrowth)
	}
	if k := KeepUpOf(m, 0); k != NotKeptUp {
		t.Errorf("growing queue: %v, want did not keep up", k)
	}
	// Failures beyond 1 %: did not keep up whatever the latency.
	if k := KeepUpOf(schemas.Metrics{ArrivalGrowth: ptr(1.0)}, 0.02); k != NotKeptUp {
		t.Errorf("failing level: %v", k)
	}
	// Too few: 29 requests leave 9 a third.
	m = schemas.Metrics{}
	OpenLoop(&m, openRecs(29, 100, func(int) int64 { return 50 }), 10)
	if k := KeepUpOf(m, 0); m.ArrivalGrowth != nil || k != KeepUpNotObserved {
		t.Errorf("29 requests: growth %v, verdict %v; want not observed", m.ArrivalGrowth, k)
	}
}
