package verify_test

// Doctored kinds of issue 28: a tts run (checks 5, 6 and 7), sealed.
// Their base is ttsRun: the runner with --task tts against a loopback
// simulated vLLM-Omni streaming raw PCM (stream_format "audio"), two
// items, levels 1 and 2.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, ttsKinds) }

var ttsBase struct {
	once sync.Once
	dir  string
}

// ttsStepFile is the tts step the kinds doctor.
const ttsStepFile = "records/a/c2-r1.jsonl"

func ttsRun(tb testing.TB) string {
	ttsBase.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "tts-")
		must(tb, err)
		must(tb, os.WriteFile(filepath.Join(base, "ref.wav"), makeWAV(1.5, 31), 0o644))
		var jl bytes.Buffer
		for i, text := range []string{"Benchseal measures speech servers.", "The quick brown fox jumps over the lazy dog."} {
			json.NewEncoder(&jl).Encode(map[string]string{"id": string(rune('a' + i)), "text": text, "ref_audio": "ref.wav", "ref_text": "noise"})
		}
		corpus := filepath.Join(base, "c.jsonl")
		must(tb, os.WriteFile(corpus, jl.Bytes(), 0o644))
		clips, err := task.TTS.LoadCorpus(corpus)
		must(tb, err)
		s, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 20 * time.Millisecond})
		must(tb, err)
		ts := httptest.NewServer(s)
		defer ts.Close()
		defer s.Close()
		dir := filepath.Join(base, "run")
		_, err = bench.Run(context.Background(), dir, bench.Plan{Task: task.TTS, Stream: true,
			Targets: []bench.Target{{Name: "a", URL: ts.URL, Fields: map[string]string{"stream_format": "audio", "response_format": "pcm"}}},
			Corpus:  clips, Levels: []int{1, 2}, Requests: []int{6}, Warmup: []int{1}, Repeats: 1, Seed: 28,
			Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}},
			bench.WithTool(testTool()))
		must(tb, err)
		refresh(tb, dir)
		ttsBase.dir = dir
	})
	if ttsBase.dir == "" {
		tb.Fatal("the tts base run failed to build")
	}
	return ttsBase.dir
}

// editAudio rewrites the audio facts of the records of the tts step
// through fn (a record's index among the step's, its facts).
func editAudio(tb testing.TB, fn func(i int, r *schemas.Record, a *task.Audio)) func(tb testing.TB, dir string) {
	return func(tb testing.TB, dir string) {
		editOpenRecords(tb, dir, ttsStepFile, func(rs []schemas.Record) []schemas.Record {
			for i := range rs {
				a, err := task.ParseAudio(rs[i].Text)
				must(tb, err)
				fn(i, &rs[i], &a)
				rs[i].Text = a.String()
			}
			return rs
		})
		refresh(tb, dir)
	}
}

// firstMeasured is fn on the step's first measured record only.
func firstMeasured(fn func(r *schemas.Record, a *task.Audio)) func(i int, r *schemas.Record, a *task.Audio) {
	done := false
	return func(_ int, r *schemas.Record, a *task.Audio) {
		if !done && r.Phase == schemas.PhaseMeasure {
			fn(r, a)
			done = true
		}
	}
}

func ttsKinds() []kind {
	fail, warn := verify.Fail, verify.Warn
	return []kind{
		// A record's audio_seconds doubled, its output left: RTFx and
		// s/char inflated, claims.json recomputed to agree.
		{name: "tts-audio-seconds-inflated", class: "tts", check: 5, status: fail, base: ttsRun,
			text: "but the output the record keeps is",
			doctor: func(tb testing.TB, dir string) {
				editAudio(tb, firstMeasured(func(r *schemas.Record, a *task.Audio) { r.Seconds *= 2 }))(tb, dir)
			}},
		// The output's seconds doubled, audio_seconds left.
		{name: "tts-output-seconds-inflated", class: "tts", check: 5, status: fail, base: ttsRun,
			text: "but the output the record keeps is",
			doctor: func(tb testing.TB, dir string) {
				editAudio(tb, firstMeasured(func(r *schemas.Record, a *task.Audio) { a.Seconds *= 2 }))(tb, dir)
			}},
		// Both doubled, consistently inside the record: only another
		// record of the same produced audio (its SHA-256) can tell.
		{name: "tts-seconds-inflated-consistently", class: "tts", check: 5, status: fail, base: ttsRun,
			text: "the same audio (SHA-256",
			doctor: func(tb testing.TB, dir string) {
				editAudio(tb, firstMeasured(func(r *schemas.Record, a *task.Audio) { a.Seconds *= 2; r.Seconds = a.Seconds }))(tb, dir)
			}},
		// A silent answer (digital silence) counted as a success.
		{name: "tts-silent-counted-ok", class: "tts", check: 7, status: fail, base: ttsRun,
			text: "the rule's failure class: silent, HTTP 200 with silent audio",
			doctor: func(tb testing.TB, dir string) {
				editAudio(tb, firstMeasured(func(r *schemas.Record, a *task.Audio) {
					a.RMSDBFS, a.LongestSilence = -200, a.Seconds
					r.OK, r.ErrorClass, r.Error = true, "", ""
				}))(tb, dir)
			}},
		// A tts claim edited in claims.json (and REPORT.md rendered from it).
		{name: "tts-claim-rtf-edited", class: "tts", check: 6, status: fail, base: ttsRun,
			text: "rtf_p50",
			doctor: func(tb testing.TB, dir string) {
				editClaims(tb, dir, func(m *schemas.Metrics) { m.Figures["rtf_p50"] /= 2 })
			}},
		{name: "tts-claim-first-audio-edited", class: "tts", check: 6, status: fail, base: ttsRun,
			text: "first_audio_p99_s",
			doctor: func(tb testing.TB, dir string) {
				editClaims(tb, dir, func(m *schemas.Metrics) { m.Figures["first_audio_p99_s"] /= 2 })
			}},
		// Every tts figure left out: the claims look sealed by a build
		// that did not compute them, a WARN that says so, never a PASS.
		{name: "tts-claims-family-dropped", class: "tts", check: 6, status: warn, base: ttsRun,
			text: "not computed by the build that sealed it",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				forEachMetrics(&cl, func(m *schemas.Metrics) {
					m.Figures = nil
				})
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			}},
	}
}

