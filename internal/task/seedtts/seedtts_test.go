package seedtts

import (
	"math"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

const ms = int64(time.Millisecond)

func fval(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func testRun() schemas.Run {
	return schemas.Run{
		Schema: schemas.RunSchema, Seed: 1,
		Protocol: schemas.Protocol{Levels: []int{2}, Requests: []int{4}, Warmup: []int{2}, Repeats: 3,
			Perturb: true, TimeoutS: 60, SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []schemas.Target{{Name: "a"}, {Name: "b"}},
		Corpus:  []schemas.Clip{{ID: "x", Seconds: 1}},
	}
}

// compatRun: three 16 kHz 16-bit mono clips; y carries a 100-byte extra
// chunk, which the seed client counts as audio; z has no reference.
func compatRun() (schemas.Run, []schemas.Record) {
	run := testRun()
	run.Targets = run.Targets[:1]
	run.Protocol.Repeats = 2
	clip := func(id, text string, frames int64, extra int64) schemas.Clip {
		return schemas.Clip{ID: id, Text: text, Size: 44 + 2*frames + extra, Format: "pcm", Frames: frames, Channels: 1,
			SampleRate: 16000, Bits: 16, ValidBits: 16, Seconds: float64(frames) / 16000}
	}
	run.Corpus = []schemas.Clip{clip("x", "the cat sat", 32000, 0), clip("y", "A dog ran.", 16000, 100), clip("z", "", 16000, 0)}
	secs := map[string]float64{"x": 2, "y": 1, "z": 1}
	var recs []schemas.Record
	for rep := 1; rep <= 2; rep++ {
		k := int64(rep) // repeat 2 takes twice as long
		mk := func(seq int, clipID string, start, end int64, status int, ok bool, class, text string) schemas.Record {
			return schemas.Record{Target: "a", Concurrency: 2, Repeat: rep, Phase: schemas.PhaseMeasure, Seq: seq, Clip: clipID,
				StartNs: k * start * ms, EndNs: k * end * ms, Status: status, OK: ok, ErrorClass: class, Output: schemas.Output{Text: text, Scored: text},
				InputSHA256: "00", Seconds: secs[clipID]}
		}
		recs = append(recs,
			mk(0, "x", 0, 500, 200, true, "", "the cat sat"),
			mk(1, "y", 0, 250, 200, false, schemas.ErrEmptyText, ""),
			mk(2, "x", 250, 300, 500, false, schemas.ErrHTTP, ""),
			mk(3, "z", 500, 1000, 200, true, "", "hello"),
			// A warm-up never counts.
			schemas.Record{Target: "a", Concurrency: 2, Repeat: rep, Phase: schemas.PhaseWarmup, Clip: "x", StartNs: -5000 * ms, EndNs: -4000 * ms, Status: 200, OK: true, Output: schemas.Output{Scored: "x"}})
	}
	return run, recs
}

// Worked out by hand from compatRun and the seed client's definitions
// (SeedTTSClaims):
//
//	successes (HTTP 200): x, y (empty text), z; evaluated: x, y (z has no
//	reference): 2 of 4, skipped 2. WER: x 0/3, y 3 deletions/3: 0.5, max 1.
//	window 1 s (repeat 2: 2 s). req/s: 2 evaluated / 1 s.
//	audio: x (64044-44)/32000 = 2, y (32144-44)/32000 = 1.003125, z 1:
//	rtfx round(4.003125, 3) = 4.003 (repeat 2: round(2.0015625, 3) = 2.002).
//	latencies x 0.5, y 0.25: mean 0.375, p95 0.25+0.95*0.25 = 0.4875.
//	rtf of successes: 0.25, 0.25/1.003125, 0.5: p95 0.25+0.9*0.25 = 0.475;
//	rtf_mean over x, y: (0.25 + 0.25/1.003125)/2.
func TestSeedTTSClaimsByHand(t *testing.T) {
	run, recs := compatRun()
	c, err := SeedTTSClaims(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	lv := c.Targets[0].Levels[0]
	r1 := lv.PerRepeat[0]
	if r1.Evaluated != 2 || r1.Total != 4 || r1.Skipped != 2 || lv.Evaluated != 4 || lv.Total != 8 || lv.Repeats != 2 {
		t.Errorf("counts: %+v / level %d %d %d", r1, lv.Evaluated, lv.Total, lv.Repeats)
	}
	for name, gw := range map[string][2]float64{
		"corpus_wer":      {*r1.CorpusWER, 0.5},
		"wer max":         {*r1.PerSampleWERMax, 1},
		"wall_clock_s":    {r1.WallClockS, 1},
		"throughput":      {r1.ThroughputSamplesPerS, 2},
		"latency_mean_s":  {*r1.LatencyMeanS, 0.375},
		"latency_p95_s":   {*r1.LatencyP95S, 0.4875},
		"rtf_mean":        {*r1.RTFMean, (0.25 + 0.25/1.003125) / 2},
		"rep 2 wall":      {lv.PerRepeat[1].WallClockS, 2},
		"rep 2 req/s":     {lv.PerRepeat[1].ThroughputSamplesPerS, 1},
		"req/s mean":      {*lv.Stats["throughput_samples_per_s"].Mean, 1.5},
		"latency p95 max": {*lv.Stats["latency_p95_s"].Max, 0.975},
	} {
		if math.Abs(gw[0]-gw[1]) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, gw[0], gw[1])
		}
	}
	// Rounded figures are exact.
	if r1.RTFx != 4.003 || lv.PerRepeat[1].RTFx != 2.002 || *r1.RTFP95 != 0.475 {
		t.Errorf("rtfx %v / %v, rtf_p95 %v", r1.RTFx, lv.PerRepeat[1].RTFx, *r1.RTFP95)
	}
	if st := lv.Stats["rtfx"]; *st.Mean != (4.003+2.002)/2 || *st.Min != 2.002 || *st.Max != 4.003 || st.N != 2 {
		t.Errorf("rtfx over repeats: %+v", st)
	}
	// benchseal's own claims count the empty transcript as a failure and
	// the frames as audio: the two quantities differ on the same records.
	own, err := claims.Compute(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	if m := own.Targets[0].Levels[0].Repeats[0]; m.Succeeded != 2 || fval(m.RTFx) != 3 {
		t.Errorf("benchseal's own: succeeded %d rtfx %v", m.Succeeded, fval(m.RTFx))
	}
}
