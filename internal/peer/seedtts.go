package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/score"
)

// SeedTTSDefinitions names the peer's files whose definitions SeedTTS
// reproduces (see the package documentation).
const SeedTTSDefinitions = "sgl-project/sglang-omni benchmarks/eval/benchmark_asr_seedtts.py@070fc3b5, " +
	"benchmarks/benchmarker/utils.py@070fc3b5, benchmarks/benchmarker/runner.py@1b4b3750, " +
	"benchmarks/tasks/asr.py@0c594cf8, benchmarks/metrics/wer.py@01782f8f, benchmarks/metrics/performance.py (audio_throughput_s_per_s version)"

// emptyRefError is the error asr.py's apply_wer sets on a request that
// succeeded but whose reference normalises to nothing: the request
// counts in the speed figures of performance.py, not in the WER ones.
const emptyRefError = "Empty reference after normalization"

// seedSample is one line of the peer's raw file (asr.py,
// build_asr_eval_results, per_sample).
type seedSample struct {
	ID             string     `json:"id"`
	IsSuccess      bool       `json:"is_success"`
	WER            *float64   `json:"wer"`
	RefText        string     `json:"ref_text"`
	HypText        string     `json:"hyp_text"`
	RefNorm        string     `json:"ref_norm"`
	HypNorm        string     `json:"hyp_norm"`
	AudioDurationS float64    `json:"audio_duration_s"`
	LatencyS       float64    `json:"latency_s"`
	TextTTFTS      *float64   `json:"text_ttft_s"`
	InterChunkS    *[]float64 `json:"inter_chunk_s"`
	Error          string     `json:"error"`
}

// requestOK is performance.py's success: the HTTP request succeeded
// (RequestResult.is_success), whether or not the sample was scored.
func (s seedSample) requestOK() bool { return s.IsSuccess || s.Error == emptyRefError }

type seedResult struct {
	Config struct {
		Lang          string `json:"lang"`
		NumSamples    *int   `json:"num_samples"`
		Concurrencies []int  `json:"concurrencies"`
		Repeats       *int   `json:"repeats"`
		Warmup        *bool  `json:"warmup"`
	} `json:"config"`
	Results []map[string]json.RawMessage `json:"results"`
}

var rawName = regexp.MustCompile(`^conc([0-9]+)_rep([0-9]+)\.jsonl$`)

// SeedTTS checks a result JSON of benchmark_asr_seedtts.py against the raw
// per-sample files its --save-raw-dir wrote (conc{C}_rep{R}.jsonl, read
// from raw; nil when there are none). It fails only when the result
// cannot be read at all; everything else is a figure of the report.
func SeedTTS(result io.Reader, raw fs.FS) (*Report, error) {
	var res seedResult
	dec := json.NewDecoder(result)
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("reading the result JSON: %w", err)
	}
	if res.Results == nil {
		return nil, errors.New("reading the result JSON: no \"results\": not a benchmark_asr_seedtts.py result")
	}
	rep := &Report{Format: "seedtts", Definitions: SeedTTSDefinitions, Groups: []Group{}, Unverifiable: seedUnverifiable}
	top := newGroup("result", "")
	var levels []int
	used := map[string]bool{}
	for i, agg := range res.Results {
		c := number(agg, "concurrency")
		if c == nil || *c != math.Trunc(*c) || *c < 1 {
			top.broken("results["+strconv.Itoa(i)+"].concurrency", "not a positive integer", nil, nil)
			continue
		}
		conc := int(*c)
		levels = append(levels, conc)
		var reps []map[string]json.RawMessage
		if err := json.Unmarshal(agg["per_repeat"], &reps); err != nil || len(reps) == 0 {
			g := newGroup(fmt.Sprintf("conc %d", conc), "")
			g.broken("per_repeat", "the level has no per-repeat results", nil, nil)
			rep.add(g.g)
			continue
		}
		var samples []string
		for _, r := range reps {
			n := number(r, "repeat")
			rn := 0
			if n != nil {
				rn = int(*n)
			}
			name := fmt.Sprintf("conc%d_rep%d.jsonl", conc, rn)
			used[name] = true
			g := newGroup(fmt.Sprintf("conc %d rep %d", conc, rn), name)
			ids := seedRepeat(g, r, conc, res.Config.Lang, res.Config.NumSamples, raw, name)
			if ids != nil {
				if samples == nil {
					samples = ids
				} else if !slices.Equal(ids, samples) {
					g.broken("samples", "the raw file holds other samples than the level's first repeat: samples were dropped or swapped", len(ids), len(samples))
				}
			}
			rep.add(g.g)
		}
		rep.add(seedAggregate(agg, reps, conc, res.Config.Repeats).g)
	}
	if want := res.Config.Concurrencies; want != nil {
		if slices.Equal(want, levels) {
			top.held("concurrencies", fmt.Sprint(want), fmt.Sprint(levels))
		} else {
			top.broken("concurrencies", "the result's levels are not the configured ones: a level was dropped or added", fmt.Sprint(want), fmt.Sprint(levels))
		}
	}
	if raw != nil {
		names, _ := fs.Glob(raw, "conc*_rep*.jsonl")
		for _, n := range names {
			m := rawName.FindStringSubmatch(n)
			switch {
			case m == nil || used[n]:
			case m[2] == "0":
				top.held("raw file "+n, "profiled pass", "profiled pass (--profile-events), not part of the result")
			default:
				top.broken("raw file "+n, "a raw file with no repeat in the result: a repeat was left out of the published figures", nil, n)
			}
		}
	}
	rep.add(top.g)
	return rep, nil
}

