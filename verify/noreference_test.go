package verify_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestNoReferenceItems: a tts run whose corpus has an item without a
// reference clip (a named voice) against the simulator's vllm-omni
// persona. Check 5 re-derives the voice-clone item's variants and holds
// the named-voice item's records to being sent unchanged (variant,
// sample_index and byte_offset -1, input_sha256 ""), and warns with its
// own kind (never a PASS saying every request was distinct); a record of
// that item edited to claim a variant fails.
func TestNoReferenceItems(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 3), 0o644))
	corpus := filepath.Join(dir, "c.jsonl")
	must(t, os.WriteFile(corpus, []byte(`{"id":"a","text":"Hello there, benchseal.","ref_audio":"ref.wav","ref_text":"noise"}`+"\n"+
		`{"id":"v","text":"A named voice speaks.","voice":"vivian"}`+"\n"), 0o644))
	clips, err := task.TTS.LoadCorpus(corpus)
	must(t, err)
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni})
	must(t, err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	run := filepath.Join(t.TempDir(), "run")
	plan := bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "t", URL: ts.URL, Model: srv.Config().Model}},
		Corpus: clips, Levels: []int{1}, Requests: []int{4}, Repeats: 1, Seed: 5, Warmup: []int{1},
		Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}}
	if _, err := bench.Run(context.Background(), run, plan); err != nil {
		t.Fatal(err)
	}
	var rj schemas.Run
	b, err := os.ReadFile(filepath.Join(run, schemas.RunFile))
	must(t, err)
	must(t, json.Unmarshal(b, &rj))
	if v := rj.Corpus[1]; v.Perturb != schemas.PerturbNoReference || v.File != "" || v.SHA256 != "" || v.Voice != "vivian" {
		t.Fatalf("run.json's named-voice entry: %+v", v)
	}
	if ents, _ := os.ReadDir(filepath.Join(run, "inputs")); len(ents) != 1 {
		t.Errorf("inputs/ holds %d files, want the one reference clip", len(ents))
	}
	recs := filepath.Join(run, schemas.RecordsPath("t", 1, 1))
	named := 0
	editLines(t, recs, func(_ int, line []byte) []byte {
		var r schemas.Record
		must(t, json.Unmarshal(line, &r))
		if r.Clip == "v" {
			named++
			if !r.OK || r.Variant != -1 || r.SampleIndex != -1 || r.ByteOffset != -1 || r.InputSHA256 != "" {
				t.Errorf("a named-voice record: %+v", r)
			}
		}
		return line
	})
	if named != 2 {
		t.Fatalf("%d named-voice records, want 2 (measured seqs 1 and 3)", named)
	}

	c5 := func(dir string) verify.Check {
		rep, err := verify.Dir(context.Background(), dir, verify.Options{})
		must(t, err)
		return *rep.Check(verify.CheckVariants)
	}
	c := c5(run)
	var warned *verify.Finding
	for i, f := range c.Findings {
		if f.Status == verify.Fail {
			t.Errorf("check 5: %s", f.Reason)
		}
		if f.Kind == verify.KindNoReference {
			warned = &c.Findings[i]
		}
	}
	if c.Status != verify.Warn || warned == nil || warned.Status != verify.Warn {
		t.Fatalf("check 5 is %v without its no-reference warning: %s %+v", c.Status, c.Summary, c.Findings)
	}
	for _, want := range []string{"1 of 2 corpus items have no reference clip", "their 2 requests had nothing to perturb and were sent unchanged", "a cache keyed by the text and voice could answer", "not observed", "ref_audio"} {
		if !strings.Contains(warned.Reason, want) {
			t.Errorf("the warning %q does not say %q", warned.Reason, want)
		}
	}
	if !strings.Contains(c.Summary, "3 variants re-derived") || !strings.Contains(c.Summary, "2 requests of items without a reference clip sent unchanged") {
		t.Errorf("check 5's summary: %s", c.Summary)
	}

	// A named-voice record that claims a variant, or a hash of bytes it
	// never sent, fails.
	for name, edit := range map[string]func(*schemas.Record){
		"variant": func(r *schemas.Record) { r.Variant, r.SampleIndex = 0, 10 },
		"sha256":  func(r *schemas.Record) { r.InputSHA256 = strings.Repeat("ab", 32) },
	} {
		doctored := filepath.Join(t.TempDir(), "run")
		copyDir(t, run, doctored)
		editLines(t, filepath.Join(doctored, schemas.RecordsPath("t", 1, 1)), func(_ int, line []byte) []byte {
			var r schemas.Record
			must(t, json.Unmarshal(line, &r))
			if r.Clip != "v" {
				return line
			}
			edit(&r)
			out, err := json.Marshal(r)
			must(t, err)
			return out
		})
		if c := c5(doctored); c.Status != verify.Fail || !strings.Contains(failures(c), "clip v has no reference clip") {
			t.Errorf("%s doctored: check 5 %v: %s", name, c.Status, failures(c))
		}
	}
}

func failures(c verify.Check) string {
	var s []string
	for _, f := range c.Findings {
		if f.Status == verify.Fail {
			s = append(s, f.Reason)
		}
	}
	return strings.Join(s, "; ")
}
