package claims

import (
	"encoding/json"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// A C=4 level over a 2-clip corpus: 4 warm-ups at once, then the measured
// phase of 2 requests never has more than 2 in flight. peak_in_flight is
// the measured phase's; the warm-ups' peak is reported on its own.
func TestPeakInFlightMeasuredOnly(t *testing.T) {
	run := testRun()
	run.Protocol.Repeats = 2
	var recs []schemas.Record
	for rep := 1; rep <= 2; rep++ {
		for i := 0; i < 4; i++ {
			recs = append(recs, rec("a", rep, schemas.PhaseWarmup, 0, 10, 100, true, "", 1))
		}
		recs = append(recs,
			rec("a", rep, schemas.PhaseMeasure, 100, 150, 300, true, "", 1),
			rec("a", rep, schemas.PhaseMeasure, 100, 150, 200, true, "", 1))
	}
	// Repeat 2 of target b has no warm-up at all.
	recs = append(recs, rec("b", 1, schemas.PhaseMeasure, 100, 150, 300, true, "", 1))
	c, err := Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	lv := c.Targets[0].Levels[0]
	for i, m := range append(lv.Repeats, lv.Median, lv.Min, lv.Max) {
		if m.PeakInFlight != 2 {
			t.Errorf("row %d: peak_in_flight = %d, want 2 (measured phase only)", i, m.PeakInFlight)
		}
		if m.WarmupPeakInFlight == nil || *m.WarmupPeakInFlight != 4 {
			t.Errorf("row %d: warmup_peak_in_flight = %v, want 4", i, m.WarmupPeakInFlight)
		}
	}
	mb := c.Targets[1].Levels[0].Median
	if mb.PeakInFlight != 1 || mb.WarmupPeakInFlight != nil {
		t.Errorf("no warm-ups: peak %d, warm-up peak %v, want 1 and absent", mb.PeakInFlight, mb.WarmupPeakInFlight)
	}
	b, _ := json.Marshal(c)
	if err := schemas.Validate("claims", b); err != nil {
		t.Errorf("claims.json does not validate: %v", err)
	}
}
