package claims

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Percentiles published for latency.
var latencyPercentiles = [...]float64{50, 90, 95, 99}

// RecordError says that a record does not belong to the run it came with.
type RecordError struct {
	Index  int // position in the records given to Compute
	Target string
	Reason string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("record %d (target %q): %s", e.Index, e.Target, e.Reason)
}

type groupKey struct {
	target      string
	concurrency int
	repeat      int
}

// Compute derives claims.json from run.json and the records of the run, in
// any order. It fails on a record that names a target, level or repeat the
// run does not have. WithTelemetry adds the telemetry and cache fields.
func Compute(run schemas.Run, records []schemas.Record, opts ...Option) (schemas.Claims, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	out := schemas.Claims{Schema: schemas.ClaimsSchema, Targets: []schemas.TargetClaims{}}
	quality, err := o.qualityFor(run)
	if err != nil {
		return out, err
	}
	figs, _ := quality.(task.Figurer) // the run's task's figures
	sc := run.Scoring
	if sc.Unit == "" && sc.Normalizer != "" {
		sc.Unit = score.UnitOf(sc.Normalizer)
	}
	refs := task.References(run)
	if rt, ok := quality.(task.RoundTripper); ok && run.Protocol.RoundTrip != nil {
		var heard map[string]schemas.Heard
		if o.tel != nil {
			heard = o.tel.Heard
		}
		quality, refs = rt.RoundTrip(heard), task.Spoken(run)
	}
	if len(refs) > 0 {
		out.Scoring = &sc
	}
	groups, probes, err := group(run, records)
	if err != nil {
		return out, err
	}
	fams := engine.StageFamiliesFor(task.NameOf(&run)) // the server block's, for the run's task
	for _, t := range run.Targets {
		tc := schemas.TargetClaims{Target: t.Name, Levels: []schemas.LevelClaims{}}
		for li, c := range run.Protocol.Levels {
			lc := schemas.LevelClaims{Concurrency: c, Repeats: []schemas.Metrics{}}
			for rep := 1; rep <= run.Protocol.Repeats; rep++ {
				recs := groups[groupKey{t.Name, c, rep}]
				m, ok, err := repeatMetrics(recs, refs, sc, quality, run.Protocol.Percentiles)
				if err != nil {
					return out, fmt.Errorf("target %q, concurrency %d, repeat %d: %w", t.Name, c, rep, err)
				}
				if ok {
					Figures(&m, figs, run, recs)
				}
				if ok && run.Protocol.SLO != nil {
					m.Goodput = Goodput(recs, *run.Protocol.SLO, m.WindowS)
				}
				if run.Protocol.Mode == schemas.ModeOpen {
					if ok {
						OpenLoop(&m, recs, run.Protocol.RequestRates[li])
					}
				} else if mean, full, has := SteadyState(recs, c); has {
					m.MeanInFlight, m.FullConcurrencyShare = &mean, &full
				}
				if ok && o.tel != nil {
					from, to := MeasuredWindow(recs)
					applyTelemetry(&m, o.tel, window{t.Name, c, rep, from, to, t.GPUs})
					applyServer(&m, o.tel, fams, t.Name, c, rep)
				}
				if ok {
					lc.Repeats = append(lc.Repeats, m)
				}
			}
			if len(lc.Repeats) == 0 {
				continue
			}
			lc.Median, lc.Min, lc.Max = summarize(lc.Repeats)
			tc.Levels = append(tc.Levels, lc)
		}
		out.Targets = append(out.Targets, tc)
	}
	for _, t := range run.Targets {
		if recs, ok := probes[t.Name]; ok {
			var growth map[string]float64
			if o.tel != nil {
				for _, l := range o.tel.Probes {
					if l.Target == t.Name && l.Probe == 1 {
						growth = ProbeGrowth(l)
					}
				}
			}
			out.Probes = append(out.Probes, ProbeOf(t.Name, recs, growth, run.Seed))
		}
	}
	return out, nil
}

