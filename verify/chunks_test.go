package verify_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestChunkedRunVerifies: an honest run of 90 s clips against the vllm
// persona, which splits each into 4 engine requests (and, with language
// detection and no language field, one more), each counted by
// vllm:request_success_total and observed by its stage histograms,
// verifies with no "other traffic" warning and no FAIL: the counts are
// held to the bound the records' lengths and the engine row give. The
// same counts with 1 s clips are other traffic.
func TestChunkedRunVerifies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       sim.Config
		fields    map[string]string
		seconds   float64
		wantOther bool
		otlp      bool
	}{
		{"chunks, language", sim.Config{}, map[string]string{"language": "en"}, 90, false, false},
		{"chunks, no language, lang detect", sim.Config{Model: "openai/whisper-large-v3"}, nil, 90, false, false},
		{"chunks, language, spans", sim.Config{}, map[string]string{"language": "en"}, 90, false, true},
		{"chunks, no language, lang detect, spans", sim.Config{Model: "openai/whisper-large-v3"}, nil, 90, false, true},
		{"short clips counted 4 times each", sim.Config{ChunkSeconds: 0.25}, map[string]string{"language": "en"}, 1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			corpus := filepath.Join(dir, "corpus")
			must(t, os.MkdirAll(corpus, 0o755))
			var sc []sim.Clip
			for i, ref := range []string{"the quick brown fox", "jumps over the lazy dog"} {
				w := testkit.NoiseWAV(tc.seconds, uint64(i+1))
				name := filepath.Join(corpus, string(rune('a'+i)))
				must(t, os.WriteFile(name+".wav", w, 0o644))
				must(t, os.WriteFile(name+".txt", []byte(ref+"\n"), 0o644))
				sc = append(sc, sim.Clip{Audio: w, Text: ref})
			}
			clips, err := bench.LoadCorpus(corpus)
			must(t, err)
			cfg := tc.cfg
			cfg.Corpus, cfg.BaseLatency = sc, 5*time.Millisecond
			var otlp *serverevents.Receiver
			if tc.otlp {
				otlp, err = serverevents.Listen("127.0.0.1:0")
				must(t, err)
				defer otlp.Close()
				cfg.OTLPEndpoint = "http://" + otlp.Addr()
			}
			s, err := sim.New(cfg)
			must(t, err)
			ts := httptest.NewServer(s)
			defer ts.Close()
			run := filepath.Join(dir, "run")
			rec := fingerprint.NewRecorder(fingerprint.RecorderConfig{Args: []string{"benchseal", "run"},
				Targets: map[string]fingerprint.Endpoint{"a": {URL: ts.URL}}})
			hooks := bench.Hooks{
				BeforeSweep: func(ctx context.Context, d *bench.Dir) error { return rec.BeforeSweep(ctx, d.Path, d.Anchor) },
				BeforeStep: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
					return rec.StepStart(ctx, s.Target, s.Concurrency, s.Repeat)
				},
				BeforeMeasure: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
					return rec.MeasureStart(ctx, s.Target, s.Concurrency, s.Repeat)
				},
				AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
					_, err := rec.StepEnd(ctx, r.Target, r.Concurrency, r.Repeat, r.StartNs, r.EndNs)
					return err
				},
				AfterSweep: func(ctx context.Context, d *bench.Dir) error {
					if otlp != nil {
						if silent, err := serverevents.CollectOTLP(ctx, d.Path, d.Run, otlp, 30*time.Second); err != nil || len(silent) > 0 {
							t.Errorf("collecting the spans: %v (none from %v)", err, silent)
						}
					}
					return rec.AfterSweep(ctx)
				},
			}
			_, err = bench.Run(context.Background(), run, bench.Plan{
				Targets: []bench.Target{{Name: "a", URL: ts.URL, Fields: tc.fields}},
				Corpus:  clips, Levels: []int{2}, Requests: []int{4}, Repeats: 1, Seed: 7,
				Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
			}, bench.WithHooks(hooks))
			must(t, err)
			rep, err := verify.Dir(t.Context(), run, verify.Options{})
			must(t, err)
			other := false
			for _, c := range rep.Checks {
				for _, f := range c.Findings {
					if strings.Contains(f.Reason, "other traffic") {
						other = true
						if !tc.wantOther {
							t.Errorf("check %d %s: %s", c.ID, f.Path, f.Reason)
						}
					}
				}
				if c.Status == verify.Fail {
					t.Errorf("check %d FAIL: %s %+v", c.ID, c.Summary, c.Findings)
				}
			}
			if tc.wantOther && !other {
				t.Error("no other-traffic warning for a count 4 times the records")
			}
			ids := []int{verify.CheckProtocol, verify.CheckServer}
			if tc.otlp {
				ids = append(ids, verify.CheckEvents)
			}
			for _, id := range ids {
				if c := rep.Check(id); c.Status == verify.Skip {
					t.Errorf("check %d not run: %s", id, c.Summary)
				}
			}
		})
	}
}
