package fingerprint_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// lagStep runs one step against a sim that counts each request lag after
// answering it (vLLM's output handler records stats after handing the
// output over): one warm-up, then measured requests, through a Recorder
// with the given settle bound. It returns the step's line and its
// measure and after scrapes, raw.
func lagStep(t *testing.T, persona string, lag, bound time.Duration, measured int) (schemas.StepTelemetry, []byte, []byte) {
	t.Helper()
	wav := pcmWAV(8000)
	s, err := sim.New(sim.Config{Persona: persona, MetricsLag: lag, Corpus: []sim.Clip{{Audio: wav, Text: "hello world"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	anchor := time.Now()
	r := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: time.Second, SettleBound: bound,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: srv.URL}}})
	ctx := context.Background()
	if err := r.BeforeSweep(ctx, dir, anchor); err != nil {
		t.Fatal(err)
	}
	if lag < time.Minute {
		// A step before, counted by now: the families exist (SGLang-Omni
		// shows a route's series only once it counted one request).
		transcribe(t, srv.URL, wav)
		time.Sleep(lag + 50*time.Millisecond)
	}
	if err := r.StepStart(ctx, "a", 1, 1); err != nil {
		t.Fatal(err)
	}
	transcribe(t, srv.URL, wav) // the warm-up
	r.Expect("a", 1)
	if err := r.MeasureStart(ctx, "a", 1, 1); err != nil {
		t.Fatal(err)
	}
	from := time.Since(anchor).Nanoseconds()
	for range measured {
		transcribe(t, srv.URL, wav)
	}
	r.Expect("a", measured)
	st, err := r.StepEnd(ctx, "a", 1, 1, from, time.Since(anchor).Nanoseconds())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AfterSweep(ctx); err != nil {
		t.Fatal(err)
	}
	line, err := os.ReadFile(filepath.Join(dir, "telemetry", "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.ValidateLines("step_telemetry", line); err != nil {
		t.Fatalf("steps.jsonl: %v\n%s", err, line)
	}
	read := func(when string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(schemas.MetricsPath("a", 1, 1, when))))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return st, read("measure"), read("after")
}

// served is what verify's checks read of the step from its measure and
// after scrapes: the growth of the engine's request counter (check 7,
// whatever the status: an upper bound of the 200s it compares) and of
// each stage histogram's count (check 9).
func served(t *testing.T, measure, after []byte) (float64, map[string]float64) {
	t.Helper()
	counts := func(raw []byte) (map[string]float64, claims.Scrape) {
		fams, err := fingerprint.ParseMetrics(raw)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := claims.ParseScrape(raw)
		if err != nil {
			t.Fatal(err)
		}
		return fingerprint.RequestCounts(fams), sc
	}
	mc, ms := counts(measure)
	ac, as := counts(after)
	var requests float64
	for _, rc := range engine.RequestCounters {
		if b, ok := mc[rc.Name]; ok {
			requests = ac[rc.Name] - b
			break
		}
	}
	stages := map[string]float64{}
	for fam, h := range as.Families {
		stages[fam] = h.Count - ms.Families[fam].Count
	}
	if len(stages) == 0 {
		t.Fatal("no stage family in the scrapes")
	}
	return requests, stages
}

// A server that counts its requests 400 ms after answering them: the
// scrape the instant the last answer came misses them (checks 7 and 9
// would call the records "requests the server never saw"); the recorder's
// settle waits for them and keeps the scrape that counts them all.
func TestSettleWaitsForLaggedCounters(t *testing.T) {
	const lag, measured = 400 * time.Millisecond, 3
	for _, persona := range []string{sim.PersonaVLLM, sim.PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			t.Parallel()
			st, m, a := lagStep(t, persona, lag, -1, measured)
			if st.Settle != nil {
				t.Errorf("settle disabled, yet %+v", st.Settle)
			}
			requests, stages := served(t, m, a)
			if requests >= measured {
				t.Errorf("unsettled: the request counter grew by %g, want fewer than %d (the lag did not show)", requests, measured)
			}
			for fam, n := range stages {
				if n >= measured {
					t.Errorf("unsettled: %s counted %g, want fewer than %d", fam, n, measured)
				}
			}

			st, m, a = lagStep(t, persona, lag, fingerprint.DefaultSettleBound, measured)
			for when, want := range map[string]int{"measure": 1, "after": measured} {
				got, ok := st.Settle[when]
				if !ok || !got.Met || got.Want != want || got.Counted < float64(want) || got.Scrapes < 2 || got.WaitedNs <= 0 {
					t.Errorf("settle %s: %+v (present %v), want met with want %d after more than one scrape", when, got, ok, want)
				}
			}
			requests, stages = served(t, m, a)
			if requests != measured {
				t.Errorf("settled: the request counter grew by %g, want %d", requests, measured)
			}
			for fam, n := range stages {
				if n != measured {
					t.Errorf("settled: %s counted %g, want %d", fam, n, measured)
				}
			}
		})
	}
}

// No lag: the first scrape has them all, one scrape, no wait to speak of.
// A counter that never gets there (records of requests the server did not
// serve) costs the bound and says so.
func TestSettleBounded(t *testing.T) {
	st, _, _ := lagStep(t, sim.PersonaVLLM, 0, fingerprint.DefaultSettleBound, 2)
	if got := st.Settle["after"]; !got.Met || got.Scrapes != 1 || got.Counted != 2 {
		t.Errorf("no lag: %+v, want met at the first scrape", got)
	}
	const bound = 150 * time.Millisecond
	st, _, _ = lagStep(t, sim.PersonaVLLM, time.Hour, bound, 2)
	got := st.Settle["after"]
	if got.Met || got.Counted != 0 || got.Want != 2 || got.WaitedNs < bound.Nanoseconds() || got.WaitedNs > (bound+time.Second).Nanoseconds() {
		t.Errorf("never counted: %+v, want unmet after about %v", got, bound)
	}
	b, _ := json.Marshal(got)
	if err := schemas.Validate("step_telemetry", []byte(`{"target":"a","concurrency":1,"repeat":1,"start_ns":0,"end_ns":1,"gpus":null,"settle":{"after":`+string(b)+`}}`)); err != nil {
		t.Error(err)
	}
}
