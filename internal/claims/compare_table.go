package claims

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/benchseal/benchseal/schemas"
)

// ForTargets is c with only the targets that keep accepts: the sealed
// claims that a replay of some of their targets is compared with.
func ForTargets(c schemas.Claims, keep func(target string) bool) schemas.Claims {
	var kept []schemas.TargetClaims
	for _, t := range c.Targets {
		if keep(t.Target) {
			kept = append(kept, t)
		}
	}
	c.Targets = kept
	var probes []schemas.CacheProbe
	for _, p := range c.Probes {
		if keep(p.Target) {
			probes = append(probes, p)
		}
	}
	c.Probes = probes
	return c
}

// ComparisonTolerance is Tolerance as Comparison's JSON gives it.
type ComparisonTolerance struct {
	Relative      float64 `json:"relative"`
	QualityPoints float64 `json:"wer_points"`
}

// Comparison is a replay compared with the run it replays: what benchseal
// replay --json prints.
type Comparison struct {
	Source         string              `json:"source"`
	BundleSHA256   string              `json:"bundle_sha256,omitempty"`
	KeyFingerprint string              `json:"key_fingerprint,omitempty"`
	KeyPinned      bool                `json:"key_pinned"`
	Replay         string              `json:"replay"` // the replay's run directory
	Tolerance      ComparisonTolerance `json:"tolerance"`
	OK             bool                `json:"ok"`
	Differ         int                 `json:"differ"` // figures beyond the tolerance
	Differences    []Difference        `json:"differences"`
	// Probes sets each target's cache probe verdicts side by side; absent
	// when neither run made one. They do not count in OK or Differ.
	Probes []ProbeComparison `json:"probes,omitempty"`
	// Environment is the replay's environment against the sealed run's
	// (env/replay-diff.json, taken before measuring): what a figure that
	// moved may be explained by. Absent when it could not be taken.
	Environment *schemas.ReplayDiff `json:"environment,omitempty"`
}

// ProbeComparison is one target's active cache probe in the sealed run
// and in the replay, side by side: the verdict ("" when that run has no
// probe of the target) and whether they agree on caching. A cache is a
// setting of the server, not a figure of the protocol, so a verdict that
// changed is shown, not held against the replay: the replay's exit status
// counts the figures only.
type ProbeComparison struct {
	Target   string `json:"target"`
	Sealed   string `json:"sealed"`
	Replayed string `json:"replayed"`
	// Same: both runs probed the target and both found it caching, or
	// both found no effect.
	Same bool `json:"same"`
}

// CompareProbes sets the cache probes of the sealed and replayed claims
// side by side, in the sealed order, then targets only the replay probed;
// nil when neither has a probe.
func CompareProbes(sealed, replayed schemas.Claims) []ProbeComparison {
	var out []ProbeComparison
	rep := map[string]schemas.CacheProbe{}
	for _, p := range replayed.Probes {
		rep[p.Target] = p
	}
	seen := map[string]bool{}
	for _, s := range sealed.Probes {
		seen[s.Target] = true
		r, ok := rep[s.Target]
		pc := ProbeComparison{Target: s.Target, Sealed: s.Verdict}
		if ok {
			pc.Replayed = r.Verdict
			pc.Same = s.Caches == r.Caches && (s.Verdict == ProbeUnsure) == (r.Verdict == ProbeUnsure) && s.Verdict != ProbeNotProbed && r.Verdict != ProbeNotProbed
		}
		out = append(out, pc)
	}
	for _, r := range replayed.Probes {
		if !seen[r.Target] {
			out = append(out, ProbeComparison{Target: r.Target, Replayed: r.Verdict})
		}
	}
	return out
}

// WriteProbeComparison writes the probes side by side, one row a target
// ("-" where a run has no probe of it); nothing when there are none.
func WriteProbeComparison(w io.Writer, probes []ProbeComparison) error {
	if len(probes) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target	cache probe (sealed)	cache probe (replayed)	same")
	for _, p := range probes {
		same := "no"
		switch {
		case p.Same:
			same = "yes"
		case p.Sealed == "" || p.Replayed == "":
			same = "-" // nothing to compare with
		}
		fmt.Fprintf(tw, "%s	%s	%s	%s\n", p.Target, orDash(p.Sealed), orDash(p.Replayed), same)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteJSON writes c indented, with no differences as [] (never null).
func (c Comparison) WriteJSON(w io.Writer) error {
	if c.Differences == nil {
		c.Differences = []Difference{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// Differing counts the figures of diffs beyond the tolerance.
func Differing(diffs []Difference) int {
	n := 0
	for _, d := range diffs {
		if d.Verdict == Diff {
			n++
		}
	}
	return n
}

// Unstables counts the figures that rest on too few requests to judge
// (Unstable): shown, not counted among the differences.
func Unstables(diffs []Difference) int {
	n := 0
	for _, d := range diffs {
		if d.Verdict == Unstable {
			n++
		}
	}
	return n
}

// WriteComparison writes one aligned row per compared figure: the table
// that benchseal replay prints.
func WriteComparison(w io.Writer, diffs []Difference) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tC\tmetric\tsealed\treplayed\tchange\tverdict")
	for _, d := range diffs {
		metric := d.Metric
		if metric == "" {
			metric = "-"
		}
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s\t%s\t%s", d.Target, d.Concurrency, metric,
			figureText(d.Metric, d.Sealed), figureText(d.Metric, d.Replayed), changeText(d), d.Verdict)
		if d.Reason != "" {
			line += "  " + d.Reason
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// figureText formats a compared figure: wer as a percentage, counts as
// whole numbers, latencies to 0.1 ms, the rest to two decimals.
func figureText(metric string, v *float64) string {
	switch {
	case v == nil:
		return "-"
	case metric == "wer":
		return fmt.Sprintf("%.2f%%", *v*100)
	case metric == "succeeded" || metric == "failed":
		return strconv.FormatFloat(*v, 'f', -1, 64)
	case strings.HasPrefix(metric, "latency_p"):
		return fmt.Sprintf("%.4f", *v)
	}
	return fmt.Sprintf("%.2f", *v)
}

func changeText(d Difference) string {
	switch {
	case d.Change == nil:
		return "-"
	case d.ChangeUnit == ChangePoints:
		return fmt.Sprintf("%+.2fpt", *d.Change)
	}
	return fmt.Sprintf("%+.1f%%", *d.Change*100)
}
