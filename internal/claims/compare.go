package claims

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// Tolerance says how far a replayed claim may move from the sealed one and
// still count as reproduced.
type Tolerance struct {
	// Relative bounds |replayed - sealed| / sealed for req_per_s, rtfx and
	// the latencies, and |replayed - sealed| / sealed requests for the
	// succeeded and failed counts (0.1 is 10%).
	Relative float64
	// WERPoints bounds |replayed - sealed| of wer in percentage points (1
	// is one point: 0.050 -> 0.059 is within it).
	QualityPoints float64
	// AllTails judges every percentile by the tolerance alone, however
	// few requests it rests on (no Unstable verdict): how a replay sealed
	// before the tail rule was judged (its predicate's tolerance has no
	// tail_rule), so that verify re-derives it as it was sealed.
	AllTails bool
	// Figures compares the run's task's figures too (schemas.Metrics
	// Figures, relative, by name after ComparedMetrics): what replay and
	// compare do now; a replay sealed before they were compared (its
	// predicate's tolerance has no figures_rule) is re-derived without.
	Figures bool
}

// TailRule names the rule of StableRequests in a sealed replay's
// tolerance (schemas.ReplayTolerance.TailRule).
const TailRule = "percentile_95_bound"

// FiguresRule names, in a sealed replay's tolerance, that the task's
// figures were compared (schemas.ReplayTolerance.FiguresRule).
const FiguresRule = "task_figures"

// StableRequests is the fewest requests a latency percentile p (0 < p <
// 1) must rest on to be judged: the smallest n with p^n <= 0.025. With
// fewer, the chance that every request fell below the true percentile is
// above 2.5 %: even the slowest request measured does not bound it at
// 95 % confidence (order statistics, no assumption on the distribution),
// so the figure is the sample's extreme, set by one or two stragglers,
// not an estimate. p99 needs 368 requests (3.7 beyond its rank; below
// 100 it is the maximum), p50 needs 6.
func StableRequests(p float64) int {
	return int(math.Ceil(math.Log(0.025)/math.Log(p) - 1e-9))
}

// percentileOf is the percentile a compared metric is (0.5 for
// latency_p50_s, 0.999 for latency_p99_9_s), 0 for the others.
func percentileOf(metric string) float64 {
	if p, ok := percentileName(metric); ok && p > 0 && p < 100 {
		return p / 100
	}
	return 0
}

// PercentileMetric is the compared metric of the latency percentile p
// (schemas.LatencyPercentileName).
func PercentileMetric(p float64) string { return schemas.LatencyPercentileName(p) }

// percentileName reads PercentileMetric's name back.
func percentileName(metric string) (float64, bool) {
	if !strings.HasPrefix(metric, "latency_p") || !strings.HasSuffix(metric, "_s") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(metric, "latency_p"), "_s"), "_", "."), 64)
	return v, err == nil
}

// askedMetrics are the asked-for latency percentiles (run --percentiles)
// both medians have, as compared metrics, in s's order, less p50 and p99
// (ComparedMetrics has them: the same values).
func askedMetrics(s, r schemas.Metrics) []string {
	var out []string
	for _, lp := range s.LatencyPercentiles {
		if lp.P == 50 || lp.P == 99 {
			continue
		}
		for _, rp := range r.LatencyPercentiles {
			if rp.P == lp.P {
				out = append(out, PercentileMetric(lp.P))
				break
			}
		}
	}
	return out
}

// DefaultTolerance: 10% on throughput, latency and counts, one point of WER.
var DefaultTolerance = Tolerance{Relative: 0.10, QualityPoints: 1, Figures: true}

// Verdict of one compared figure.
type Verdict string

const (
	Same Verdict = "OK"   // within the tolerance
	Diff Verdict = "DIFF" // beyond it, or present on one side only
	// NotComparable: beyond the tolerance, but the replay ran on other
	// hardware than the sealed run (GPU model, count or memory, host
	// cores), so the move is not shown to be the server's.
	NotComparable Verdict = "NOT-COMPARABLE"
	// Unstable: a percentile of fewer requests (per repeat, on the side
	// with fewer) than StableRequests, within the tolerance or beyond it:
	// shown, never counted as a difference or as an agreement, so it
	// cannot decide a verdict alone either way.
	Unstable Verdict = "UNSTABLE"
)

// Units of Difference.Change.
const (
	ChangeRelative = "relative"    // a fraction of the sealed value (0.1 is +10%)
	ChangeOfCount  = "of_requests" // a fraction of the sealed level's requests
	ChangePoints   = "points"      // percentage points (wer)
)

// Metrics compared, in the order Compare lists them for a level. Each is
// the median over repeats of claims.json. The latency percentiles both
// sides asked for (run --percentiles; claims.json's latency_percentiles)
// follow latency_p99_s, named PercentileMetric.
var ComparedMetrics = []string{"req_per_s", "rtfx", "latency_p50_s", "latency_p99_s", "wer", "succeeded", "failed"}

