package task_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Rescore (score RUNDIR) and claims.Compute (claims.json) pair records by the same
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
		recs[i].Scored = "one two three four"
	}
	recs[2].Scored = "one two tree four"
	recs[8].Scored = "one" // a, repeat 2: three deletions
	c, err := claims.Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	o := score.Options{Normalizer: run.Scoring.Normalizer, Aligner: run.Scoring.Aligner}
	got, err := task.Rescore(run, recs, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Target != "a" || len(got[0].Levels) != 2 {
		t.Fatalf("Rescore = %+v", got)
	}
	for ti, ts := range got {
		for _, l := range ts.Levels {
			want := c.Targets[ti].Levels[0].Repeats[l.Repeat-1].Quality
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
	var nr *task.NoRecordsError
	if _, err := task.Rescore(run, recs, o); !errors.As(err, &nr) || nr.Target != "c" {
		t.Errorf("target without records: err = %v", err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func testRun() schemas.Run {
	return schemas.Run{
		Schema: schemas.RunSchema, Seed: 1,
		Protocol: schemas.Protocol{Levels: []int{2}, Requests: []int{4}, Warmup: []int{2}, Repeats: 3,
			Perturb: true, TimeoutS: 60, SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []schemas.Target{{Name: "a"}, {Name: "b"}},
		Corpus:  []schemas.Clip{{ID: "x", Seconds: 1}},
	}
}

// oneRepeat: two warm-ups then four measured requests, one of them timed
// out (claims' TestComputeByHand works the same out by hand).
func oneRepeat(target string, rep int) []schemas.Record {
	const ms = 1_000_000
	rec := func(phase string, start, fb, end int64, ok bool, class string, audio float64) schemas.Record {
		return schemas.Record{Target: target, Concurrency: 2, Repeat: rep, Phase: phase, Clip: "x",
			StartNs: start * ms, FirstByteNs: fb * ms, EndNs: end * ms, OK: ok, ErrorClass: class, Seconds: audio,
			InputSHA256: strings.Repeat("0", 64)}
	}
	return []schemas.Record{
		rec(schemas.PhaseWarmup, 0, 10, 100, true, "", 1),
		rec(schemas.PhaseWarmup, 0, 10, 100, true, "", 1),
		rec(schemas.PhaseMeasure, 100, 150, 300, true, "", 2),
		rec(schemas.PhaseMeasure, 100, 120, 200, true, "", 1),
		rec(schemas.PhaseMeasure, 200, 0, 500, false, schemas.ErrTimeout, 5),
		rec(schemas.PhaseMeasure, 300, 0, 400, true, "", 3),
	}
}
