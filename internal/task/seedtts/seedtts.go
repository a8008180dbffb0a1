package seedtts

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
)

// groupKey is one target, level and repeat.
type groupKey struct {
	target      string
	concurrency int
	repeat      int
}

// CompatSeedTTS names the SGLang-Omni seed client's definitions (see
// SeedTTSClaims), for --compat.
const CompatSeedTTS = "seedtts"

// Task is the task whose runs the seed client's definitions apply to: it
// transcribes clips and scores their WER.
const Task = "asr"

// Compats are the peers whose definitions benchseal can apply to its own
// records.
var Compats = []string{CompatSeedTTS}

// SeedTTSResidual is what no mode removes: the seed client's own overhead.
const SeedTTSResidual = "the seed client's own per-request overhead (Python asyncio + aiohttp, multipart built per request): " +
	"about 1-2 ms per request at C<=8 and 5-7 ms at C=32 on a fast server, so on the same server benchseal reports a few % more req/s " +
	"and RTFx, and slightly lower latencies, than the seed client would"

// SeedTTSFigures are one level/repeat of benchseal's records under the
// seed client's definitions, named as benchmark_asr_seedtts.py names them
// in its result JSON (per_repeat).
type SeedTTSFigures struct {
	Repeat                int      `json:"repeat"`
	Evaluated             int      `json:"evaluated"`
	Total                 int      `json:"total"`
	Skipped               int      `json:"skipped"`
	CorpusWER             *float64 `json:"corpus_wer"`
	PerSampleWERMax       *float64 `json:"per_sample_wer_max"`
	WallClockS            float64  `json:"wall_clock_s"`
	ThroughputSamplesPerS float64  `json:"throughput_samples_per_s"`
	RTFx                  float64  `json:"rtfx"`
	LatencyMeanS          *float64 `json:"latency_mean_s"`
	LatencyMedianS        *float64 `json:"latency_median_s"`
	LatencyP95S           *float64 `json:"latency_p95_s"`
	LatencyP99S           *float64 `json:"latency_p99_s"`
	RTFMean               *float64 `json:"rtf_mean"`
	RTFP95                *float64 `json:"rtf_p95"`
}

// Stat is the seed client's summary of a figure over repeats: the mean,
// min and max of the repeats where it is not null, and how many those are.
type Stat struct {
	Mean *float64 `json:"mean"`
	Min  *float64 `json:"min"`
	Max  *float64 `json:"max"`
	N    int      `json:"n"`
}

// SeedTTSLevel is one level over its repeats, as the seed client's
// _aggregate gives it.
type SeedTTSLevel struct {
	Concurrency int              `json:"concurrency"`
	Repeats     int              `json:"repeats"`
	Evaluated   int              `json:"evaluated"`
	Total       int              `json:"total"`
	Skipped     int              `json:"skipped"`
	Stats       map[string]Stat  `json:"stats"` // by the figure's JSON name
	PerRepeat   []SeedTTSFigures `json:"per_repeat"`
}

// SeedTTSTarget is one target's levels.
type SeedTTSTarget struct {
	Target string         `json:"target"`
	Levels []SeedTTSLevel `json:"levels"`
}

// SeedTTSCompat is a run under the seed client's definitions.
type SeedTTSCompat struct {
	Compat   string          `json:"compat"`
	Residual string          `json:"residual"`
	Targets  []SeedTTSTarget `json:"targets"`
}

// SeedTTSStatNames are the figures summarised over repeats, in the seed
// client's order.
var SeedTTSStatNames = []string{"corpus_wer", "per_sample_wer_max", "wall_clock_s", "throughput_samples_per_s", "rtfx",
	"latency_mean_s", "latency_median_s", "latency_p95_s", "latency_p99_s", "rtf_mean", "rtf_p95"}

func (f *SeedTTSFigures) stat(name string) *float64 {
	switch name {
	case "corpus_wer":
		return f.CorpusWER
	case "per_sample_wer_max":
		return f.PerSampleWERMax
	case "wall_clock_s":
		return &f.WallClockS
	case "throughput_samples_per_s":
		return &f.ThroughputSamplesPerS
	case "rtfx":
		return &f.RTFx
	case "latency_mean_s":
		return f.LatencyMeanS
	case "latency_median_s":
		return f.LatencyMedianS
	case "latency_p95_s":
		return f.LatencyP95S
	case "latency_p99_s":
		return f.LatencyP99S
	case "rtf_mean":
		return f.RTFMean
	case "rtf_p95":
		return f.RTFP95
	}
	panic("claims: no seedtts figure " + name)
}