var seedUnverifiable = []string{
	"wall_clock_s: the raw files hold no timestamps, so the measured window, the concurrency reached (peak in-flight) and the order of requests cannot be checked; only lower bounds on wall_clock_s are",
	"cache defeat: the peer sends the same bytes in every repeat and records no input hashes, so nothing shows that a server cache did not answer repeats",
	"audio_duration_s: the peer's (file length - 44) / byte rate of its own files; the clips are not part of the raw data",
	"HTTP status and warm-ups: the raw files record neither; the warm-up pass is discarded unsaved",
	"worker and resources figures: server-side readings with no raw data",
}

// seedRepeat checks the figures of one level/repeat against its raw file
// and returns the sorted sample ids of the file (nil when it is missing).
func seedRepeat(g *group, r map[string]json.RawMessage, conc int, lang string, numSamples *int, raw fs.FS, name string) []string {
	figures := []string{"total", "evaluated", "skipped", "corpus_wer", "per_sample_wer_max", "throughput_samples_per_s", "rtfx",
		"latency_mean_s", "latency_median_s", "latency_p95_s", "latency_p99_s", "rtf_mean", "rtf_p95"}
	for _, k := range seedStreamKeys {
		if _, ok := r[k]; ok {
			figures = append(figures, k)
		}
	}
	if n := number(r, "concurrency"); n == nil || int(*n) != conc {
		g.broken("concurrency", "the repeat is filed under another level", number(r, "concurrency"), conc)
	}
	if raw == nil {
		for _, f := range figures {
			g.notObserved(f, "no raw files given (--raw DIR, the peer's --save-raw-dir)", number(r, f))
		}
		return nil
	}
	samples, err := readSeedRaw(raw, name)
	if err != nil {
		for _, f := range figures {
			reason := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				reason = "no raw file " + name
			}
			g.notObserved(f, reason, number(r, f))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			g.broken("raw file", err.Error(), nil, nil)
		}
		return nil
	}
	ids := make([]string, len(samples))
	seen := map[string]bool{}
	for i, s := range samples {
		ids[i] = s.ID
		if seen[s.ID] {
			g.broken("samples", fmt.Sprintf("sample %q appears twice", s.ID), nil, nil)
		}
		seen[s.ID] = true
	}
	slices.Sort(ids)

	// Counts: one line per sample of the corpus (asr.py writes every
	// sample, successful or not).
	g.count("total", number(r, "total"), len(samples))
	if numSamples != nil && *numSamples != len(samples) {
		g.broken("samples", fmt.Sprintf("config.num_samples is %d but the raw file has %d lines: samples were dropped", *numSamples, len(samples)), *numSamples, len(samples))
	}
	var ok, speed []seedSample
	for _, s := range samples {
		if s.IsSuccess {
			ok = append(ok, s)
			if s.LatencyS > 0 {
				speed = append(speed, s)
			}
		}
	}
	g.count("evaluated", number(r, "evaluated"), len(ok))
	g.count("skipped", number(r, "skipped"), len(samples)-len(ok))
	evaluated := len(ok) > 0

	// WER: jiwer.process_words on the saved normalised texts; corpus WER
	// is sum(S+D+I) / sum(S+D+H) (wer.py, calculate_wer_metrics).
	pairs := make([]score.Pair, len(ok))
	for i, s := range ok {
		pairs[i] = score.Pair{ID: s.ID, Ref: s.RefNorm, Hyp: s.HypNorm}
	}
	res, err := score.Score(pairs, score.Options{Normalizer: score.NormalizerNone, Aligner: score.AlignerUnit})
	if err != nil {
		g.broken("corpus_wer", "the saved normalised texts cannot be scored: "+err.Error(), number(r, "corpus_wer"), nil)
	} else {
		var wers []float64
		bad, first := 0, ""
		for i, u := range res.Utterances {
			if u.RefUnits() == 0 {
				bad++
				first = firstOf(first, fmt.Sprintf("%q is a success with an empty ref_norm (the peer marks it failed)", u.ID))
				continue
			}
			w := float64(u.Substitutions+u.Deletions+u.Insertions) / float64(u.RefUnits())
			wers = append(wers, w)
			if p := ok[i].WER; p == nil || !sameNumber(*p, w, -1) {
				bad++
				first = firstOf(first, fmt.Sprintf("%q: wer %v, but ref_norm/hyp_norm give %v", u.ID, deref(p), w))
			}
		}
		for _, s := range samples {
			if !s.IsSuccess && s.WER != nil {
				bad++
				first = firstOf(first, fmt.Sprintf("%q failed but has a wer", s.ID))
			}
		}
		if bad > 0 {
			g.broken("per-sample wer", fmt.Sprintf("%d samples: first %s", bad, first), nil, nil)
		} else {
			g.held("per-sample wer", len(ok), len(ok))
		}
		var cw *float64
		if evaluated {
			cw = ptr(0)
			if res.RefUnits() > 0 {
				cw = ptr(res.Rate)
			}
		}
		g.num("corpus_wer", number(r, "corpus_wer"), cw, -1)
		var mx *float64
		if evaluated {
			mx = npMax(wers)
		}
		g.num("per_sample_wer_max", number(r, "per_sample_wer_max"), mx, -1)
	}
	if lang == "en" || lang == "" {
		seedRenormalise(g, r, ok, evaluated)
	} else {
		g.notObserved("corpus_wer (ref_text/hyp_text)", "benchseal has no exact copy of the peer's "+lang+" normaliser; corpus_wer is checked from the saved normalised texts only", number(r, "corpus_wer"))
	}

	// Speed: wall_clock_s is not recorded anywhere but in the result.
	wall := number(r, "wall_clock_s")
	var lat []float64
	var latSum, latMax float64
	for _, s := range speed {
		lat = append(lat, s.LatencyS)
		latSum += s.LatencyS
		latMax = max(latMax, s.LatencyS)
	}
	switch {
	case wall == nil:
		g.broken("wall_clock_s", "not published: req/s and RTFx rest on it", nil, nil)
	case *wall < latMax*(1-1e-9) || *wall < latSum/float64(conc)*(1-1e-9):
		g.broken("wall_clock_s", fmt.Sprintf("shorter than the raw data allows: the longest request took %.6g s, and %d requests at concurrency %d need at least sum(latency)/C = %.6g s",
			latMax, len(lat), conc, latSum/float64(conc)), *wall, math.Max(latMax, latSum/float64(conc)))
	default:
		g.notObserved("wall_clock_s", fmt.Sprintf("no timestamps; its lower bounds hold (longest request %.6g s, sum(latency)/C %.6g s)", latMax, latSum/float64(conc)), *wall)
	}
	if wall != nil {
		// wer.py, calculate_asr_speed_metrics: successes with a latency,
		// over the pass's wall clock (or the latency sum without one).
		total := *wall
		if total <= 0 {
			total = latSum
		}
		thr := ptr(0)
		if len(speed) > 0 && total > 0 {
			thr = ptr(float64(len(speed)) / total)
		}
		g.num("throughput_samples_per_s", number(r, "throughput_samples_per_s"), thr, -1)

		// performance.py: audio seconds of the successful requests over the
		// wall clock, rounded to 3 decimals; 0.0 when there is none.
		var audio float64
		n := 0
		for _, s := range samples {
			if s.requestOK() && s.AudioDurationS > 0 {
				audio += s.AudioDurationS
				n++
			}
		}
		rtfx := ptr(0)
		if n > 0 && *wall > 0 {
			rtfx = ptr(roundTo(audio/(*wall), 3))
		}
		g.num("rtfx", number(r, "rtfx"), rtfx, 3)
	}
	lf := func(v *float64) *float64 {
		if !evaluated {
			return nil
		}
		if v == nil {
			return ptr(0)
		}
		return v
	}
	g.num("latency_mean_s", number(r, "latency_mean_s"), lf(npMean(lat)), -1)
	g.num("latency_median_s", number(r, "latency_median_s"), lf(npPercentile(lat, 50)), -1)
	g.num("latency_p95_s", number(r, "latency_p95_s"), lf(npPercentile(lat, 95)), -1)
	g.num("latency_p99_s", number(r, "latency_p99_s"), lf(npPercentile(lat, 99)), -1)

	// RTF: rtf_p95 from performance.py (requests with 0 < rtf), rounded to
	// 4; rtf_mean from wer.py, published only when rtf_p95 is.
	var rtfPerf, rtfASR []float64
	for _, s := range samples {
		if s.requestOK() && s.AudioDurationS > 0 && s.LatencyS > 0 {
			rtfPerf = append(rtfPerf, s.LatencyS/s.AudioDurationS)
		}
	}
	for _, s := range speed {
		if s.AudioDurationS > 0 {
			rtfASR = append(rtfASR, s.LatencyS/s.AudioDurationS)
		}
	}
	p95 := npPercentile(rtfPerf, 95)
	if p95 != nil {
		p95 = ptr(roundTo(*p95, 4))
	}
	pubP95 := number(r, "rtf_p95")
	if pubP95 == nil && p95 != nil {
		g.notObserved("rtf_p95", "not published (a version of performance.py without rtf_p95); rtf_mean is then withheld too", nil)
		g.notObserved("rtf_mean", "withheld by the peer with rtf_p95", nil)
	} else {
		g.num("rtf_p95", pubP95, p95, 4)
		var rm *float64
		if p95 != nil {
			rm = npMean(rtfASR)
			if rm == nil {
				rm = ptr(0)
			}
		}
		g.num("rtf_mean", number(r, "rtf_mean"), rm, -1)
	}
	seedStream(g, r, samples)
	return ids
}

