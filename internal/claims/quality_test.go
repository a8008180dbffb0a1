package claims

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

type fakeQuality struct{ name string }

func (f fakeQuality) Name() string                { return f.name }
func (fakeQuality) Metric(schemas.Scoring) string { return "fake" }
func (fakeQuality) Quality([]schemas.Record, map[string]string, schemas.Scoring) (*float64, error) {
	v := 0.125
	return &v, nil
}

func TestComputeQualityOfRunsTask(t *testing.T) {
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1},
		Targets: []schemas.Target{{Name: "a"}}, Corpus: []schemas.Clip{{ID: "c", Text: "hello", Seconds: 1}},
		Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}}
	recs := []schemas.Record{{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, Clip: "c",
		OK: true, Output: schemas.Output{Scored: "hello world"}, StartNs: 0, EndNs: 1e9, Seconds: 1}}
	wer := func(cl schemas.Claims) float64 { return *cl.Targets[0].Levels[0].Median.Quality }

	// Absent task: ASR's WER (one insertion over one word).
	cl, err := Compute(run, recs)
	if err != nil || wer(cl) != 1 {
		t.Fatalf("asr run: %v, %v", err, cl)
	}
	run.Protocol.Task = "fake"
	if _, err := Compute(run, recs); err == nil || !strings.Contains(err.Error(), `"fake"`) {
		t.Errorf("a non-ASR run without its metric: err = %v; want a refusal naming the task", err)
	}
	if _, err := Compute(run, recs, WithQuality(fakeQuality{"other"})); err == nil {
		t.Error("a metric of another task was accepted")
	}
	cl, err = Compute(run, recs, WithQuality(fakeQuality{"fake"}))
	if err != nil || wer(cl) != 0.125 {
		t.Fatalf("fake run: %v, %v; want the task's metric 0.125", err, cl)
	}
}
