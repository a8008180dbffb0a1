package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// The end-to-end test with a real speech recogniser: espeak-ng speaks
// sentences with known text, sox makes them 16 kHz 16-bit mono WAVs, and a
// real OpenAI-compatible HTTP server on loopback transcribes every request
// with CMU PocketSphinx (Debian's pocketsphinx + pocketsphinx-en-us). The
// whole CLI runs against it: `benchseal run`, then `benchseal score RUNDIR`.
//
// It checks the pipeline against a real model: every request sends a
// distinct variant; a clip the recogniser hears word for word is heard the
// same in every 1-LSB variant (PocketSphinx is deterministic, and a
// confident decision does not move by one LSB); and the WER in claims.json
// is the WER of the transcripts as recorded. A clip the recogniser hears
// poorly sits on knife-edge decisions, and one LSB can tip them: the test
// logs how many of its variants were heard differently, since that is
// what a server's cache would hide and what perturbed runs measure.

var sphinxSentences = []string{
	"the quick brown fox jumps over the lazy dog",
	"how are you doing",
}

func TestEndToEndWithPocketSphinx(t *testing.T) {
	requireE2E(t)
	testkit.NeedSpeechTools(t, "espeak-ng", "sox", "pocketsphinx_continuous")
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	original := map[string]string{} // clip id -> transcript of the unperturbed clip
	var refs, hyps []string
	for i, sentence := range sphinxSentences {
		id := fmt.Sprintf("utt%d", i)
		raw := filepath.Join(dir, id+"-22k.wav")
		wav := filepath.Join(corpus, id+".wav")
		if out, err := exec.Command("espeak-ng", "-w", raw, sentence).CombinedOutput(); err != nil {
			t.Fatalf("espeak-ng: %v: %s", err, out)
		}
		// -D: no dither, so the clip (and what PocketSphinx hears) is the
		// same on every run.
		if out, err := exec.Command("sox", "-D", raw, "-r", "16000", "-b", "16", "-c", "1", wav).CombinedOutput(); err != nil {
			t.Fatalf("sox: %v: %s", err, out)
		}
		if err := os.WriteFile(filepath.Join(corpus, id+".txt"), []byte(sentence+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		text, err := testkit.Transcribe(wav)
		if err != nil {
			t.Fatal(err)
		}
		if text == "" {
			t.Fatalf("pocketsphinx heard nothing in %s", wav)
		}
		original[id] = text
		t.Logf("%s: %q -> %q", id, sentence, text)
	}

	srv := testkit.SphinxServer(t)
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--target", "sphinx=" + srv.URL, "--corpus", corpus,
		"--concurrency", "1,2", "--requests", "4", "--repeats", "1", "--timeout", "60s", "--out", out},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("benchseal run exit %d:\n%s", code, stderr.String())
	}

	var runDoc schemas.Run
	readJSON(t, filepath.Join(out, "run.json"), &runDoc)
	ids := map[string]string{} // clip id -> reference
	for _, c := range runDoc.Corpus {
		ids[c.ID] = c.Text
	}
	files, _ := filepath.Glob(filepath.Join(out, "records", "sphinx", "*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("records files = %v, want one per level", files)
	}
	seen := map[string]bool{}
	differed := 0 // variants heard differently from their original
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var rec schemas.Record
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if !rec.OK {
				t.Errorf("%s seq %d failed: %s %s", f, rec.Seq, rec.ErrorClass, rec.Error)
			}
			if rec.SampleIndex < 0 || seen[rec.InputSHA256] {
				t.Errorf("%s seq %d: sample_index %d, input %s: want a distinct variant", f, rec.Seq, rec.SampleIndex, rec.InputSHA256)
			}
			seen[rec.InputSHA256] = true
			if want := original[rec.Clip]; rec.Text != want {
				if want == ids[rec.Clip] {
					t.Errorf("%s seq %d: a variant of %s, heard word for word unperturbed, was transcribed %q", f, rec.Seq, rec.Clip, rec.Text)
				}
				differed++
				t.Logf("%s seq %d: a variant of %s was heard as %q, the original as %q", f, rec.Seq, rec.Clip, rec.Text, want)
			}
			if rec.Phase == schemas.PhaseMeasure {
				refs = append(refs, ids[rec.Clip])
				hyps = append(hyps, rec.Text)
			}
		}
	}

	// The claims' WER is the WER of the measured transcripts (whisper-en, unit).
	var pairs []score.Pair
	for i := range refs {
		pairs = append(pairs, score.Pair{ID: fmt.Sprint(i), Ref: refs[i], Hyp: hyps[i]})
	}
	want, err := score.Score(pairs, score.Options{Normalizer: "whisper-en", Aligner: "unit"})
	if err != nil {
		t.Fatal(err)
	}
	var cl schemas.Claims
	readJSON(t, filepath.Join(out, "claims.json"), &cl)
	var measuredWER float64
	var n int
	for _, lv := range cl.Targets[0].Levels {
		for _, m := range lv.Repeats {
			if m.Quality == nil {
				t.Fatalf("c=%d: wer is null although the corpus has references", lv.Concurrency)
			}
			measuredWER += *m.Quality * float64(m.Succeeded)
			n += m.Succeeded
		}
	}
	// Each level sends every clip equally often, so the request-weighted mean
	// of the per-level WERs is the corpus WER.
	if got := measuredWER / float64(n); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", want.Rate) {
		t.Errorf("claims WER (request-weighted) = %.6f, scoring the records directly = %.6f", got, want.Rate)
	}
	// PocketSphinx hears espeak-ng's voice poorly, but not nothing: at least
	// one clip comes back word for word, and the corpus WER is below 1.
	exact := false
	for i, sentence := range sphinxSentences {
		exact = exact || original[fmt.Sprintf("utt%d", i)] == sentence
	}
	if !exact || want.Rate >= 1 {
		t.Errorf("WER %.3f, no clip heard word for word: the recogniser did not hear the speech", want.Rate)
	}
	t.Logf("corpus WER %.3f over %d measured requests; %d of %d variants heard differently from their original", want.Rate, n, differed, len(seen))

	// benchseal score RUNDIR rescoring the run agrees.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"score", out, "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("benchseal score exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf(`"substitutions": %d`, want.Substitutions)) {
		t.Errorf("benchseal score RUNDIR disagrees with direct scoring (S=%d):\n%s", want.Substitutions, stdout.String())
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
