package claims

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/schemas"
	dto "github.com/prometheus/client_model/go"
)

// The server's own account of a step: the deltas of its stage histograms
// (engine.StageFamilies) between two raw /metrics scrapes of the step,
// servers/<target>/metrics/c<C>-r<R>-{before,measure,after}.prom.

// Scrape moments of a step (schemas.MetricsPath's when): before the
// step, after its warm-ups, after the step.
const (
	ScrapeBefore  = "before"
	ScrapeMeasure = "measure"
	ScrapeAfter   = "after"
)

// ScrapeKey names one scrape of one step.
type ScrapeKey struct {
	Target      string
	Concurrency int
	Repeat      int
	When        string // ScrapeBefore, ScrapeMeasure or ScrapeAfter
}

// Scrape is what one raw scrape says of the stage families: each family
// present, summed over its series that match its engine.StageFamily's
// Match. Err is why the file does not parse (a 404 page kept raw, a cut
// answer): then it says nothing.
type Scrape struct {
	Families map[string]Histogram
	Err      error
}

// Histogram is one family's series summed: the number and sum of its
// observations and, per upper bound (+Inf included when exposed, in
// increasing order), the cumulative count.
type Histogram struct {
	Count, Sum float64
	Buckets    []Bucket
}

// Bucket is one upper bound of a Histogram and its cumulative count.
type Bucket struct {
	UpperBound, Cumulative float64
}

// ParseScrape parses the stage families of engine.StageFamilies out of a
// raw /metrics scrape with Prometheus's own parser
// (internal/fingerprint.ParseMetrics, the recorder's). Only the lines of
// those families reach the parser (stageLines, the recorder's line
// filter, fingerprint.Families): expfmt costs about 2 µs a series on the
// machine BenchmarkServerStages ran on, 20 ms for a 10k-series answer of
// which a few hundred lines are stage histograms.
func ParseScrape(raw []byte) (Scrape, error) {
	return parseStages(stageLines(raw))
}

func parseStages(raw []byte) (Scrape, error) {
	fams, err := fingerprint.ParseMetrics(raw)
	if err != nil {
		return Scrape{}, err
	}
	s := Scrape{Families: map[string]Histogram{}}
	for _, f := range engine.StageFamilies {
		if mf, ok := fams[f.Family]; ok {
			if h, ok := SumHistogram(mf, f.Match); ok {
				s.Families[f.Family] = h
			}
		}
	}
	return s, nil
}

// stageFamilies are the families stageLines keeps.
var stageFamilies = func() *fingerprint.Families {
	var names []string
	for _, f := range engine.StageFamilies {
		names = append(names, f.Family)
	}
	return fingerprint.NewFamilies(names...)
}()

// stageLines keeps the lines of raw that the stage families are read
// from (fingerprint.Families.Lines).
func stageLines(raw []byte) []byte { return stageFamilies.Lines(raw) }

// SumHistogram sums the histogram series of mf that carry every label
// value of match; ok is false when mf is not a histogram family. A family
// with no matching series is an empty histogram (present, nothing
// observed yet).
func SumHistogram(mf *dto.MetricFamily, match map[string]string) (Histogram, bool) {
	if mf.GetType() != dto.MetricType_HISTOGRAM && mf.GetType() != dto.MetricType_GAUGE_HISTOGRAM {
		return Histogram{}, false
	}
	var h Histogram
	cum := map[float64]float64{}
	for _, m := range mf.GetMetric() {
		if m.Histogram == nil || !fingerprint.LabelsMatch(m, match) {
			continue
		}
		hm := m.GetHistogram()
		h.Count += float64(hm.GetSampleCount())
		h.Sum += hm.GetSampleSum()
		for _, b := range hm.GetBucket() {
			cum[b.GetUpperBound()] += float64(b.GetCumulativeCount())
		}
		if !math.IsInf(lastBound(hm), 1) {
			// The text format always has +Inf; expfmt folds it into
			// the sample count.
			cum[math.Inf(1)] += float64(hm.GetSampleCount())
		}
	}
	for le, c := range cum {
		h.Buckets = append(h.Buckets, Bucket{le, c})
	}
	slices.SortFunc(h.Buckets, func(a, b Bucket) int { return cmp.Compare(a.UpperBound, b.UpperBound) })
	return h, true
}