// seedStreamKeys are the streaming figures of performance.py, rounded to
// 4 decimals, published only for --stream runs.
var seedStreamKeys = []string{"text_ttft_mean_s", "text_ttft_median_s", "text_ttft_p95_s", "text_ttft_p99_s",
	"inter_chunk_mean_s", "inter_chunk_p95_s", "inter_chunk_p99_s"}

func seedStream(g *group, r map[string]json.RawMessage, samples []seedSample) {
	var ttft, chunks []float64
	haveChunks := false
	for _, s := range samples {
		if s.InterChunkS != nil {
			haveChunks = true
		}
		if !s.requestOK() {
			continue
		}
		if s.TextTTFTS != nil {
			ttft = append(ttft, *s.TextTTFTS)
		}
		if s.InterChunkS != nil {
			chunks = append(chunks, *s.InterChunkS...)
		}
	}
	r4 := func(f *float64) *float64 {
		if f == nil {
			return nil
		}
		return ptr(roundTo(*f, 4))
	}
	re := map[string]*float64{
		"text_ttft_mean_s": r4(npMean(ttft)), "text_ttft_median_s": r4(npPercentile(ttft, 50)),
		"text_ttft_p95_s": r4(npPercentile(ttft, 95)), "text_ttft_p99_s": r4(npPercentile(ttft, 99)),
		"inter_chunk_mean_s": r4(npMean(chunks)), "inter_chunk_p95_s": r4(npPercentile(chunks, 95)),
		"inter_chunk_p99_s": r4(npPercentile(chunks, 99)),
	}
	for _, k := range seedStreamKeys {
		_, published := r[k]
		switch {
		case strings.HasPrefix(k, "inter_chunk") && published && !haveChunks:
			g.notObserved(k, "the raw file has no inter_chunk_s (an older asr.py)", number(r, k))
		case published || re[k] != nil:
			g.num(k, number(r, k), re[k], 4)
		}
	}
}