// Difference is one compared figure of one target and level, or (Metric
// "") a target or level present in only one of the two claims.
type Difference struct {
	Target      string   `json:"target"`
	Concurrency int      `json:"concurrency"`
	Metric      string   `json:"metric"`
	Sealed      *float64 `json:"sealed"`   // null: absent (or wer null) in the sealed claims
	Replayed    *float64 `json:"replayed"` // null: absent (or wer null) in the replay
	// Change is replayed minus sealed in ChangeUnit; null when one side
	// is missing or the sealed value is 0 and the replayed one is not.
	Change     *float64 `json:"change"`
	ChangeUnit string   `json:"change_unit,omitempty"`
	Verdict    Verdict  `json:"verdict"`
	Reason     string   `json:"reason,omitempty"` // why a DIFF without a change
}

// Compare sets the medians of replayed claims against sealed ones, target
// by target (sealed order, then targets only the replay has) and level by
// level (sealed order, then levels only the replay has), metric by metric
// in ComparedMetrics order. A target or level on one side only is one
// DIFF row with Metric "". wer is left out when it is null on both sides
// (no references) and is a DIFF when it is null on one side only.
//
// Relative metrics: change = (replayed - sealed) / sealed; both 0 is no
// change, a sealed 0 with a replayed non-zero is a DIFF with no change.
// Their verdict holds the tolerance both ways, as a ratio: OK only when
// the larger value exceeds the smaller by at most tol (so a fall to a
// tenth is a DIFF under a 200 % tolerance, as the tenfold rise of the
// latency that goes with it is).
// A percentile (latency_p50_s, latency_p99_s) whose median count of
// successful requests per repeat, on either side, is below StableRequests
// is Unstable instead of OK or DIFF (unless tol.AllTails).
// Counts (succeeded, failed): change = (replayed - sealed) / sealed
// requests, so a count that was 0 can move a little without failing the
// replay. wer: change = (replayed - sealed) * 100 points.
func Compare(sealed, replayed schemas.Claims, tol Tolerance) []Difference {
	var out []Difference
	rep := map[string]schemas.TargetClaims{}
	for _, t := range replayed.Targets {
		rep[t.Target] = t
	}
	seen := map[string]bool{}
	for _, st := range sealed.Targets {
		seen[st.Target] = true
		rt, ok := rep[st.Target]
		if !ok {
			for _, l := range st.Levels {
				out = append(out, Difference{Target: st.Target, Concurrency: l.Concurrency, Verdict: Diff, Reason: "target not in the replay"})
			}
			continue
		}
		out = append(out, compareTarget(st, rt, tol)...)
	}
	for _, rt := range replayed.Targets {
		if seen[rt.Target] {
			continue
		}
		for _, l := range rt.Levels {
			out = append(out, Difference{Target: rt.Target, Concurrency: l.Concurrency, Verdict: Diff, Reason: "target not in the sealed claims"})
		}
	}
	return out
}

func compareTarget(st, rt schemas.TargetClaims, tol Tolerance) []Difference {
	var out []Difference
	rep := map[int]schemas.LevelClaims{}
	for _, l := range rt.Levels {
		rep[l.Concurrency] = l
	}
	seen := map[int]bool{}
	for _, sl := range st.Levels {
		seen[sl.Concurrency] = true
		rl, ok := rep[sl.Concurrency]
		if !ok {
			out = append(out, Difference{Target: st.Target, Concurrency: sl.Concurrency, Verdict: Diff, Reason: "level not in the replay"})
			continue
		}
		out = append(out, compareLevel(st.Target, sl, rl, tol)...)
	}
	for _, rl := range rt.Levels {
		if !seen[rl.Concurrency] {
			out = append(out, Difference{Target: st.Target, Concurrency: rl.Concurrency, Verdict: Diff, Reason: "level not in the sealed claims"})
		}
	}
	return out
}