func lastBound(h *dto.Histogram) float64 {
	b := h.GetBucket()
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1].GetUpperBound()
}

// HistogramResetError: a histogram went down between two scrapes (its
// count, sum or a bucket), so the server restarted or reset its metrics
// in between and the delta means nothing.
type HistogramResetError struct {
	Family        string
	Before, After float64 // the counts
}

func (e *HistogramResetError) Error() string {
	return fmt.Sprintf("%s went down (count %g to %g): the server restarted or reset its metrics", e.Family, e.Before, e.After)
}

// Delta is after minus before, bucket by bucket; a *HistogramResetError
// when anything went down, and an error when the two have different
// bucket bounds (a different server answered).
func Delta(family string, before, after Histogram) (Histogram, error) {
	d := Histogram{Count: after.Count - before.Count, Sum: after.Sum - before.Sum}
	reset := &HistogramResetError{Family: family, Before: before.Count, After: after.Count}
	if d.Count < 0 || d.Sum < 0 {
		return d, reset
	}
	if len(before.Buckets) != len(after.Buckets) {
		return d, fmt.Errorf("%s has %d buckets before and %d after: not the same histogram", family, len(before.Buckets), len(after.Buckets))
	}
	for i, a := range after.Buckets {
		b := before.Buckets[i]
		if a.UpperBound != b.UpperBound {
			return d, fmt.Errorf("%s: bucket le=%g before, le=%g after: not the same histogram", family, b.UpperBound, a.UpperBound)
		}
		if a.Cumulative < b.Cumulative {
			return d, reset
		}
		d.Buckets = append(d.Buckets, Bucket{a.UpperBound, a.Cumulative - b.Cumulative})
	}
	return d, nil
}

// QuantileBound is the upper bound of the bucket that holds h's
// q-quantile (0 < q < 1): the quantile is at most this, which is all a
// histogram proves. Prometheus's histogram_quantile interpolates inside
// that bucket instead and so invents a value the buckets do not hold
// (vLLM's first latency bucket is 0.3 s: a queue of exactly 0 would read
// p50 0.15 s). ok is false when h has no observation, no +Inf bucket, or
// the quantile lies in the +Inf bucket (no finite bound holds it).
func QuantileBound(q float64, h Histogram) (float64, bool) {
	n := len(h.Buckets)
	if n == 0 || !math.IsInf(h.Buckets[n-1].UpperBound, 1) || h.Buckets[n-1].Cumulative <= 0 {
		return 0, false
	}
	rank := q * h.Buckets[n-1].Cumulative
	i, _ := slices.BinarySearchFunc(h.Buckets, rank, func(b Bucket, r float64) int { return cmp.Compare(b.Cumulative, r) })
	if i >= n-1 {
		return 0, false
	}
	return h.Buckets[i].UpperBound, true
}

// stageOrder is the order of ServerStages.Stages: the order a request
// passes them.
var stageOrder = []string{schemas.StageQueue, schemas.StagePrefill, schemas.StageDecode, schemas.StageInference,
	schemas.StageTTFT, schemas.StageE2E, schemas.StageHTTP}