// SeedTTSClaims applies the seed client's definitions (internal/peer's
// package documentation has them, with the files and commits) to
// benchseal's measured records:
//
//   - success is HTTP 200 with a decoded body, empty text included
//     (benchseal's empty_text failures count as successes, their
//     hypothesis empty, every reference word a deletion); a success is
//     evaluated when its clip's reference normalises to something;
//   - corpus_wer is sum(S+D+I)/sum(S+D+H) over the evaluated requests,
//     with the run's normaliser and unit-cost alignment (jiwer's);
//   - wall_clock_s is the measured window (first start to last end): the
//     seed client's perf_counter around its gathered pass, less its own
//     overhead before the first send;
//   - audio seconds are (file size - 44) / (rate × channels × bits/8) of
//     the clip, not its frames (a WAV with extra chunks counts them);
//     rtfx is their sum over successes / wall_clock_s, rounded to 3;
//   - throughput_samples_per_s, latencies and rtf_mean are unrounded;
//     rtf_p95 is rounded to 4;
//   - over repeats, counts are summed and every figure gets mean, min, max
//     and n (benchseal's own claims take the median).
func SeedTTSClaims(run schemas.Run, records []schemas.Record) (SeedTTSCompat, error) {
	out := SeedTTSCompat{Compat: CompatSeedTTS, Residual: SeedTTSResidual, Targets: []SeedTTSTarget{}}
	norm := run.Scoring.Normalizer
	if norm == "" {
		norm = score.NormalizerWhisperEN
	}
	clips := map[string]schemas.Clip{}
	for _, c := range run.Corpus {
		clips[c.ID] = c
	}
	groups := map[groupKey][]schemas.Record{}
	for i, r := range records {
		if _, ok := clips[r.Clip]; !ok {
			return out, &claims.RecordError{Index: i, Target: r.Target, Reason: fmt.Sprintf("clip %q is not in the corpus", r.Clip)}
		}
		if r.Phase == schemas.PhaseMeasure {
			k := groupKey{r.Target, r.Concurrency, r.Repeat}
			groups[k] = append(groups[k], r)
		}
	}
	for _, t := range run.Targets {
		tc := SeedTTSTarget{Target: t.Name, Levels: []SeedTTSLevel{}}
		for _, c := range run.Protocol.Levels {
			lv := SeedTTSLevel{Concurrency: c, Stats: map[string]Stat{}, PerRepeat: []SeedTTSFigures{}}
			for rep := 1; rep <= run.Protocol.Repeats; rep++ {
				recs := groups[groupKey{t.Name, c, rep}]
				if len(recs) == 0 {
					continue
				}
				f, err := seedTTSRepeat(recs, clips, norm)
				if err != nil {
					return out, fmt.Errorf("target %q, concurrency %d, repeat %d: %w", t.Name, c, rep, err)
				}
				f.Repeat = rep
				lv.PerRepeat = append(lv.PerRepeat, f)
				lv.Evaluated += f.Evaluated
				lv.Total += f.Total
				lv.Skipped += f.Skipped
			}
			if len(lv.PerRepeat) == 0 {
				continue
			}
			lv.Repeats = len(lv.PerRepeat)
			for _, name := range SeedTTSStatNames {
				var v []float64
				for i := range lv.PerRepeat {
					if p := lv.PerRepeat[i].stat(name); p != nil {
						v = append(v, *p)
					}
				}
				st := Stat{N: len(v)}
				if len(v) > 0 {
					var s float64
					for _, x := range v {
						s += x
					}
					mean, lo, hi := s/float64(len(v)), slices.Min(v), slices.Max(v)
					st.Mean, st.Min, st.Max = &mean, &lo, &hi
				}
				lv.Stats[name] = st
			}
			tc.Levels = append(tc.Levels, lv)
		}
		out.Targets = append(out.Targets, tc)
	}
	return out, nil
}