func compareLevel(target string, sl, rl schemas.LevelClaims, tol Tolerance) []Difference {
	s, r := sl.Median, rl.Median
	metrics := ComparedMetrics
	if asked := askedMetrics(s, r); len(asked) > 0 {
		i := slices.Index(metrics, "latency_p99_s") + 1
		metrics = slices.Concat(metrics[:i], asked, metrics[i:])
	}
	if tol.Figures {
		metrics = slices.Concat(metrics, figureNames(s, r))
	}
	out := make([]Difference, 0, len(metrics))
	for _, m := range metrics {
		d := Difference{Target: target, Concurrency: sl.Concurrency, Metric: m}
		switch m {
		case "wer":
			if s.Quality == nil && r.Quality == nil {
				continue
			}
			d.Sealed, d.Replayed, d.ChangeUnit = ptr2(s.Quality), ptr2(r.Quality), ChangePoints
			switch {
			case s.Quality == nil:
				d.Reason = "wer is null in the sealed claims"
			case r.Quality == nil:
				d.Reason = "wer is null in the replay"
			default:
				d.Change = ptr((*r.Quality - *s.Quality) * 100)
			}
			d.Verdict = within(d.Change, tol.QualityPoints)
		case "succeeded", "failed":
			sv, rv := float64(s.Succeeded), float64(r.Succeeded)
			if m == "failed" {
				sv, rv = float64(s.Failed), float64(r.Failed)
			}
			d.Sealed, d.Replayed, d.ChangeUnit = ptr(sv), ptr(rv), ChangeOfCount
			d.Change = relative(sv, rv, float64(s.Requests))
			if d.Change == nil {
				d.Reason = "the sealed level has no requests"
			}
			d.Verdict = within(d.Change, tol.Relative)
		default:
			sp, rp := metricValue(s, m), metricValue(r, m)
			d.Sealed, d.Replayed, d.ChangeUnit = ptr2(sp), ptr2(rp), ChangeRelative
			switch {
			case sp == nil && rp == nil:
				// Neither measured it (no request succeeded): nothing
				// to compare, and nothing differs.
				d.Change = ptr(0.0)
			case sp == nil && s.Figures != nil && metricIsFigure(m):
				d.Reason = "the sealed run did not observe it"
			case rp == nil && r.Figures != nil && metricIsFigure(m):
				d.Reason = "the replay did not observe it"
			case sp == nil:
				d.Reason = "the sealed run measured no successful request"
			case rp == nil:
				d.Reason = "the replay measured no successful request"
			default:
				d.Change = relative(*sp, *rp, *sp)
				if d.Change == nil {
					d.Reason = "the sealed value is 0"
				}
			}
			d.Verdict = within(d.Change, tol.Relative)
			if d.Verdict == Same && sp != nil && rp != nil && ratioBeyond(*sp, *rp, tol.Relative) {
				d.Verdict = Diff
			}
			// Both measured, but one side's percentile rests on too few
			// requests: a move is not shown to be the server's, and an
			// agreement is no more shown than a difference would be.
			if p := percentileOf(m); (d.Verdict == Diff || d.Verdict == Same) && p > 0 && d.Change != nil && !tol.AllTails {
				if n, need := min(s.Succeeded, r.Succeeded), StableRequests(p); n < need {
					d.Verdict = Unstable
					d.Reason = fmt.Sprintf("p%g of %d requests per repeat: too few to judge (it needs %d to be bounded at 95 %%); not counted", p*100, n, need)
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// metricValue is the named metric, nil where it was not measured (no
// successful request).
func metricValue(m schemas.Metrics, name string) *float64 {
	switch name {
	case "req_per_s":
		return &m.ReqPerS
	case "rtfx":
		return m.RTFx
	case "latency_p50_s":
		return m.LatencyP50S
	case "latency_p99_s":
		return m.LatencyP99S
	}
	if metricIsFigure(name) {
		return m.Figure(name)
	}
	if p, ok := percentileName(name); ok {
		for _, lp := range m.LatencyPercentiles {
			if lp.P == p {
				return lp.LatencyS
			}
		}
		return nil
	}
	panic("claims: no metric " + name)
}

// relative is (r - s) / base; nil when base is 0 unless r == s.
func relative(s, r, base float64) *float64 {
	if r == s {
		return ptr(0.0)
	}
	if base == 0 {
		return nil
	}
	return ptr((r - s) / base)
}

// ratioBeyond says whether the larger of s and r exceeds the smaller by
// more than tol, as a ratio. A relative change alone cannot flag a fall
// beyond 100 %: with --tolerance 200 % a server ten times slower is -90 %
// in req/s, "within" the tolerance, while its latency is +900 %. The
// ratio makes the tolerance symmetric: ten times slower is beyond 200 %
// whichever way the metric points.
func ratioBeyond(s, r, tol float64) bool {
	lo, hi := math.Min(s, r), math.Max(s, r)
	if lo == hi {
		return false
	}
	if lo <= 0 {
		return true
	}
	return hi/lo-1 > tol*(1+1e-9)+1e-12
}

// within judges a change; a tiny epsilon keeps a change of exactly the
// tolerance (10% computed as 0.10000000000000009) on the OK side.
func within(change *float64, tol float64) Verdict {
	if change == nil || math.IsNaN(*change) || math.Abs(*change) > tol*(1+1e-9)+1e-12 {
		return Diff
	}
	return Same
}

func ptr2(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

// figureNames are the task figures either median has, sorted.
func figureNames(s, r schemas.Metrics) []string {
	var out []string
	for _, m := range []schemas.Metrics{s, r} {
		for k := range m.Figures {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// metricIsFigure says name is a task's figure, not one of the core's
// compared metrics or an asked-for latency percentile.
func metricIsFigure(name string) bool {
	if slices.Contains(ComparedMetrics, name) {
		return false
	}
	_, ok := percentileName(name)
	return !ok
}