func forEachMetrics(cl *schemas.Claims, fn func(m *schemas.Metrics)) {
	for i := range cl.Targets {
		for j := range cl.Targets[i].Levels {
			l := &cl.Targets[i].Levels[j]
			for k := range l.Repeats {
				fn(&l.Repeats[k])
			}
			fn(&l.Median)
			fn(&l.Min)
			fn(&l.Max)
		}
	}
}

// editClaims edits the first repeat of the last level of claims.json
// through fn and renders REPORT.md from it.
func editClaims(tb testing.TB, dir string, fn func(m *schemas.Metrics)) {
	var cl schemas.Claims
	getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
	ls := cl.Targets[0].Levels
	fn(&ls[len(ls)-1].Repeats[0])
	putJSON(tb, filepath.Join(dir, "claims.json"), cl)
	writeReport(tb, dir)
}

// TestCorpusTTSBase: the honest tts run, sealed, passes checks 5, 6 and
// 7 (7 may WARN for a saturated client on a loaded host), and its claims
// carry the tts figures: time to first audio observed (a raw stream),
// RTF and s/char.
func TestCorpusTTSBase(t *testing.T) {
	dir := ttsRun(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	must(t, err)
	s, err := bundle.NewSigner(key)
	must(t, err)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})),
		verify.Options{PublicKey: key.Public(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256})
	must(t, err)
	for _, id := range []int{verify.CheckVariants, verify.CheckClaims, verify.CheckProtocol} {
		c := rep.Check(id)
		if c.Status == verify.Fail || (id != verify.CheckProtocol && c.Status != verify.Pass) {
			b, _ := json.MarshalIndent(c, "", "  ")
			t.Errorf("check %d of the tts base run: %s\n%s", id, c.Status, b)
		}
	}
	t.Logf("check 5: %s; check 6: %s", rep.Check(verify.CheckVariants).Summary, rep.Check(verify.CheckClaims).Summary)
	var cl schemas.Claims
	getJSON(t, filepath.Join(dir, "claims.json"), &cl)
	for _, l := range cl.Targets[0].Levels {
		m := l.Median
		if m.Figure("first_audio_p50_s") == nil || m.Figure("first_audio_p99_s") == nil || m.Figure("rtf_p50") == nil || m.Figure("audio_s_per_char") == nil || m.Succeeded == 0 {
			t.Errorf("c=%d: tts figures missing: %+v", l.Concurrency, m)
			continue
		}
		// The simulator speaks 0.07 s per character.
		if d := *m.Figure("audio_s_per_char") - sim.SpeechSecondsPerChar; d < -0.001 || d > 0.001 {
			t.Errorf("c=%d: audio_s_per_char %v, want the simulator's %v", l.Concurrency, *m.Figure("audio_s_per_char"), sim.SpeechSecondsPerChar)
		}
		if *m.Figure("first_audio_p50_s") >= *m.LatencyP50S {
			t.Errorf("c=%d: first audio p50 %v not before the end (latency p50 %v): not the stream's first audio", l.Concurrency, *m.Figure("first_audio_p50_s"), *m.LatencyP50S)
		}
	}
}

// TestSpeechKnobsCompared: a tts run compares its targets'
// initial_codec_chunk_frames (their first audio depends on it): from
// their request fields; a target without it is not observed (WARN), two
// values differ (WARN), one value for all is held.
func TestSpeechKnobsCompared(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b map[string]string
		text string
	}{
		{"differs", map[string]string{"initial_codec_chunk_frames": "1"}, map[string]string{"initial_codec_chunk_frames": "4"},
			"initial codec chunk frames differs: a 1 (declared: request field initial_codec_chunk_frames); b 4 (declared: request field initial_codec_chunk_frames)"},
		{"not-observed", map[string]string{"initial_codec_chunk_frames": "1"}, nil, "initial codec chunk frames: not observed on b"},
		{"held", map[string]string{"initial_codec_chunk_frames": "2"}, map[string]string{"initial_codec_chunk_frames": "2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, ttsRun(t), dir)
			var run schemas.Run
			getJSON(t, filepath.Join(dir, "run.json"), &run)
			b := run.Targets[0]
			b.Name = "b"
			run.Targets = append(run.Targets, b)
			run.Targets[0].RequestFields = map[string]string{}
			run.Targets[1].RequestFields = map[string]string{}
			maps.Copy(run.Targets[0].RequestFields, tc.a)
			maps.Copy(run.Targets[1].RequestFields, tc.b)
			out, err := json.MarshalIndent(run, "", "  ")
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, "run.json"), out, 0o644))
			rep, err := verify.Dir(context.Background(), dir, verify.Options{})
			must(t, err)
			c := rep.Check(verify.CheckFairness)
			var all []string
			for _, f := range c.Findings {
				all = append(all, f.Reason)
			}
			text := strings.Join(all, "\n")
			if tc.text != "" && !strings.Contains(text, tc.text) {
				t.Errorf("no finding %q in\n%s", tc.text, text)
			}
			if tc.text == "" && strings.Contains(text, "initial codec chunk frames") {
				t.Errorf("held knob reported:\n%s", text)
			}
		})
	}
}