// SeedTTSAudioSeconds is the seed client's audio length of a clip
// (benchmarks/benchmarker/utils.py get_wav_duration): the bytes past a
// 44-byte header over the byte rate, 0 when the header says nothing.
func SeedTTSAudioSeconds(c schemas.Clip) float64 {
	bps := c.Channels * c.Bits / 8
	if c.Size <= 44 || c.SampleRate == 0 || bps == 0 {
		return 0
	}
	return float64(c.Size-44) / float64(c.SampleRate*bps)
}

func seedTTSRepeat(recs []schemas.Record, clips map[string]schemas.Clip, norm string) (SeedTTSFigures, error) {
	f := SeedTTSFigures{Total: len(recs)}
	// Score in a fixed order: records arrive in completion order.
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b schemas.Record) int { return cmp.Compare(a.Seq, b.Seq) })
	from, to := claims.MeasuredWindow(recs)
	f.WallClockS = float64(to-from) / 1e9
	var pairs []score.Pair
	var lat, rtfSpeed, rtfAll []float64
	var audio float64
	for _, r := range recs {
		if r.Status != 200 || !(r.OK || r.ErrorClass == schemas.ErrEmptyText) {
			continue
		}
		l := float64(r.EndNs-r.StartNs) / 1e9
		a := SeedTTSAudioSeconds(clips[r.Clip])
		if a > 0 {
			audio += a
			if l > 0 {
				rtfAll = append(rtfAll, l/a)
			}
		}
		ref, err := score.Normalize(norm, clips[r.Clip].Text)
		if err != nil {
			return f, err
		}
		if ref == "" {
			continue // "Empty reference after normalization": not evaluated
		}
		f.Evaluated++
		hyp := r.Scored
		if !r.OK {
			hyp = ""
		}
		pairs = append(pairs, score.Pair{ID: r.Clip, Ref: clips[r.Clip].Text, Hyp: hyp})
		if l > 0 {
			lat = append(lat, l)
			if a > 0 {
				rtfSpeed = append(rtfSpeed, l/a)
			}
		}
	}
	f.Skipped = f.Total - f.Evaluated
	if f.WallClockS > 0 {
		f.ThroughputSamplesPerS = float64(len(lat)) / f.WallClockS
		if audio > 0 {
			f.RTFx = round(audio/f.WallClockS, 3)
		}
	}
	if f.Evaluated > 0 {
		if err := f.scoreEvaluated(pairs, lat, norm); err != nil {
			return f, err
		}
	}
	if len(rtfAll) > 0 {
		slices.Sort(rtfAll)
		p95 := round(claims.Percentile(rtfAll, 95), 4)
		rm := 0.0
		for _, x := range rtfSpeed {
			rm += x
		}
		if len(rtfSpeed) > 0 {
			rm /= float64(len(rtfSpeed))
		}
		f.RTFP95, f.RTFMean = &p95, &rm
	}
	return f, nil
}

// scoreEvaluated sets the figures of the evaluated requests: the corpus
// and worst per-sample error rate of pairs, and the latencies lat.
func (f *SeedTTSFigures) scoreEvaluated(pairs []score.Pair, lat []float64, norm string) error {
	res, err := score.Score(pairs, score.Options{Normalizer: norm, Aligner: score.AlignerUnit})
	if err != nil {
		return fmt.Errorf("score transcripts: %w", err)
	}
	w, mx := 0.0, 0.0
	if res.RefUnits() > 0 {
		w = res.Rate
	}
	for _, u := range res.Utterances {
		if u.RefUnits() > 0 {
			mx = max(mx, float64(u.Substitutions+u.Deletions+u.Insertions)/float64(u.RefUnits()))
		}
	}
	f.CorpusWER, f.PerSampleWERMax = &w, &mx
	slices.Sort(lat)
	mean := 0.0
	for _, l := range lat {
		mean += l
	}
	if len(lat) > 0 {
		mean /= float64(len(lat))
	}
	p := func(q float64) *float64 {
		v := 0.0
		if len(lat) > 0 {
			v = claims.Percentile(lat, q)
		}
		return &v
	}
	f.LatencyMeanS, f.LatencyMedianS, f.LatencyP95S, f.LatencyP99S = &mean, p(50), p(95), p(99)
	return nil
}

// round is Python's round(x, digits): the double nearest the correctly
// rounded decimal, ties to even on the exact binary value.
func round(x float64, digits int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}