// loadScrapes reads the stage families of every scrape of every step
// telemetry/steps.jsonl names. A scrape that is absent is left out; one
// that does not parse is kept with its Err.
func loadScrapes(fsys fs.FS, steps []schemas.StepTelemetry) (map[ScrapeKey]Scrape, error) {
	out := map[ScrapeKey]Scrape{}
	for _, st := range steps {
		for _, when := range []string{ScrapeBefore, ScrapeMeasure, ScrapeAfter} {
			name := schemas.MetricsPath(st.Target, st.Concurrency, st.Repeat, when)
			f, err := fsys.Open(name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, err
			}
			raw, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return out, fmt.Errorf("%s: %w", name, err)
			}
			s, perr := ParseScrape(raw)
			s.Err = perr
			out[ScrapeKey{st.Target, st.Concurrency, st.Repeat, when}] = s
		}
	}
	return out, nil
}

// applyServer fills m.Server from the step's scrapes. Definitions:
//
//   - the deltas run from the scrape after the warm-ups ("measure") to the
//     one after the step ("after"), Scope ServerScopeMeasured; without a
//     measure scrape that parses and holds a stage family (the runner keeps
//     a failed scrape's answer, an error page), from the one before the
//     step ("before"), warm-ups included, and no Scope; without an after
//     scrape or any start, there is no server block;
//   - each stage reads the first family of fams (engine.StageFamiliesFor
//     the run's task: none of an engine that serves no /metrics for the
//     task, SGLang-Omni's tts) for it
//     that is in both scrapes, summed over its series that match (labels
//     summed: vLLM's engine, vLLM-Omni's stage and replica);
//   - count is the delta of its count, mean_s the delta of its sum over
//     count, p50_le_s and p95_le_s QuantileBound of its buckets; the times
//     are null when count is 0;
//   - a family that went down or changed its buckets is not computed, and
//     Note says so (Notes of several families joined by "; ");
//   - no stage and no note (the server exposes none of the families): no
//     server block.
func applyServer(m *schemas.Metrics, t *Telemetry, fams []engine.StageFamily, target string, concurrency, repeat int) {
	key := func(when string) ScrapeKey { return ScrapeKey{target, concurrency, repeat, when} }
	after, ok := t.Scrapes[key(ScrapeAfter)]
	if !ok || after.Err != nil {
		return
	}
	scope := schemas.ServerScopeMeasured
	start, ok := t.Scrapes[key(ScrapeMeasure)]
	if !ok || start.Err != nil || len(start.Families) == 0 {
		scope = ""
		if start, ok = t.Scrapes[key(ScrapeBefore)]; !ok || start.Err != nil {
			return
		}
	}
	var stages []schemas.StageStat
	var notes []string
	for _, stage := range stageOrder {
		for _, f := range fams {
			if f.Stage != stage {
				continue
			}
			hb, okb := start.Families[f.Family]
			ha, oka := after.Families[f.Family]
			if !okb || !oka {
				continue
			}
			d, err := Delta(f.Family, hb, ha)
			if err != nil {
				notes = append(notes, stage+": not computed, "+err.Error())
				break
			}
			st := schemas.StageStat{Stage: stage, Family: f.Family, Count: d.Count}
			if d.Count > 0 {
				st.MeanS = ptr(d.Sum / d.Count)
				if v, ok := QuantileBound(0.5, d); ok {
					st.P50LeS = ptr(v)
				}
				if v, ok := QuantileBound(0.95, d); ok {
					st.P95LeS = ptr(v)
				}
			}
			stages = append(stages, st)
			break
		}
	}
	if len(stages) == 0 && len(notes) == 0 {
		return
	}
	if stages == nil {
		stages = []schemas.StageStat{}
	}
	m.Server = &schemas.ServerStages{Scope: scope, Stages: stages, Note: strings.Join(notes, "; ")}
}

// ServerOf is one step's server block of a run of taskName exactly as
// Compute puts it in claims (nil when absent), for a verifier holding it
// to the records.
func ServerOf(t Telemetry, taskName, target string, concurrency, repeat int) *schemas.ServerStages {
	var m schemas.Metrics
	applyServer(&m, &t, engine.StageFamiliesFor(taskName), target, concurrency, repeat)
	return m.Server
}
