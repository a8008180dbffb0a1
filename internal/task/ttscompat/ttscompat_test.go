package ttscompat

import (
	"math"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// One repeat of five measured requests over a 2 s window: a success, a
// 200 with silent audio, a 200 with no audio, a stream that broke off,
// an HTTP 500. vLLM-Omni's client counts the first three, SGLang-Omni's
// the first two; benchseal one.
func TestCompute(t *testing.T) {
	run := schemas.Run{Protocol: schemas.Protocol{Task: task.TTS.Name()}, Targets: []schemas.Target{{Name: "a"}}}
	ms := int64(1e6)
	audio := func(secs, rms float64, first bool) string {
		return task.Audio{Format: "pcm", SampleRate: 24000, Channels: 1, Seconds: secs, RMSDBFS: rms, Stream: map[bool]string{true: task.StreamRaw}[first]}.String()
	}
	rec := func(start, fb, end int64, status int, ok bool, class, text string) schemas.Record {
		return schemas.Record{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: start * ms, FirstByteNs: fb * ms, EndNs: end * ms,
			Status: status, OK: ok, ErrorClass: class, Output: schemas.Output{Text: text}}
	}
	recs := []schemas.Record{
		{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseWarmup, Status: 200, OK: true, Output: schemas.Output{Text: audio(9, -20, true)}},
		rec(0, 100, 500, 200, true, "", audio(1, -20, true)),                       // RTF 0.5
		rec(500, 600, 1500, 200, false, task.ErrSilent, audio(2, -90, true)),       // RTF 0.5
		rec(1500, 1550, 1600, 200, false, task.ErrTooShort, audio(0, -200, false)), // no audio
		rec(1600, 1650, 1900, 200, false, schemas.ErrStreamTruncated, ""),          // broke off
		rec(1900, 1990, 2000, 500, false, schemas.ErrHTTP, ""),                     // HTTP 500
	}
	for _, tc := range []struct {
		peer      string
		completed int
		secs      float64
		counted   map[string]int
	}{
		{VLLMOmni, 3, 3, map[string]int{task.ErrSilent: 1, task.ErrTooShort: 1}},
		{SGLangOmni, 2, 3, map[string]int{task.ErrSilent: 1}},
	} {
		v, err := Compute(tc.peer, run, recs)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Rows) != 1 {
			t.Fatalf("%s: %d rows", tc.peer, len(v.Rows))
		}
		f := v.Rows[0]
		if f.Requests != 5 || f.Completed != tc.completed || f.Benchseal != 1 || len(f.CountedFailed) != len(tc.counted) {
			t.Errorf("%s: %+v, want %d completed, 1 benchseal success, counted %v", tc.peer, f, tc.completed, tc.counted)
		}
		for c, n := range tc.counted {
			if f.CountedFailed[c] != n {
				t.Errorf("%s: counted %v, want %v", tc.peer, f.CountedFailed, tc.counted)
			}
		}
		if f.WallS != 2 || math.Abs(f.AudioThroughput-tc.secs/2) > 1e-12 || math.Abs(f.ThroughputQPS-float64(tc.completed)/2) > 1e-12 {
			t.Errorf("%s: wall %v, audio s/s %v, qps %v", tc.peer, f.WallS, f.AudioThroughput, f.ThroughputQPS)
		}
		if f.RTFMean == nil || math.Abs(*f.RTFMean-0.5) > 1e-12 || f.TTFPMedianMs == nil || math.Abs(*f.TTFPMedianMs-100) > 1e-9 {
			t.Errorf("%s: RTF mean %v, TTFP median %v ms; want 0.5 and 100", tc.peer, f.RTFMean, f.TTFPMedianMs)
		}
		var b strings.Builder
		if err := v.WriteTable(&b, func(s string) string { return s }); err != nil || !strings.Contains(b.String(), "--compat "+tc.peer) || !strings.Contains(b.String(), "silent 1") {
			t.Errorf("%s table: %v\n%s", tc.peer, err, b.String())
		}
	}
	if _, err := Compute(VLLMOmni, schemas.Run{}, nil); err == nil {
		t.Error("an ASR run accepted")
	}
	if _, err := Compute("nope", run, recs); err == nil {
		t.Error("an unknown peer accepted")
	}
}
