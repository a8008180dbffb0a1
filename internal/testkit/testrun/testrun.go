package testrun

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// Spec is the run to make: Clips clips of Seconds each, two targets "a"
// and "b" on one simulator answering after Latency.
type Spec struct {
	Clips     int
	Seconds   float64
	Levels    []int
	Requests  []int
	Repeats   int
	NoPerturb bool
	Latency   time.Duration
	// WarmupOnce is --compat seedtts's schedule: warm-ups before a level's
	// first repeat only.
	WarmupOnce bool
}

// Small is a run of two clips, levels 1 and 3, four requests, two
// repeats: about a second.
var Small = Spec{Clips: 2, Seconds: 0.5, Levels: []int{1, 3}, Requests: []int{4}, Repeats: 2, Latency: 5 * time.Millisecond}

// Refs are the clips' reference transcripts, in turn.
var Refs = []string{"the quick brown fox", "jumps over the lazy dog", "hello world again", "one two three four"}

// Write writes the corpus (a.wav, b.wav, ... with their .txt references,
// testkit.NoiseWAV of seeds 1, 2, ...) to corpusDir and the run directory
// to runDir, which must not exist.
func Write(ctx context.Context, corpusDir, runDir string, spec Spec) error {
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		return err
	}
	var sc []sim.Clip
	for i := range spec.Clips {
		w := testkit.NoiseWAV(spec.Seconds, uint64(i+1))
		name := filepath.Join(corpusDir, string(rune('a'+i))+".wav")
		ref := Refs[i%len(Refs)]
		if err := os.WriteFile(name, w, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(strings.TrimSuffix(name, ".wav")+".txt", []byte(ref+"\n"), 0o644); err != nil {
			return err
		}
		sc = append(sc, sim.Clip{Audio: w, Text: ref})
	}
	clips, err := bench.LoadCorpus(corpusDir)
	if err != nil {
		return err
	}
	s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: spec.Latency})
	if err != nil {
		return err
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	p := bench.Plan{
		Targets: []bench.Target{{Name: "a", URL: ts.URL}, {Name: "b", URL: ts.URL}},
		Corpus:  clips, Levels: spec.Levels, Requests: spec.Requests, Repeats: spec.Repeats, Seed: 7, NoPerturb: spec.NoPerturb, WarmupOnce: spec.WarmupOnce,
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
	}
	_, err = bench.Run(ctx, runDir, p)
	return err
}
