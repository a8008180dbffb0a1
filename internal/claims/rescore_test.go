package claims

import (
	"errors"
	"testing"

	"github.com/benchseal/benchseal/internal/score"
)

// Rescore (score RUNDIR) and Compute (claims.json) pair records by the same
// rule, so a level's rescored WER is the WER the claims publish.
func TestRescoreAgreesWithCompute(t *testing.T) {
	run := testRun()
	run.Protocol.Repeats = 2
	run.Scoring.Normalizer = "basic"
	run.Corpus[0].Text = "one two three four"
	recs := append(oneRepeat("a", 1), oneRepeat("a", 2)...)
	recs = append(recs, oneRepeat("b", 1)...)
	recs = append(recs, oneRepeat("b", 2)...)
	for i := range recs {
		recs[i].TextScored = "one two three four"
	}
	recs[2].TextScored = "one two tree four"
	recs[8].TextScored = "one" // a, repeat 2: three deletions
	c, err := Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	o := score.Options{Normalizer: run.Scoring.Normalizer, Aligner: run.Scoring.Aligner}
	got, err := Rescore(run, recs, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Target != "a" || len(got[0].Levels) != 2 {
		t.Fatalf("Rescore = %+v", got)
	}
	for ti, ts := range got {
		for _, l := range ts.Levels {
			want := c.Targets[ti].Levels[0].Repeats[l.Repeat-1].WER
			if want == nil || !near(l.Rate, *want) {
				t.Errorf("%s c=%d r=%d: rescored %v, claims %v", ts.Target, l.Concurrency, l.Repeat, l.Rate, want)
			}
		}
	}
	if got[0].Levels[1].Rate <= got[0].Levels[0].Rate {
		t.Errorf("repeat 2 of a has three deletions: %v <= %v", got[0].Levels[1].Rate, got[0].Levels[0].Rate)
	}

	run.Targets = append(run.Targets, run.Targets[0])
	run.Targets[2].Name = "c"
	var nr *NoRecordsError
	if _, err := Rescore(run, recs, o); !errors.As(err, &nr) || nr.Target != "c" {
		t.Errorf("target without records: err = %v", err)
	}
}
