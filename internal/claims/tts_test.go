package claims

import (
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// ttsRun is one target, one level, one repeat of a tts run over two
// items: "x" speaks 10 characters, "y" 5 (a CJK text: code points, not
// bytes).
func ttsRun() schemas.Run {
	run := testRun()
	run.Protocol.Task, run.Protocol.SuccessRule, run.Protocol.Repeats = task.TTS.Name(), task.TTSSuccessRule, 1
	run.Targets = run.Targets[:1]
	run.Corpus = []schemas.Clip{{ID: "x", Seconds: 2, Speak: "0123456789"}, {ID: "y", Seconds: 2, Speak: "你好世界。"}}
	return run
}

// ttsRec is a measured tts record of clip that produced secs of audio,
// its first byte fb ms after start (first audio when streamed).
func ttsRec(clip string, start, fb, end int64, secs float64, streamed, ok bool) schemas.Record {
	r := rec("a", 1, schemas.PhaseMeasure, start, start+fb, end, ok, "", secs)
	r.Clip = clip
	r.Text = task.Audio{Format: "pcm", SampleRate: 24000, Channels: 1, Seconds: secs, RMSDBFS: -20, Stream: streamOf(streamed)}.String()
	if !ok {
		r.ErrorClass, r.Text = task.ErrSilent, task.Audio{Format: "pcm", SampleRate: 24000, Channels: 1, Seconds: secs, RMSDBFS: -90, Stream: streamOf(streamed)}.String()
	}
	return r
}

func TestComputeTTSByHand(t *testing.T) {
	run := ttsRun()
	recs := []schemas.Record{
		// a warm-up: not counted
		{Target: "a", Concurrency: 2, Repeat: 1, Phase: schemas.PhaseWarmup, Clip: "x", StartNs: 0, FirstByteNs: ms, EndNs: 9000 * ms, OK: true, Seconds: 1,
			Output: schemas.Output{Text: task.Audio{Format: "pcm", Seconds: 1, Stream: task.StreamSSE}.String()}},
		ttsRec("x", 0, 100, 1000, 2, true, true),    // RTF 0.5, first audio 0.1 s
		ttsRec("y", 0, 300, 2000, 1, true, true),    // RTF 2, first audio 0.3 s
		ttsRec("x", 1000, 200, 2000, 4, true, true), // RTF 0.25, first audio 0.2 s
		ttsRec("y", 2000, 50, 2500, 0.5, true, false),
	}
	cl, err := Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	m := cl.Targets[0].Levels[0].Repeats[0]
	eq := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || !near(*got, want) {
			t.Errorf("%s = %v, want %v", name, fval(got), want)
		}
	}
	// RTF sorted 0.25, 0.5, 2: p50 0.5; p95 = 0.5 + 0.9·1.5.
	eq("rtf_p50", m.Figure("rtf_p50"), 0.5)
	eq("rtf_p95", m.Figure("rtf_p95"), 0.5+0.9*1.5)
	// First audio 0.1, 0.2, 0.3.
	eq("first_audio_p50_s", m.Figure("first_audio_p50_s"), 0.2)
	eq("first_audio_p95_s", m.Figure("first_audio_p95_s"), 0.2+0.9*0.1)
	eq("first_audio_p99_s", m.Figure("first_audio_p99_s"), 0.2+0.98*0.1)
	// Successes produced 2+1+4 s over 10+5+10 characters; the silent one is not counted.
	eq("audio_s_per_char", m.Figure("audio_s_per_char"), 7.0/25)
	// rtfx: 7 s produced over a 2.5 s window.
	eq("rtfx", m.RTFx, 7/2.5)
	if m.Errors[task.ErrSilent] != 1 || m.Succeeded != 3 {
		t.Errorf("errors %v, succeeded %d; want one silent, 3 successes", m.Errors, m.Succeeded)
	}
	eq("median rtf_p50", cl.Targets[0].Levels[0].Median.Figure("rtf_p50"), 0.5)

	// Whole bodies: first_byte_ns is their headers, so no time to first
	// audio; a run.json without the texts spoken gives no s/char.
	for i := range recs {
		a, _ := task.ParseAudio(recs[i].Text)
		a.Stream = ""
		recs[i].Text = a.String()
	}
	for i := range run.Corpus {
		run.Corpus[i].Speak = ""
	}
	cl, err = Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	m = cl.Targets[0].Levels[0].Repeats[0]
	if m.Figure("first_audio_p50_s") != nil || m.Figure("first_audio_p99_s") != nil || m.Figure("audio_s_per_char") != nil {
		t.Errorf("first audio %v, s/char %v: want not observed (nil)", fval(m.Figure("first_audio_p50_s")), fval(m.Figure("audio_s_per_char")))
	}
	eq("rtf_p50 (whole bodies)", m.Figure("rtf_p50"), 0.5)
}

// An ASR run has no tts figures: the family is the tts task's alone.
func TestComputeNoTTSFiguresForASR(t *testing.T) {
	run := testRun()
	run.Protocol.Repeats = 1
	cl, err := Compute(run, oneRepeat("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	m := cl.Targets[0].Levels[0].Repeats[0]
	if m.Figure("rtf_p50") != nil || m.Figure("first_audio_p50_s") != nil || m.Figure("audio_s_per_char") != nil {
		t.Errorf("ASR claims carry tts figures: rtf %v, first audio %v", fval(m.Figure("rtf_p50")), fval(m.Figure("first_audio_p50_s")))
	}
}

// The tts figures are a later family: a sealed claims.json without any
// of them predates it.
func TestTTSIsALaterFamily(t *testing.T) {
	f := LaterOf("targets[a].levels[c=1].repeats[r=1].first_audio_p99_s")
	if f == nil || !Predates([]string{"targets[a].levels[c=1].repeats[r=1].rtfx"})[f.What] {
		t.Fatalf("first_audio_p99_s: family %v, want a later family an older claims.json predates", f)
	}
	if Predates([]string{"targets[a].levels[c=1].median.rtf_p50"})[f.What] {
		t.Errorf("a claims.json with rtf_p50 does not predate the tts family")
	}
}

// streamOf is the Stream of an answer read as a raw stream, or "" for a
// whole body.
func streamOf(streamed bool) string {
	if streamed {
		return task.StreamRaw
	}
	return ""
}
