package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

func TestRunAgainstSim(t *testing.T) {
	clips, sc := testCorpus(t, 3, 0.5)
	a := simServer(t, sim.Config{Corpus: sc, BaseLatency: 20 * time.Millisecond})
	b := simServer(t, sim.Config{Corpus: sc, BaseLatency: 10 * time.Millisecond, Persona: sim.PersonaSGLangOmni, Model: "m2"})
	p := Plan{
		Targets: []Target{{Name: "a", URL: a.URL}, {Name: "b", URL: b.URL, Model: "m2", Fields: map[string]string{"language": "en"}}},
		Corpus:  clips, Levels: []int{1, 4}, Requests: []int{5, 12}, Repeats: 2, Seed: 42,
	}
	dir, res, err := runPlan(t, p)
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if !l.run.Complete || l.run.Incomplete != "" || l.run.EndedAt.IsZero() {
		t.Errorf("run.json: complete %v incomplete %q", l.run.Complete, l.run.Incomplete)
	}
	if l.run.Targets[0].Model != sim.DefaultModel {
		t.Errorf("model of a = %q, want the one /v1/models lists", l.run.Targets[0].Model)
	}
	if len(res.Steps) != 2*2*2 || len(l.files) != 8 {
		t.Fatalf("%d steps, %d files; want 8", len(res.Steps), len(l.files))
	}
	wavs := map[string]*perturb.WAV{}
	for _, c := range clips {
		wavs[c.ID] = c.WAV
		// inputs/<sha>.wav holds the original bytes.
		got, err := os.ReadFile(filepath.Join(dir, "inputs", hexSum(c.SHA256)+".wav"))
		if err != nil || string(got) != string(c.WAV.Bytes) {
			t.Errorf("inputs copy of %s: %v", c.ID, err)
		}
	}
	seen := map[string]bool{}
	for li, c := range p.Levels {
		for rep := 1; rep <= 2; rep++ {
			var firstStart []int64
			for _, tg := range []string{"a", "b"} {
				name := fmt.Sprintf("records/%s/c%d-r%d.jsonl", tg, c, rep)
				rs := l.files[name]
				var warm, meas int
				for _, r := range rs {
					if r.Phase == schemas.PhaseWarmup {
						warm++
					} else {
						meas++
					}
					if !r.OK {
						t.Errorf("%s seq %d failed: %s %s", name, r.Seq, r.ErrorClass, r.Error)
					}
					if seen[r.InputSHA256] {
						t.Errorf("%s seq %d: input hash sent twice", name, r.Seq)
					}
					seen[r.InputSHA256] = true
					variantOK(t, wavs, r)
					if r.Scored != refs[slices.IndexFunc(clips, func(x Clip) bool { return x.ID == r.Clip })%3] {
						t.Errorf("%s seq %d: text %q", name, r.Seq, r.Scored)
					}
				}
				if warm != c || meas != p.Requests[li] {
					t.Errorf("%s: %d warm-ups + %d measured, want %d + %d", name, warm, meas, c, p.Requests[li])
				}
				if peak := claims.PeakInFlight(rs); peak != c {
					t.Errorf("%s: peak in flight %d, want %d", name, peak, c)
				}
				firstStart = append(firstStart, slices.MinFunc(rs, func(x, y schemas.Record) int { return int(x.StartNs - y.StartNs) }).StartNs)
			}
			// Target order alternates: a first on odd repeats, b on even.
			if (rep%2 == 1) != (firstStart[0] < firstStart[1]) {
				t.Errorf("c=%d r=%d: target order does not alternate", c, rep)
			}
		}
	}
	lv := l.claims.Targets[0].Levels[1]
	if lv.Median.PeakInFlight != 4 || lv.Median.Succeeded != 12 || len(lv.Repeats) != 2 {
		t.Errorf("claims a c=4: %+v", lv.Median)
	}
	if w := lv.Median.Quality; w == nil || *w != 0 {
		t.Errorf("wer against a server answering the references = %v, want 0", w)
	}
}

