package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestTTSRoundTripEspeakSphinx runs the whole CLI against two real speech
// systems on loopback: espeak-ng synthesises every request's text
// (--task tts), and after the sweep PocketSphinx transcribes every
// produced answer (--asr-target). It checks that every measured answer
// was heard once, the audio sent being the one its record names; that
// claims.json's round-trip WER is the WER of the transcripts as recorded
// against the text spoken; that the round trip is bounded (espeak-ng's
// clear synthetic voice, heard by PocketSphinx's en-us model); and that
// verify recomputes the claims from the sealed files.
func TestTTSRoundTripEspeakSphinx(t *testing.T) {
	requireE2E(t)
	testkit.NeedSpeechTools(t, "espeak-ng", "sox", "pocketsphinx_continuous")
	tts, asr := testkit.EspeakServer(t), testkit.SphinxServer(t)
	dir := t.TempDir()
	if d := os.Getenv("RTKEEP_DIR"); d != "" {
		dir = d
	}
	if err := os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 7), 0o644); err != nil {
		t.Fatal(err)
	}
	var jl bytes.Buffer
	for i, s := range sphinxSentences {
		json.NewEncoder(&jl).Encode(map[string]string{"id": string(rune('a' + i)), "text": s, "ref_audio": "ref.wav", "ref_text": "noise"})
	}
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpus, jl.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--task", "tts", "--target", "espeak=" + tts.URL, "--corpus", corpus,
		"--concurrency", "1,2", "--requests", "4", "--repeats", "1", "--timeout", "60s",
		"--asr-target", "sphinx=" + asr.URL, "--out", out}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("benchseal run exit %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "benchseal: round trip: hearing 8 answers through sphinx (pocketsphinx-en-us), 4 at a time\n") ||
		!strings.Contains(stderr.String(), "benchseal: round trip: 8/8 sent, ") {
		t.Errorf("run's stderr does not say how the round trip went:\n%s", stderr.String())
	}
	var runDoc schemas.Run
	readJSON(t, filepath.Join(out, "run.json"), &runDoc)
	if rt := runDoc.Protocol.RoundTrip; rt == nil || rt.ASR != "sphinx" || rt.Model != "pocketsphinx-en-us" {
		t.Fatalf("run.json protocol.round_trip = %+v", rt)
	}
	var sum schemas.RoundTripASR
	readJSON(t, filepath.Join(out, schemas.RoundTripASRFile), &sum)
	if sum.Sent["espeak"] != 8 || sum.Heard["espeak"] != 8 || len(sum.Skipped) != 0 {
		t.Fatalf("roundtrip/asr.json: sent %v, heard %v, skipped %v; want 8 of 8 (2 levels x 4)", sum.Sent, sum.Heard, sum.Skipped)
	}
	heard := map[string]schemas.Heard{}
	b, err := os.ReadFile(filepath.Join(out, schemas.RoundTripPath("espeak")))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var h schemas.Heard
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatal(err)
		}
		heard[h.RequestID] = h
	}
	spoken := task.Spoken(runDoc)
	var pairs []score.Pair
	for _, c := range []int{1, 2} {
		b, err := os.ReadFile(filepath.Join(out, schemas.RecordsPath("espeak", c, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r schemas.Record
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			h, ok := heard[r.RequestID]
			if r.Phase != schemas.PhaseMeasure {
				if ok {
					t.Errorf("warm-up %s was sent to the ASR server", r.RequestID)
				}
				continue
			}
			a, _ := task.ParseAudio(r.Text)
			if !r.OK || !ok || h.AudioSHA256 != a.SHA256 || h.Status != 200 || h.StartNs < r.EndNs {
				t.Fatalf("record %s (ok %v): heard %+v, audio %s", r.RequestID, r.OK, h, a.SHA256)
			}
			t.Logf("c=%d %s: %q heard as %q", c, r.Clip, spoken[r.Clip], h.Text)
			if c == 1 {
				pairs = append(pairs, score.Pair{ID: r.Clip, Ref: spoken[r.Clip], Hyp: h.Text})
			}
		}
	}
	res, err := score.Score(pairs, score.Options{Normalizer: "whisper-en", Aligner: "unit"})
	if err != nil {
		t.Fatal(err)
	}
	var cl schemas.Claims
	readJSON(t, filepath.Join(out, schemas.ClaimsFile), &cl)
	got := cl.Targets[0].Levels[0].Repeats[0].Quality
	if got == nil || *got != res.Rate {
		t.Fatalf("claims round-trip WER at c=1 = %v, want the transcripts' %v", got, res.Rate)
	}
	// espeak-ng through PocketSphinx: "how are you doing" is heard word
	// for word (as in the ASR test, from a WAV made by sox: the round
	// trip sent the right audio at the right rate), the fox sentence
	// poorly (measured 9 of 13 words wrong over both: 0.692). The bound
	// holds what was measured; the same transcripts scored against each
	// other's text score worse, so the references are the texts spoken.
	for id, h := range heardByClip(heard) {
		if spoken[id] == "how are you doing" && h != "how are you doing" {
			t.Errorf("%q was heard as %q", spoken[id], h)
		}
	}
	if *got > 0.75 {
		t.Errorf("round-trip WER %.3f: over the 0.75 bound", *got)
	}
	var swapped []score.Pair
	for i, p := range pairs {
		swapped = append(swapped, score.Pair{ID: p.ID, Ref: pairs[(i+1)%len(pairs)].Ref, Hyp: p.Hyp})
	}
	sw, err := score.Score(swapped, score.Options{Normalizer: "whisper-en", Aligner: "unit"})
	if err != nil {
		t.Fatal(err)
	}
	if sw.Rate <= *got {
		t.Errorf("round-trip WER %.3f against the texts spoken, %.3f against each other's: the references do not tell", *got, sw.Rate)
	}
	stdout.Reset()
	if code := run([]string{"verify", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, stdout.String())
	}
	doctorRoundTrip(t, out)

	// A replay hears its audio through the sealed run's ASR server (its
	// roundtrip/asr.json): the same deterministic voice and recogniser
	// give the same round-trip WER. (Its exit status is not asserted:
	// espeak-ng's few-ms latencies move by more than replay's tolerance
	// on a loaded host.)
	rp := filepath.Join(dir, "rp")
	run([]string{"replay", out, "--out", rp}, strings.NewReader(""), &stdout, &stderr)
	var rsum schemas.RoundTripASR
	readJSON(t, filepath.Join(rp, schemas.RoundTripASRFile), &rsum)
	var rcl schemas.Claims
	readJSON(t, filepath.Join(rp, schemas.ClaimsFile), &rcl)
	if rsum.Name != "sphinx" || rsum.Heard["espeak"] != 8 {
		t.Fatalf("replay's roundtrip/asr.json: %+v, want sphinx hearing 8", rsum)
	}
	if q := rcl.Targets[0].Levels[0].Repeats[0].Quality; q == nil || *q != *got {
		t.Fatalf("replay's round-trip WER at c=1 %v, want the sealed %v", q, *got)
	}
}

// doctorRoundTrip edits copies of the round trip's files of run dir
// out: each edit must fail verify's check and kind named.
func doctorRoundTrip(t *testing.T, out string) {
	path := filepath.Join(out, filepath.FromSlash(schemas.RoundTripPath("espeak")))
	for _, tc := range []struct {
		name  string
		edit  func(h *schemas.Heard)
		check int
		kind  verify.Kind
	}{
		{"transcript edited", func(h *schemas.Heard) { h.Text = "the quick brown fox jumps over the lazy dog" }, verify.CheckClaims, verify.KindClaim},
		{"other audio heard", func(h *schemas.Heard) { h.AudioSHA256 = strings.Repeat("0", 64) }, verify.CheckProtocol, verify.KindRoundTrip},
		{"heard inside the sweep", func(h *schemas.Heard) { h.StartNs = 1 }, verify.CheckProtocol, verify.KindRoundTrip},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var h schemas.Heard
		json.Unmarshal([]byte(lines[0]), &h)
		tc.edit(&h)
		first, _ := json.Marshal(h)
		lines[0] = string(first)
		doctored := filepath.Join(dir, filepath.FromSlash(schemas.RoundTripPath("espeak")))
		if err := os.WriteFile(doctored, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := verify.Dir(context.Background(), dir, verify.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Check(tc.check)
		found := slices.ContainsFunc(c.Findings, func(f verify.Finding) bool { return f.Status == verify.Fail && f.Kind == tc.kind })
		if c.Status != verify.Fail || !found {
			t.Errorf("%s: check %d %s %s, findings %v: want a FAIL of kind %s", tc.name, tc.check, c.Status, c.Summary, c.Findings, tc.kind)
		}
	}
}

// TestRoundTripRefused: --asr-target needs --task tts, and an ASR server
// that does not answer stops the run before anything is measured.
func TestRoundTripRefused(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	clip := filepath.Join(dir, "a.wav")
	os.WriteFile(clip, testkit.NoiseWAV(1, 1), 0o644)
	code := run([]string{"run", "--target", "a=http://127.0.0.1:1", "--audio", clip, "--asr-target", "s=http://127.0.0.1:1",
		"--out", filepath.Join(dir, "run")}, strings.NewReader(""), &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "--asr-target hears produced audio: it needs --task tts") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}

	// An ASR server that does not answer: refused before measuring,
	// naming --asr-target, not the --target the runner's own hint names.
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni})
	if err != nil {
		t.Fatal(err)
	}
	tts := httptest.NewServer(srv)
	defer tts.Close()
	os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 2), 0o644)
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"id":"a","text":"hello","ref_audio":"ref.wav","ref_text":"x"}`+"\n"), 0o644)
	stderr.Reset()
	code = run([]string{"run", "--task", "tts", "--target", "a=" + tts.URL, "--corpus", filepath.Join(dir, "c.jsonl"),
		"--concurrency", "1", "--requests", "1", "--repeats", "1", "--asr-target", "s=http://127.0.0.1:1", "--out", filepath.Join(dir, "run2")},
		strings.NewReader(""), &stdout, &stderr)
	if msg := stderr.String(); code == 0 || !strings.Contains(msg, `--asr-target s (http://127.0.0.1:1) is not answering`) || strings.Contains(msg, "--target s=URL") {
		t.Fatalf("exit %d: %s", code, msg)
	}

	// A tts corpus's problem gets the text corpus's hint, not ASR's.
	os.WriteFile(filepath.Join(dir, "short.wav"), testkit.NoiseWAV(0.5, 2), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(`{"id":"a","text":"hello","ref_audio":"short.wav"}`+"\n"), 0o644)
	stderr.Reset()
	code = run([]string{"run", "--task", "tts", "--target", "a=" + tts.URL, "--corpus", filepath.Join(dir, "b.jsonl"), "--out", filepath.Join(dir, "run3")},
		strings.NewReader(""), &stdout, &stderr)
	if msg := stderr.String(); code == 0 || !strings.Contains(msg, "--task tts's --corpus is a text corpus") || strings.Contains(msg, "folder of .wav files") {
		t.Fatalf("exit %d: %s", code, msg)
	}
}

// heardByClip is one transcript per clip (PocketSphinx hears every
// variant of a clip alike: a one-LSB change of a reference clip does not
// change what espeak-ng says).
func heardByClip(heard map[string]schemas.Heard) map[string]string {
	out := map[string]string{}
	for _, h := range heard {
		out[h.Clip] = h.Text
	}
	return out
}