// group sorts the records of run by target, level and repeat (the
// sweep's) and by target (the cache probe's); it fails on a record of a
// target, level, repeat or phase the run does not have.
func group(run schemas.Run, records []schemas.Record) (map[groupKey][]schemas.Record, map[string][]schemas.Record, error) {
	targets := map[string]bool{}
	for _, t := range run.Targets {
		targets[t.Name] = true
	}
	levels := map[int]bool{}
	for _, c := range run.Protocol.Levels {
		if levels[c] {
			return nil, nil, fmt.Errorf("run lists concurrency level %d twice", c)
		}
		levels[c] = true
	}
	groups := map[groupKey][]schemas.Record{}
	probes := map[string][]schemas.Record{} // the cache probe's, by target: not the sweep's
	for i, r := range records {
		switch {
		case !targets[r.Target]:
			return nil, nil, &RecordError{i, r.Target, "the run has no such target"}
		case r.Phase == schemas.PhaseProbe:
			probes[r.Target] = append(probes[r.Target], r)
			continue
		case !levels[r.Concurrency]:
			return nil, nil, &RecordError{i, r.Target, fmt.Sprintf("the run has no concurrency level %d", r.Concurrency)}
		case r.Repeat < 1 || r.Repeat > run.Protocol.Repeats:
			return nil, nil, &RecordError{i, r.Target, fmt.Sprintf("repeat %d is outside 1..%d", r.Repeat, run.Protocol.Repeats)}
		case r.Phase != schemas.PhaseMeasure && r.Phase != schemas.PhaseWarmup:
			return nil, nil, &RecordError{i, r.Target, fmt.Sprintf("unknown phase %q", r.Phase)}
		}
		k := groupKey{r.Target, r.Concurrency, r.Repeat}
		groups[k] = append(groups[k], r)
	}
	return groups, probes, nil
}

// repeatMetrics computes one level/repeat; ok is false when it has no
// measured record.
func repeatMetrics(recs []schemas.Record, refs map[string]string, sc schemas.Scoring, quality task.Quality, percentiles []float64) (schemas.Metrics, bool, error) {
	m := schemas.Metrics{Errors: map[string]int{}}
	m.PeakInFlight, m.WarmupPeakInFlight = phasePeaks(recs)
	var first, last int64
	var lat, ttfb []float64
	var audioS float64
	var measured []schemas.Record
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		if m.Requests == 0 || r.StartNs < first {
			first = r.StartNs
		}
		if m.Requests == 0 || r.EndNs > last {
			last = r.EndNs
		}
		m.Requests++
		measured = append(measured, r)
		if !r.OK {
			m.Failed++
			m.Errors[r.ErrorClass]++
			continue
		}
		m.Succeeded++
		audioS += r.Seconds
		lat = append(lat, seconds(r.EndNs-r.StartNs))
		if r.FirstByteNs > 0 {
			ttfb = append(ttfb, seconds(r.FirstByteNs-r.StartNs))
		}
	}
	if m.Requests == 0 {
		return m, false, nil
	}
	m.WindowS = seconds(last - first)
	if m.WindowS > 0 {
		m.ReqPerS = float64(m.Succeeded) / m.WindowS
		if m.Succeeded > 0 {
			x := audioS / m.WindowS
			m.RTFx = &x
		}
	}
	if len(lat) > 0 {
		// Sum in sorted order so the mean does not depend on record order.
		slices.Sort(lat)
		var sum float64
		for _, l := range lat {
			sum += l
		}
		m.LatencyMeanS = ptr(sum / float64(len(lat)))
		ps := [...]**float64{&m.LatencyP50S, &m.LatencyP90S, &m.LatencyP95S, &m.LatencyP99S}
		for i, p := range latencyPercentiles {
			*ps[i] = ptr(Percentile(lat, p))
		}
		m.LatencyMaxS = ptr(lat[len(lat)-1])
	}
	if len(ttfb) > 0 {
		slices.Sort(ttfb)
		m.TTFBP50S = ptr(Percentile(ttfb, 50))
	}
	for _, p := range percentiles {
		lp := schemas.LatencyPercentile{P: p}
		if len(lat) > 0 {
			lp.LatencyS = ptr(Percentile(lat, p)) // lat is sorted above
		}
		m.LatencyPercentiles = append(m.LatencyPercentiles, lp)
	}
	if len(refs) > 0 {
		w, err := quality.Quality(measured, refs, sc)
		if err != nil {
			return m, false, err
		}
		m.Quality = w
	}
	return m, true, nil
}

