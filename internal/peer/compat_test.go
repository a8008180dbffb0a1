package peer

import (
	"fmt"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/task/seedtts"
	"github.com/benchseal/benchseal/schemas"
)

// benchseal's --compat seedtts figures are the seed client's quantities:
// written out as the seed client would have written the same requests
// (its raw files and result JSON), every figure holds under this
// package's independent reading of the seed client's definitions.
func TestCompatFiguresHoldAsPeerFiles(t *testing.T) {
	ms := int64(time.Millisecond)
	clip := func(id, text string, frames, extra int64) schemas.Clip {
		return schemas.Clip{ID: id, Text: text, Size: 44 + 2*frames + extra, Format: "pcm", Frames: frames, Channels: 1,
			SampleRate: 16000, Bits: 16, ValidBits: 16, Seconds: float64(frames) / 16000}
	}
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{2}, Repeats: 2},
		Scoring: schemas.Scoring{Normalizer: score.NormalizerWhisperEN, Aligner: score.AlignerUnit},
		Targets: []schemas.Target{{Name: "a"}},
		Corpus: []schemas.Clip{clip("w", "The colour of the sea.", 40000, 0), clip("x", "the cat sat", 32000, 0),
			clip("y", "A dog ran.", 16000, 100), clip("z", "", 16000, 0)}}
	var recs []schemas.Record
	for rep := 1; rep <= 2; rep++ {
		k := int64(rep + 1)
		mk := func(seq int, c string, start, end int64, status int, ok bool, class, text string) schemas.Record {
			return schemas.Record{Target: "a", Concurrency: 2, Repeat: rep, Phase: schemas.PhaseMeasure, Seq: seq, Clip: c,
				StartNs: k * start * ms, EndNs: k * (end + int64(rep)) * ms, Status: status, OK: ok, ErrorClass: class, Output: schemas.Output{Scored: text}}
		}
		recs = append(recs,
			mk(0, "w", 0, 700, 200, true, "", "the color of sea"),
			mk(1, "x", 0, 500, 200, true, "", "the cat sat"),
			mk(2, "y", 500, 750, 200, false, schemas.ErrEmptyText, ""),
			mk(3, "z", 700, 1300, 200, true, "", "hello"))
		if rep == 2 {
			recs[len(recs)-2] = mk(2, "y", 500, 560, 500, false, schemas.ErrHTTP, "")
		}
	}
	c, err := seedtts.SeedTTSClaims(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	clips := map[string]schemas.Clip{}
	for _, cl := range run.Corpus {
		clips[cl.ID] = cl
	}
	fsys := fstest.MapFS{}
	lv := c.Targets[0].Levels[0]
	var reps []any
	for _, f := range lv.PerRepeat {
		var raw string
		rs := slices.DeleteFunc(slices.Clone(recs), func(r schemas.Record) bool { return r.Repeat != f.Repeat })
		for _, r := range rs {
			cl := clips[r.Clip]
			s := sample{id: r.Clip, refText: cl.Text, wer: nil}
			if r.Status != 200 || !(r.OK || r.ErrorClass == schemas.ErrEmptyText) {
				s.err = fmt.Sprintf("HTTP %d: boom", r.Status)
			} else {
				s.hypText = r.Scored
				s.refNorm, _ = score.Normalize(score.NormalizerWhisperEN, s.refText)
				s.hypNorm, _ = score.Normalize(score.NormalizerWhisperEN, s.hypText)
				s.audio, s.latency = seedtts.SeedTTSAudioSeconds(cl), float64(r.EndNs-r.StartNs)/1e9
				if s.refNorm == "" {
					s.err = emptyRefError
				} else {
					res, err := score.Score([]score.Pair{{ID: s.id, Ref: s.refNorm, Hyp: s.hypNorm}},
						score.Options{Normalizer: score.NormalizerNone, Aligner: score.AlignerUnit})
					if err != nil {
						t.Fatal(err)
					}
					s.ok, s.wer = true, res.Rate
				}
			}
			raw += s.line() + "\n"
		}
		fsys[fmt.Sprintf("raw/conc2_rep%d.jsonl", f.Repeat)] = &fstest.MapFile{Data: []byte(raw)}
		o := obj{{"concurrency", 2}, {"repeat", f.Repeat}, {"evaluated", f.Evaluated}, {"total", f.Total}, {"skipped", f.Skipped},
			{"corpus_wer", opt(f.CorpusWER)}, {"per_sample_wer_max", opt(f.PerSampleWERMax)}, {"wall_clock_s", f.WallClockS},
			{"throughput_samples_per_s", f.ThroughputSamplesPerS}, {"rtfx", f.RTFx}, {"latency_mean_s", opt(f.LatencyMeanS)},
			{"latency_median_s", opt(f.LatencyMedianS)}, {"latency_p95_s", opt(f.LatencyP95S)}, {"latency_p99_s", opt(f.LatencyP99S)},
			{"rtf_mean", opt(f.RTFMean)}, {"rtf_p95", opt(f.RTFP95)}}
		reps = append(reps, o)
	}
	agg := obj{{"concurrency", 2}, {"repeats", lv.Repeats}, {"evaluated", lv.Evaluated}, {"total", lv.Total}, {"skipped", lv.Skipped}}
	for _, name := range seedtts.SeedTTSStatNames {
		st := lv.Stats[name]
		agg = append(agg, kv{name, obj{{"mean", opt(st.Mean)}, {"min", opt(st.Min)}, {"max", opt(st.Max)}, {"n", st.N}}})
	}
	agg = append(agg, kv{"per_repeat", reps})
	fsys["result.json"] = &fstest.MapFile{Data: []byte(pyDump(obj{{"config", obj{{"lang", "en"}, {"num_samples", 4},
		{"concurrencies", []any{2}}, {"repeats", 2}}}, {"results", []any{agg}}}, 2))}

	rep := checkSeed(t, fsys)
	if !rep.OK() {
		t.Fatalf("broken: %q", brokenList(rep))
	}
	if rep.NotObserved != 2 { // wall_clock_s of each repeat: no timestamps in the peer's files
		t.Errorf("%d not observed", rep.NotObserved)
	}
	// The quantities differ from benchseal's own where the issue says: the
	// empty transcript is evaluated (as deletions), y's extra chunk is audio.
	if r1 := lv.PerRepeat[0]; r1.Evaluated != 3 || r1.Skipped != 1 || *r1.PerSampleWERMax != 1 {
		t.Errorf("repeat 1: %+v", r1)
	}
}

func opt(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