// seedRenormalise scores ref_text/hyp_text afresh with benchseal's
// whisper-en (Whisper's EnglishTextNormalizer, english.json whole) and
// compares the normalised texts and the corpus WER with the saved ones.
func seedRenormalise(g *group, r map[string]json.RawMessage, ok []seedSample, evaluated bool) {
	bad, first := 0, ""
	pairs := make([]score.Pair, 0, len(ok))
	for _, s := range ok {
		rn, err1 := score.Normalize(score.NormalizerWhisperEN, s.RefText)
		hn, err2 := score.Normalize(score.NormalizerWhisperEN, s.HypText)
		if err := errors.Join(err1, err2); err != nil {
			bad++
			first = firstOf(first, fmt.Sprintf("%q: %v", s.ID, err))
			continue
		}
		if rn != s.RefNorm || hn != s.HypNorm {
			bad++
			if rn != s.RefNorm {
				first = firstOf(first, fmt.Sprintf("%q: ref_norm %q, whisper-en gives %q", s.ID, s.RefNorm, rn))
			} else {
				first = firstOf(first, fmt.Sprintf("%q: hyp_norm %q, whisper-en gives %q", s.ID, s.HypNorm, hn))
			}
		}
		pairs = append(pairs, score.Pair{ID: s.ID, Ref: s.RefText, Hyp: s.HypText})
	}
	if bad > 0 {
		g.broken("normalised texts", fmt.Sprintf("%d samples do not normalise as saved: first %s", bad, first), nil, nil)
	} else {
		g.held("normalised texts", len(ok), len(ok))
	}
	var cw *float64
	if evaluated && len(pairs) > 0 {
		res, err := score.Score(pairs, score.Options{Normalizer: score.NormalizerWhisperEN, Aligner: score.AlignerUnit})
		if err == nil && res.RefUnits() > 0 {
			cw = ptr(res.Rate)
		}
	}
	g.num("corpus_wer (ref_text/hyp_text, whisper-en)", number(r, "corpus_wer"), cw, -1)
}