// MeasuredWindow is the first start and last end of the measured records.
func MeasuredWindow(recs []schemas.Record) (from, to int64) {
	first := true
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		if first || r.StartNs < from {
			from = r.StartNs
		}
		if first || r.EndNs > to {
			to = r.EndNs
		}
		first = false
	}
	return from, to
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// phasePeaks is the peak in-flight of the measured records and, when the
// level/repeat had warm-ups, of the warm-up records, each phase on its own:
// a C=32 level over an 8-clip corpus sends 32 warm-ups at once but never
// more than 8 measured requests, and peak_in_flight must say 8.
func phasePeaks(recs []schemas.Record) (measured int, warmup *int) {
	var meas, warm []schemas.Record
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			meas = append(meas, r)
		} else {
			warm = append(warm, r)
		}
	}
	if len(warm) > 0 {
		w := PeakInFlight(warm)
		warmup = &w
	}
	return PeakInFlight(meas), warmup
}

// PeakInFlight is the largest number of the records' requests that were in
// flight at the same time; an end and a start at the same instant count
// the end first.
func PeakInFlight(recs []schemas.Record) int {
	type event struct {
		at    int64
		delta int
	}
	ev := make([]event, 0, 2*len(recs))
	for _, r := range recs {
		ev = append(ev, event{r.StartNs, +1}, event{r.EndNs, -1})
	}
	slices.SortFunc(ev, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta) // -1 (end) before +1 (start)
	})
	cur, peak := 0, 0
	for _, e := range ev {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// The fields summarize takes over repeats: counts, figures always
// present, and figures null where a repeat did not measure them.
var metricInts = []func(*schemas.Metrics) *int{
	func(m *schemas.Metrics) *int { return &m.Requests },
	func(m *schemas.Metrics) *int { return &m.Succeeded },
	func(m *schemas.Metrics) *int { return &m.Failed },
	func(m *schemas.Metrics) *int { return &m.PeakInFlight },
}
var metricFloats = []func(*schemas.Metrics) *float64{
	func(m *schemas.Metrics) *float64 { return &m.WindowS },
	func(m *schemas.Metrics) *float64 { return &m.ReqPerS },
}
var metricOptionals = []func(*schemas.Metrics) **float64{
	// Null where no request succeeded: the median is over the
	// repeats that measured it.
	func(m *schemas.Metrics) **float64 { return &m.RTFx },
	func(m *schemas.Metrics) **float64 { return &m.LatencyMeanS },
	func(m *schemas.Metrics) **float64 { return &m.LatencyP50S },
	func(m *schemas.Metrics) **float64 { return &m.LatencyP90S },
	func(m *schemas.Metrics) **float64 { return &m.LatencyP95S },
	func(m *schemas.Metrics) **float64 { return &m.LatencyP99S },
	func(m *schemas.Metrics) **float64 { return &m.LatencyMaxS },
	func(m *schemas.Metrics) **float64 { return &m.TTFBP50S },
	func(m *schemas.Metrics) **float64 { return &m.MeanInFlight },
	func(m *schemas.Metrics) **float64 { return &m.FullConcurrencyShare },
	func(m *schemas.Metrics) **float64 { return &m.OfferedRate },
	func(m *schemas.Metrics) **float64 { return &m.SendRate },
	func(m *schemas.Metrics) **float64 { return &m.LatenessP50S },
	func(m *schemas.Metrics) **float64 { return &m.LatenessP99S },
	func(m *schemas.Metrics) **float64 { return &m.ArrivalLatencyP50S },
	func(m *schemas.Metrics) **float64 { return &m.ArrivalLatencyP99S },
	func(m *schemas.Metrics) **float64 { return &m.Goodput },
	func(m *schemas.Metrics) **float64 { return &m.ArrivalGrowth },
	func(m *schemas.Metrics) **float64 { return &m.BacklogGrowth },
	func(m *schemas.Metrics) **float64 { return &m.Quality },
	func(m *schemas.Metrics) **float64 { return &m.GPUUtilMean },
	func(m *schemas.Metrics) **float64 { return &m.GPUUtilMax },
	func(m *schemas.Metrics) **float64 { return &m.GPUMemPeakBytes },
	func(m *schemas.Metrics) **float64 { return &m.GPUPowerPeakW },
	func(m *schemas.Metrics) **float64 { return &m.HostCPUMean },
	func(m *schemas.Metrics) **float64 { return &m.ClientCPUMean },
	func(m *schemas.Metrics) **float64 { return &m.CacheHits },
}

// summarize takes the median, min and max of every field over repeats.
func summarize(reps []schemas.Metrics) (med, lo, hi schemas.Metrics) {
	{
		var v []int
		for i := range reps {
			if p := reps[i].WarmupPeakInFlight; p != nil {
				v = append(v, *p)
			}
		}
		if len(v) > 0 {
			a := medianInt(v) // sorts v
			b, c := v[0], v[len(v)-1]
			med.WarmupPeakInFlight, lo.WarmupPeakInFlight, hi.WarmupPeakInFlight = &a, &b, &c
		}
	}
	for _, f := range metricInts {
		v := make([]int, len(reps))
		for i := range reps {
			v[i] = *f(&reps[i])
		}
		*f(&med) = medianInt(v)
		*f(&lo), *f(&hi) = v[0], v[len(v)-1] // medianInt sorted v
	}
	for _, f := range metricFloats {
		v := make([]float64, len(reps))
		for i := range reps {
			v[i] = *f(&reps[i])
		}
		*f(&med) = median(v)
		*f(&lo), *f(&hi) = v[0], v[len(v)-1]
	}
	for _, f := range metricOptionals {
		var v []float64
		for i := range reps {
			if p := *f(&reps[i]); p != nil {
				v = append(v, *p)
			}
		}
		if len(v) == 0 {
			continue
		}
		a, b, c := median(v), v[0], v[len(v)-1]
		*f(&med), *f(&lo), *f(&hi) = &a, &b, &c
	}
	med.Errors, lo.Errors, hi.Errors = map[string]int{}, map[string]int{}, map[string]int{}
	classes := map[string]bool{}
	for _, r := range reps {
		for c := range r.Errors {
			classes[c] = true
		}
	}
	for c := range classes {
		v := make([]int, len(reps))
		for i, r := range reps {
			v[i] = r.Errors[c]
		}
		md := medianInt(v) // sorts v
		for m, x := range map[*schemas.Metrics]int{&med: md, &lo: v[0], &hi: v[len(v)-1]} {
			if x > 0 {
				m.Errors[c] = x
			}
		}
	}
	summarizePercentiles(reps, &med, &lo, &hi)
	summarizeFigures(reps, &med, &lo, &hi)
	summarizeTelemetry(reps, &med, &lo, &hi)
	return med, lo, hi
}

// summarizePercentiles takes the median, min and max of each asked-for
// latency percentile over the repeats, as of the fixed ones: over the
// repeats where it is not null, null where none has it. Every repeat has
// the run's list (repeatMetrics).
func summarizePercentiles(reps []schemas.Metrics, med, lo, hi *schemas.Metrics) {
	if len(reps) == 0 || len(reps[0].LatencyPercentiles) == 0 {
		return
	}
	for i, lp := range reps[0].LatencyPercentiles {
		var v []float64
		for _, r := range reps {
			if i < len(r.LatencyPercentiles) && r.LatencyPercentiles[i].LatencyS != nil {
				v = append(v, *r.LatencyPercentiles[i].LatencyS)
			}
		}
		a, b, c := schemas.LatencyPercentile{P: lp.P}, schemas.LatencyPercentile{P: lp.P}, schemas.LatencyPercentile{P: lp.P}
		if len(v) > 0 {
			x := median(v) // sorts v
			y, z := v[0], v[len(v)-1]
			a.LatencyS, b.LatencyS, c.LatencyS = &x, &y, &z
		}
		med.LatencyPercentiles = append(med.LatencyPercentiles, a)
		lo.LatencyPercentiles = append(lo.LatencyPercentiles, b)
		hi.LatencyPercentiles = append(hi.LatencyPercentiles, c)
	}
}
