package task_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestTTSEspeakEndToEnd measures espeak-ng behind the loopback server
// through the runner, and verifies the run directory: every record a
// success with espeak-ng's own duration, its first output and produced
// seconds recorded, and checks 5, 6 and 7 hold under the tts task.
func TestTTSEspeakEndToEnd(t *testing.T) {
	espeak, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Skip("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
	}
	ts := testkit.EspeakServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 7), 0o644); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"a": "The quick brown fox jumps over the lazy dog.", "b": "Benchseal measures speech servers."}
	var jl bytes.Buffer
	for _, id := range []string{"a", "b"} {
		json.NewEncoder(&jl).Encode(map[string]string{"id": id, "text": texts[id], "ref_audio": "ref.wav", "ref_text": "noise"})
	}
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpus, jl.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	clips, err := task.TTS.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	// espeak-ng's own duration of each text, decoded the task's way.
	want := map[string]float64{}
	for id, s := range texts {
		out, err := exec.Command(espeak, "--stdout", "-v", "en", s).Output()
		if err != nil {
			t.Fatal(err)
		}
		text, _, _ := task.TTS.Decode(nil, "audio/wav", out)
		a, _ := task.ParseAudio(text)
		want[id] = a.Seconds
	}
	run := filepath.Join(dir, "run")
	plan := bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "espeak", URL: ts.URL, Model: "espeak-ng"}},
		Corpus: clips, Levels: []int{1}, Requests: []int{4}, Seed: 11,
		Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}}
	if _, err := bench.Run(context.Background(), run, plan); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run, schemas.RecordsPath("espeak", 1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r schemas.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		a, err := task.ParseAudio(r.Text)
		if !r.OK || err != nil || r.Seconds != want[r.Clip] || a.SampleRate != 22050 || r.FirstByteNs <= r.StartNs {
			t.Fatalf("record %s %d: ok %v %s %s, seconds %v (espeak-ng's %v)", r.Clip, r.Seq, r.OK, r.ErrorClass, r.Text, r.Seconds, want[r.Clip])
		}
		t.Logf("%s %s: %.3f s at %d Hz (%s), RMS %.1f dBFS, longest silence %.3f s, first audio %.1f ms, latency %.1f ms",
			r.Phase, r.Clip, a.Seconds, a.SampleRate, a.RateFrom, a.RMSDBFS, a.LongestSilence,
			float64(r.FirstByteNs-r.StartNs)/1e6, float64(r.EndNs-r.StartNs)/1e6)
	}
	rep, err := verify.Dir(context.Background(), run, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{verify.CheckVariants, verify.CheckClaims, verify.CheckProtocol} {
		// check 7 may WARN on a loaded host (a saturated client); 5 and 6 must hold.
		if c := rep.Check(id); c.Status == verify.Fail || (id != verify.CheckProtocol && c.Status != verify.Pass) {
			t.Errorf("check %d %s: %s %s %v", id, c.Name, c.Status, c.Summary, c.Findings)
		}
	}
}