// seedAggregate checks a level's figures over its repeats
// (benchmark_asr_seedtts.py, _aggregate): sums of the counts, and the
// statistics.mean, min, max and n of every figure over the repeats where
// it is not null.
func seedAggregate(agg map[string]json.RawMessage, reps []map[string]json.RawMessage, conc int, repeats *int) *group {
	g := newGroup(fmt.Sprintf("conc %d (over %d repeats)", conc, len(reps)), "")
	g.count("repeats", number(agg, "repeats"), len(reps))
	if repeats != nil && *repeats != len(reps) {
		g.broken("repeats", fmt.Sprintf("config.repeats is %d but the level has %d: a repeat was dropped", *repeats, len(reps)), *repeats, len(reps))
	}
	for i, r := range reps {
		if n := number(r, "repeat"); n == nil || int(*n) != i+1 {
			g.broken("per_repeat", fmt.Sprintf("repeat %d of the list is numbered %v", i+1, deref(n)), deref(n), i+1)
		}
	}
	for _, k := range []string{"evaluated", "total", "skipped"} {
		s, complete := 0.0, true
		for _, r := range reps {
			if v := number(r, k); v != nil {
				s += *v
			} else {
				complete = false
			}
		}
		if complete {
			g.count(k, number(agg, k), int(s))
		} else {
			g.broken(k, "a repeat does not publish it", number(agg, k), nil)
		}
	}
	keys := []string{"corpus_wer", "per_sample_wer_max", "wall_clock_s", "throughput_samples_per_s", "rtfx", "latency_mean_s",
		"latency_median_s", "latency_p95_s", "latency_p99_s", "rtf_mean", "rtf_p95"}
	for _, k := range seedStreamKeys {
		if _, ok := agg[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		var st map[string]json.RawMessage
		if json.Unmarshal(agg[k], &st) != nil || st == nil {
			g.broken(k, "no {mean, min, max, n} for it", nil, nil)
			continue
		}
		var v []float64
		for _, r := range reps {
			if x := number(r, k); x != nil {
				v = append(v, *x)
			}
		}
		var mean, lo, hi *float64
		if len(v) > 0 {
			mean, lo, hi = npMean(v), ptr(slices.Min(v)), ptr(slices.Max(v))
		}
		g.num(k+" mean", number(st, "mean"), mean, -1)
		g.num(k+" min", number(st, "min"), lo, -1)
		g.num(k+" max", number(st, "max"), hi, -1)
		g.count(k+" n", number(st, "n"), len(v))
	}
	for i, f := range g.g.Figures {
		if f.Status == Broken && f.Reason == notFollow {
			g.g.Figures[i].Reason = "does not follow from the published per-repeat figures"
		}
	}
	return g
}

// readSeedRaw reads one raw file: JSON lines, one per sample.
func readSeedRaw(raw fs.FS, name string) ([]seedSample, error) {
	b, err := fs.ReadFile(raw, path.Clean(name))
	if err != nil {
		return nil, err
	}
	var out []seedSample
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var s seedSample
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func firstOf(first, s string) string {
	if first == "" {
		return s
	}
	return first
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