func TestRunRefusesExistingOut(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.1)
	ts := simServer(t, sim.Config{Corpus: sc})
	dir := t.TempDir() // exists
	marker := filepath.Join(dir, "keep")
	os.WriteFile(marker, []byte("evidence"), 0o644)
	_, err := Run(context.Background(), dir, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips, Levels: []int{1}, Requests: []int{1}})
	var oe *OutExistsError
	if !errors.As(err, &oe) {
		t.Fatalf("Run into an existing dir = %v, want *OutExistsError", err)
	}
	if b, _ := os.ReadFile(marker); string(b) != "evidence" {
		t.Error("existing file touched")
	}
}

func TestRunUnreachableTarget(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.1)
	ok := simServer(t, sim.Config{Corpus: sc})
	dead := simServer(t, sim.Config{Corpus: sc})
	dead.Close()
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ok.URL}, {Name: "b", URL: dead.URL}},
		Corpus: clips, Levels: []int{1}, Requests: []int{1}})
	var te *TargetError
	if !errors.As(err, &te) || te.Target != "b" || !strings.Contains(err.Error(), "is not answering") {
		t.Fatalf("err = %v, want a *TargetError for b", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run directory was left behind: %v", err)
	}
}

// TestRunSheddingIsRecorded: an overloaded server's refusals are recorded
// as shedding (schemas.ErrShed), whichever status its engine sheds with:
// vLLM's 503 and SGLang-Omni's 500 {"detail":"The request queue is
// full."}; the sim's other 500s (FailRate) stay server failures.
func TestRunSheddingIsRecorded(t *testing.T) {
	for _, tc := range []struct {
		persona string
		status  int
	}{{sim.PersonaVLLM, 503}, {sim.PersonaSGLangOmni, 500}} {
		t.Run(tc.persona, func(t *testing.T) {
			clips, sc := testCorpus(t, 2, 0.1)
			ts := simServer(t, sim.Config{Persona: tc.persona, Corpus: sc, BaseLatency: 50 * time.Millisecond, MaxRunning: 2, MaxQueue: 1})
			dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
				Levels: []int{8}, Requests: []int{40}, Warmup: []int{0}, Repeats: 1})
			if err != nil {
				t.Fatal(err)
			}
			l := loadRun(t, dir)
			m := l.claims.Targets[0].Levels[0].Repeats[0]
			if m.Requests != 40 || m.Errors[schemas.ErrShed] == 0 || m.Errors[schemas.ErrHTTP] != 0 || m.Succeeded == 0 || m.Succeeded+m.Errors[schemas.ErrShed] != 40 {
				t.Errorf("shedding: %d requests, %d ok, errors %v", m.Requests, m.Succeeded, m.Errors)
			}
			for _, r := range l.recs {
				if !r.OK && (r.Status != tc.status || r.ErrorClass != schemas.ErrShed || !strings.Contains(r.Error, fmt.Sprintf("HTTP %d", tc.status))) {
					t.Errorf("shed record: status %d class %q error %q", r.Status, r.ErrorClass, r.Error)
				}
			}
		})
	}
	clips, sc := testCorpus(t, 1, 0.1)
	ts := simServer(t, sim.Config{Persona: sim.PersonaSGLangOmni, Corpus: sc, FailRate: 1})
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{1}, Requests: []int{2}, Warmup: []int{0}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m := loadRun(t, dir).claims.Targets[0].Levels[0].Repeats[0]; m.Errors[schemas.ErrHTTP] != 2 || m.Errors[schemas.ErrShed] != 0 {
		t.Errorf("a server failure: errors %v, want 2 http", m.Errors)
	}
}

func TestRunTimeoutsAndAllFailedLevel(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.1)
	ts := simServer(t, sim.Config{Corpus: sc, BaseLatency: 5 * time.Second})
	dir, res, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{2}, Warmup: []int{0}, Repeats: 1}, WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if res.Steps[0].Errors[schemas.ErrTimeout] != 2 {
		t.Errorf("errors %v, want 2 timeouts", res.Steps[0].Errors)
	}
	for _, r := range l.recs {
		if d := time.Duration(r.EndNs - r.StartNs); d > 2*time.Second {
			t.Errorf("a request lasted %v despite the 200ms timeout", d)
		}
	}
	if len(l.run.Notes) != 1 || !strings.Contains(l.run.Notes[0], "failed every request") ||
		!slices.ContainsFunc(l.run.Events, func(e schemas.RunEvent) bool { return e.Kind == "level_all_failed" }) {
		t.Errorf("notes %q events %+v", l.run.Notes, l.run.Events)
	}
}

