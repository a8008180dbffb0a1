package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// contradictions lists the pairs of sentences in one paragraph of md
// (a Markdown report) that the next contradicts, by the rules of issue
// 40: a queue that "never exceeds half" beside a knee that attributes
// the growth; a stage "Not observed" in a paragraph that gives it a
// figure; attributed shares that do not add up to 100 %, or a stage
// that "explains" more than the growth; a probe "no cache effect" whose
// interval reaches the noise bound; a target that kept up "at every
// rate" and "did not keep up" somewhere.
func contradictions(md string) []string {
	var out []string
	share := regexp.MustCompile(`of the [+−]?[0-9.]+ ms \([^)]*\): ([^.]*)`)
	pctRe := regexp.MustCompile(`\((−?-?\d+) %\)`)
	explains := regexp.MustCompile(`explains ([0-9.]+) of the ([0-9.]+) ms`)
	noCache := regexp.MustCompile(`no cache effect seen \(ratio within noise\) \([^)]*95 % interval ([0-9.]+) to ([0-9.]+)\)`)
	notObs := regexp.MustCompile(`Not observed: ([^(]*) \(no such histogram`)
	for _, p := range strings.Split(md, "\n\n") {
		if strings.Contains(p, "never exceeds half") && strings.Contains(p, "The knee:") {
			out = append(out, "queue never exceeds half, beside a knee: "+p)
		}
		for _, m := range explains.FindAllStringSubmatch(p, -1) {
			a, _ := strconv.ParseFloat(m[1], 64)
			b, _ := strconv.ParseFloat(m[2], 64)
			if a > b {
				out = append(out, "a stage explains more than the growth: "+m[0])
			}
		}
		for _, m := range share.FindAllStringSubmatch(p, -1) {
			sum := 0
			for _, x := range pctRe.FindAllStringSubmatch(m[1], -1) {
				n, _ := strconv.Atoi(strings.Replace(x[1], "−", "-", 1))
				sum += n
			}
			if sum != 100 {
				out = append(out, "shares add to "+strconv.Itoa(sum)+" %: "+m[0])
			}
		}
		if m := notObs.FindStringSubmatch(p); m != nil {
			for _, st := range strings.Split(m[1], ", ") {
				if strings.Contains(p, st+" +") || strings.Contains(p, st+" explains") || strings.Contains(p, "is "+st+" (") || strings.Contains(p, st+" time dominates") {
					out = append(out, "stage "+st+" not observed and given a figure: "+p)
				}
			}
		}
		for _, m := range noCache.FindAllStringSubmatch(p, -1) {
			if hi, _ := strconv.ParseFloat(m[2], 64); hi >= 1.1 {
				out = append(out, "no cache effect with an interval reaching the noise bound: "+m[0])
			}
		}
	}
	for _, m := range regexp.MustCompile(`(\S+) kept up at every rate offered`).FindAllStringSubmatch(md, -1) {
		if strings.Contains(md, m[1]+" did not keep up") || strings.Contains(md, ", "+m[1]+" did not (") {
			out = append(out, m[1]+" kept up at every rate and did not")
		}
	}
	return out
}

// No report of the test inputs has a sentence the next contradicts: the
// fixtures, their stage and per-request variants (the sim run, its
// sglang-omni persona joined by request id: issue 40's seed-shaped
// paragraph), the open loop past a knee, an undecided cache probe.
func TestNoContradictions(t *testing.T) {
	ins := append(variants(), capacityFixture(), seedShaped())
	for i, in := range ins {
		if in.Lang != "" && in.Lang != "en" {
			continue
		}
		md := mdOf(t, in)
		for _, c := range contradictions(md) {
			t.Errorf("input %d: %s", i, c)
		}
	}
	// The checker catches what issue 40 quoted.
	bad := "**x:** from the requests joined by request id: the median request's queue time never exceeds half its server time. The knee: from C = 32 to 64, throughput +3 %, latency +98 %; queue explains 289 of the 288 ms. Not observed: queue (the server exposes no such histogram; q would carry it)."
	if got := contradictions(bad); len(got) < 2 {
		t.Errorf("the checker misses issue 40's paragraph: %q", got)
	}
	if got := contradictions("a: no cache effect seen (ratio within noise) (median 1 ms; speedup 1.36, 95 % interval 1.02 to 1.54)."); len(got) != 1 {
		t.Errorf("the checker misses an undecided probe read as no effect: %q", got)
	}
}

// seedShaped is the sim run with sglang-omni's profiler joined by request
// id (perRequestVariants' third) and a throughput knee at its top level
// (throughput flat, mean latency doubled): issue 40's seed-shaped
// paragraph, a queue that never dominates beside a knee whose growth
// the joined requests attribute.
func seedShaped() Input {
	in := perRequestVariants()[2]
	for ti := range in.Claims.Targets {
		tc := &in.Claims.Targets[ti]
		if tc.Target != "sglang-omni" || len(tc.Levels) < 2 {
			continue
		}
		lo, hi := &tc.Levels[len(tc.Levels)-2], &tc.Levels[len(tc.Levels)-1]
		for r := range hi.Repeats {
			m := &hi.Repeats[r]
			m.ReqPerS = lo.Median.ReqPerS
			if m.LatencyMeanS != nil && lo.Median.LatencyMeanS != nil {
				m.LatencyMeanS = ptr(2 * *lo.Median.LatencyMeanS)
			}
		}
		hi.Median, hi.Min, hi.Max = summarize(hi.Repeats)
	}
	return in
}

// The seed-shaped paragraph reads one story: the knee's attribution, no
// "never exceeds half" beside it, no "Not observed: queue" where the
// joined requests observed it.
func TestSeedShapedKnee(t *testing.T) {
	md := mdOf(t, seedShaped())
	var para string
	for _, p := range strings.Split(md, "\n\n") {
		if strings.HasPrefix(p, "**sglang-omni:**") && strings.Contains(p, "The knee:") {
			para = p
		}
	}
	if para == "" {
		t.Fatalf("no knee for sglang-omni:\n%s", section(md, "Where the time goes"))
	}
	if strings.Contains(para, "never exceeds half") || strings.Contains(para, "Not observed: queue") || !strings.Contains(para, "medians of the requests joined by request id") {
		t.Errorf("seed-shaped paragraph: %s", para)
	}
}