func TestRunInterruptDrains(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.1)
	s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt mid-way through the second step, counted in its requests
	// (4 warm-ups, then the 8th measured one arrives), not in time after
	// the first: a timer of 50 ms once fired before a starved second step
	// had sent anything.
	var armed atomic.Bool
	var second atomic.Int64
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && armed.Load() && second.Add(1) == 12 {
			cancel()
		}
		s.ServeHTTP(w, r)
	})
	dir := filepath.Join(t.TempDir(), "run")
	steps := 0
	hooks := Hooks{AfterStep: func(context.Context, *Dir, StepResult) error {
		steps++
		armed.Store(steps == 1)
		return nil
	}}
	res, err := Run(ctx, dir, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{4}, Requests: []int{40}, Repeats: 3}, WithHooks(hooks))
	if !errors.Is(err, ErrInterrupted) || res == nil {
		t.Fatalf("err = %v, want ErrInterrupted with a result", err)
	}
	l := loadRun(t, dir)
	if l.run.Complete || l.run.Incomplete != "interrupted" ||
		!slices.ContainsFunc(l.run.Events, func(e schemas.RunEvent) bool { return e.Kind == "interrupted" }) {
		t.Errorf("run.json: complete %v incomplete %q events %+v", l.run.Complete, l.run.Incomplete, l.run.Events)
	}
	r2 := l.files["records/a/c4-r2.jsonl"]
	if len(r2) == 0 || len(r2) >= 44 {
		t.Errorf("second repeat has %d records, want some but not all", len(r2))
	}
	for _, r := range r2 {
		if !r.OK { // drained, not cancelled
			t.Errorf("in-flight request was not drained: %s %s", r.ErrorClass, r.Error)
		}
	}
	if _, ok := l.files["records/a/c4-r3.jsonl"]; ok {
		t.Error("a step started after the interrupt")
	}
}

func TestAPIKeyIsSentNeverWritten(t *testing.T) {
	const key = "sk-secret-do-not-write-4242"
	clips, sc := testCorpus(t, 1, 0.1)
	s, _ := sim.New(sim.Config{Corpus: sc})
	var unauth atomic.Int64
	guard := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			unauth.Add(1)
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		s.ServeHTTP(w, r)
	})
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: guard.URL}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{4}, Repeats: 1, Command: []string{"benchseal", "run"}}, WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if n := unauth.Load(); n != 0 {
		t.Errorf("%d requests without the key", n)
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			if strings.Contains(string(b), key) {
				t.Errorf("%s contains the API key", path)
			}
		}
		return nil
	})
}

// TestFirstVariantSkipsUsedVariants: with FirstVariant a run numbers each
// clip's variants from there, so under the same seed it sends none of the
// variants a run without it sent; and the budget counts the skipped ones.
func TestFirstVariantSkipsUsedVariants(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.1)
	srv := simServer(t, sim.Config{Corpus: sc})
	p := Plan{Targets: []Target{{Name: "a", URL: srv.URL}}, Corpus: clips, Levels: []int{2}, Requests: []int{6}, Repeats: 1, Seed: 9}
	inputs := func(dir string) (map[string]bool, map[string]int64) {
		sent, lowest := map[string]bool{}, map[string]int64{}
		for _, rs := range loadRun(t, dir).files {
			for _, r := range rs {
				sent[r.InputSHA256] = true
				if v, ok := lowest[r.Clip]; !ok || r.Variant < v {
					lowest[r.Clip] = r.Variant
				}
			}
		}
		return sent, lowest
	}
	first, _, err := runPlan(t, p)
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := inputs(first)
	p.FirstVariant = map[[32]byte]int64{clips[0].SHA256: 4, clips[1].SHA256: 4}
	second, _, err := runPlan(t, p)
	if err != nil {
		t.Fatal(err)
	}
	again, lowest := inputs(second)
	for h := range again {
		if sent[h] {
			t.Errorf("variant %s sent by both runs", h)
		}
	}
	if len(again) != len(sent) || lowest[clips[0].ID] != 4 || lowest[clips[1].ID] != 4 {
		t.Errorf("%d variants (want %d), lowest numbers %v (want 4 each)", len(again), len(sent), lowest)
	}
	p.FirstVariant[clips[0].SHA256] = clips[0].WAV.Samples() - 1
	if _, _, err := runPlan(t, p); !errors.As(err, new(*VariantBudgetError)) {
		t.Errorf("FirstVariant past the clip's samples: err = %v, want a *VariantBudgetError", err)
	}
}

// TestSecretsInURLAndFieldsNeverWritten: a password in the target URL
// (http://user:pw@host) and a secret-named form field (api_key=...) reach
// the server but no file of the run directory.
func TestSecretsInURLAndFieldsNeverWritten(t *testing.T) {
	const pw, fieldKey = "hunter2-url-password", "form-secret-4242"
	clips, sc := testCorpus(t, 1, 0.1)
	s, _ := sim.New(sim.Config{Corpus: sc})
	var bad atomic.Int64
	guard := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != pw {
			bad.Add(1)
		}
		if r.URL.Path == "/v1/audio/transcriptions" {
			// Read the body without parsing it, so the simulator still can
			// (a parsed form leaves it an empty body: HTTP 400).
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if !bytes.Contains(b, []byte("name=\"api_key\"\r\n\r\n"+fieldKey+"\r\n")) {
				bad.Add(1)
			}
		}
		s.ServeHTTP(w, r)
	})
	url := strings.Replace(guard.URL, "http://", "http://user:"+pw+"@", 1)
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: url, Fields: map[string]string{"api_key": fieldKey, "language": "en"}}},
		Corpus: clips, Levels: []int{1}, Requests: []int{2}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d requests without the credentials", n)
	}
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			if strings.Contains(string(b), pw) || strings.Contains(string(b), fieldKey) {
				t.Errorf("%s contains a secret", path)
			}
		}
		return nil
	})
	l := loadRun(t, dir)
	if got := l.run.Targets[0].RequestFields["language"]; got != "en" {
		t.Errorf("request field language = %q, want it kept", got)
	}
}

// TestHostileResponses: a body without end fails its request (decode)
// within the response limit instead of being buffered whole, and a stream
// event that is not JSON is a decode error, not a broken connection.
func TestHostileResponses(t *testing.T) {
	old := maxResponseBytes
	maxResponseBytes = 1 << 20
	t.Cleanup(func() { maxResponseBytes = old })
	clips, _ := testCorpus(t, 1, 0.1)
	var sent atomic.Int64
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"data":[{"id":"m"}]}`))
			return
		}
		if r.FormValue("stream") == "true" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: not json\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"`))
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for range 64 { // 4 MiB, past the 1 MiB limit
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
	})
	for _, stream := range []bool{false, true} {
		dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
			Levels: []int{1}, Requests: []int{2}, Warmup: []int{0}, Repeats: 1, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		l := loadRun(t, dir)
		for _, r := range l.recs {
			if r.OK || r.ErrorClass != schemas.ErrDecode {
				t.Errorf("stream=%v seq %d: ok %v class %q (%s), want a decode failure", stream, r.Seq, r.OK, r.ErrorClass, r.Error)
			}
			if len(r.Text) > 1<<20 {
				t.Errorf("stream=%v seq %d: %d bytes of text kept", stream, r.Seq, len(r.Text))
			}
		}
	}
}

// TestFewerRequestsThanConcurrencyIsNoted: a level that measures fewer
// requests than its concurrency never has C in flight; run.json says so.
func TestFewerRequestsThanConcurrencyIsNoted(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.1)
	ts := simServer(t, sim.Config{Corpus: sc})
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{2, 8}, Requests: []int{4}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if len(l.run.Notes) != 1 || !strings.Contains(l.run.Notes[0], "concurrency 8 measures only 4 requests") {
		t.Errorf("notes %q, want one about concurrency 8", l.run.Notes)
	}
}
