package report

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// An open-loop run's report says so in its protocol line and shows the
// open-loop table from claims.json; a closed loop's shows neither.
func TestOpenLoopTable(t *testing.T) {
	md, _, _ := render(t, fixture())
	if section(string(md), "Open loop") != "" || strings.Contains(string(md), "open loop at") {
		t.Fatal("a closed-loop report shows the open-loop table or protocol")
	}
	in := fixture()
	p := &in.Run.Protocol
	p.Mode, p.Burstiness, p.MaxConcurrency = schemas.ModeOpen, "1", 8
	for range p.Levels {
		p.RequestRates = append(p.RequestRates, float64(10*(len(p.RequestRates)+1)))
	}
	f := func(x float64) *float64 { return &x }
	l := &in.Claims.Targets[0].Levels[0]
	l.Median.OfferedRate, l.Median.SendRate = f(10), f(9.87)
	l.Median.LatenessP50S, l.Median.LatenessP99S = f(0.0004), f(0.0123)
	l.Median.ArrivalLatencyP50S, l.Median.ArrivalLatencyP99S = f(0.25), f(0.75)
	md, _, _ = render(t, in)
	m := string(md)
	if !strings.Contains(m, "Protocol: open loop at offered rates 10, 20") || !strings.Contains(m, "at most 8 in flight") {
		t.Errorf("protocol line: %s", m[strings.Index(m, "Protocol:"):][:200])
	}
	sec := section(m, "Open loop")
	row := "| " + strconv.Itoa(l.Concurrency) + " | " + in.Claims.Targets[0].Target + " | 10.0 | 9.87 | 0.400 | 12.3 | 250 | 750 |"
	if !strings.Contains(sec, row+" not observed |") {
		t.Errorf("open-loop table lacks %q:\n%s", row+" not observed |", sec)
	}
	if !strings.Contains(sec, row) {
		t.Errorf("open-loop table lacks %q:\n%s", row, sec)
	}
	// With --slo, a goodput column and its limits.
	e2e := 0.5
	p.SLO = &schemas.SLO{E2ES: &e2e}
	l.Median.Goodput = f(7.5)
	md, _, _ = render(t, in)
	sec = section(string(md), "Open loop")
	if !strings.Contains(sec, row+" 7.50 | not observed |") || !strings.Contains(sec, "meeting e2e ≤ 500 ms, from the planned arrival") {
		t.Errorf("open-loop table with an SLO:\n%s", sec)
	}
}

// openFixture is fixture() as an open loop at 10, 20, 40, 80 and 160
// req/s (its five levels, given out of order to show the report orders
// them by rate): sglang-omni keeps up to 40 req/s and not at 80 (its
// latency from arrival grows 3×); vllm-omni keeps up at 10 and 20, and
// whether it kept up at 40 and above is not observed. Goodput falls with
// the rate for vllm-omni.
func openFixture() Input {
	in := fixture()
	p := &in.Run.Protocol
	p.Mode, p.Burstiness = schemas.ModeOpen, "1"
	p.RequestRates = []float64{10, 20, 40, 160, 80}
	growth := map[string][]float64{
		"sglang-omni": {1.02, 1.05, 1.1, 5, 3},
		"vllm-omni":   {1.01, 1.2, -1, -1, -1},
	}
	for ti := range in.Claims.Targets {
		tc := &in.Claims.Targets[ti]
		for li := range tc.Levels {
			l := &tc.Levels[li]
			rate := p.RequestRates[li]
			for r := range l.Repeats {
				m := &l.Repeats[r]
				m.Failed, m.Succeeded, m.Errors = 0, m.Requests, map[string]int{}
				m.OfferedRate, m.SendRate = ptr(rate), ptr(rate*0.99)
				m.LatenessP50S, m.LatenessP99S = ptr(0.0002), ptr(0.0009)
				lat := 0.2 + 0.01*rate*float64(ti+1) + 0.01*float64(r)
				m.ArrivalLatencyP50S, m.ArrivalLatencyP99S = ptr(lat), ptr(2*lat)
				m.Goodput = ptr(rate * (1 - 0.002*rate*float64(ti)) * (1 + 0.01*float64(r)))
				m.ArrivalGrowth = nil
				if g := growth[tc.Target][li]; g > 0 {
					m.ArrivalGrowth = ptr(g)
				}
				m.BacklogGrowth = ptr(0.0)
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	return in
}

// The report names each target's knee from the claims' growth figures,
// with all three outcomes: did not keep up at a rate, kept up at every
// rate observed, not observed.
func TestOpenLoopKeptUp(t *testing.T) {
	in := openFixture()
	md, _, _ := render(t, in)
	sec := section(string(md), "Open loop")
	for _, want := range []string{
		"sglang-omni did not keep up at 80 req/s (its latency from arrival grew 3.00× from the first third of the level to the last); it kept up at 40 req/s.",
		"vllm-omni kept up at 10, 20 req/s; not observed at 40, 80, 160 req/s (fewer than 10 successful requests in a third).",
		"| 16 | sglang-omni | 80.0 | 79.2 | 0.200 | 0.900 | 1010 | 2020 | no (3.00×) |",
		"| 1 | vllm-omni | 10.0 | 9.90 | 0.200 | 0.900 | 410 | 820 | yes (1.01×) |",
		"| 4 | vllm-omni | 40.0 | 39.6 | 0.200 | 0.900 | 1010 | 2020 | not observed |",
		"*Latency from arrival p50 (solid) and p99 (dashed) vs offered rate",
		"*Successful requests per second vs offered rate (no SLO: every success counts)",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("open-loop section lacks %q:\n%s", want, sec)
		}
	}
	// Rows in order of offered rate: 80 req/s (level 16) before 160 (level 8).
	if i, j := strings.Index(sec, "| 16 | sglang-omni"), strings.Index(sec, "| 8 | sglang-omni"); i < 0 || j < i {
		t.Errorf("rows not in order of offered rate:\n%s", sec)
	}
	// Failures beyond 1 % are not keeping up, whatever the latency.
	l := &in.Claims.Targets[1].Levels[0]
	l.Repeats[0].Failed, l.Repeats[0].Succeeded = 2, l.Repeats[0].Requests-2
	md, _, _ = render(t, in)
	if sec := section(string(md), "Open loop"); !strings.Contains(sec, "vllm-omni did not keep up at 10 req/s (1.0 % of its requests failed); it kept up with no rate offered below it.") {
		t.Errorf("a failing level:\n%s", sec)
	}
	// Nothing observed at all.
	in = openFixture()
	for li := range in.Claims.Targets[1].Levels {
		l := &in.Claims.Targets[1].Levels[li]
		l.Median.ArrivalGrowth = nil
	}
	md, _, _ = render(t, in)
	if sec := section(string(md), "Open loop"); !strings.Contains(sec, "Whether vllm-omni kept up is not observed: no level had 10 successful requests in each third") {
		t.Errorf("nothing observed:\n%s", sec)
	}
}

// The open loop's conclusion at the rates both kept up with compares
// latency from arrival, with an SLO goodput too; "not compared" where
// whether one kept up is not observed.
func TestOpenLoopConclusion(t *testing.T) {
	in := openFixture()
	md, _, _ := render(t, in)
	sec := section(string(md), "Conclusion")
	for _, want := range []string{
		"**Open loop, sglang-omni vs vllm-omni:** at 10 req/s: sglang-omni ahead by",
		"at 40, 80, 160 req/s: not compared: whether vllm-omni kept up is not observed",
		"Where one kept up with a rate and the other did not, that is the verdict, not a ratio",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("conclusion lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "Throughput,") {
		t.Errorf("an open loop's conclusion ranks throughput:\n%s", sec)
	}
	e2e := 0.5
	in.Run.Protocol.SLO = &schemas.SLO{E2ES: &e2e}
	md, _, _ = render(t, in)
	sec = section(string(md), "Conclusion")
	for _, want := range []string{
		"at 10 req/s: goodput: within noise (±5 %); latency from arrival: sglang-omni ahead by 32 %",
		"and goodput at the SLO (e2e ≤ 500 ms;",
		"| offered req/s | goodput sglang-omni / vllm-omni | range over this run's 3 repeats | latency vllm-omni / sglang-omni |",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("conclusion with an SLO lacks %q:\n%s", want, sec)
		}
	}
}

// capacityFixture is the issue 40 run as claims: two targets offered 20,
// 40, 80, 110 and 150 req/s with an SLO, 3 repeats; vllm-omni keeps up
// everywhere at 300 ms from arrival; sglang-omni (capacity about 95
// req/s) keeps up to 80 req/s 33 % slower (400 ms) with the same
// goodput, and past its capacity its queue grows through the level
// (latency from arrival 5× and 12× from the first third to the last) and
// its goodput scatters (77.1, 13.1, 47.4 at 110).
func capacityFixture() Input {
	in := fixture()
	p := &in.Run.Protocol
	p.Mode, p.Burstiness = schemas.ModeOpen, "1"
	p.RequestRates = []float64{20, 40, 80, 110, 150}
	e2e := 0.5
	p.SLO = &schemas.SLO{E2ES: &e2e}
	for ti := range in.Claims.Targets {
		tc := &in.Claims.Targets[ti]
		slow := tc.Target == "sglang-omni"
		for li := range tc.Levels {
			l := &tc.Levels[li]
			rate := p.RequestRates[li]
			for r := range l.Repeats {
				m := &l.Repeats[r]
				m.Failed, m.Succeeded, m.Errors = 0, m.Requests, map[string]int{}
				m.OfferedRate, m.SendRate = ptr(rate), ptr(rate)
				m.LatenessP50S, m.LatenessP99S = ptr(0.0002), ptr(0.0009)
				lat, growth, good := 0.3+0.001*float64(r), 1.05, rate*(0.99+0.005*float64(r))
				if slow {
					lat = 0.4 + 0.001*float64(r)
					switch rate {
					case 110:
						lat, growth, good = 3+float64(r), 5, []float64{77.1, 13.1, 47.4}[r]
					case 150:
						lat, growth, good = 9+float64(r), 12, []float64{9, 14, 11}[r]
					}
				}
				m.ArrivalLatencyP50S, m.ArrivalLatencyP99S = ptr(lat), ptr(2*lat)
				m.Goodput, m.ArrivalGrowth, m.BacklogGrowth = ptr(good), ptr(growth), ptr(0.0)
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	return in
}

// Issue 40's open loop: where one target did not keep up there is no
// ratio, but "X kept up, Y did not (latency from arrival grew N×)"; at
// the rates both kept up with, the latency lead is named beside goodput
// (within noise there); the interval is the range over the 3 repeats.
func TestOpenLoopPastTheKnee(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		in := capacityFixture()
		in.Lang = lang
		md, _, _ := render(t, in)
		sec := section(string(md), map[string]string{"en": "Conclusion", "zh": "结论"}[lang])
		want := map[string][]string{
			"en": {
				"| 110 | — | — | — | — | vllm-omni kept up, sglang-omni did not (latency from arrival grew 5.00×) |",
				"| 150 | — | — | — | — | vllm-omni kept up, sglang-omni did not (latency from arrival grew 12.00×) |",
				"at 20, 40, 80 req/s: goodput: no difference shown (repeats overlap); latency from arrival: vllm-omni ahead by 33 %",
				"range over this run's 3 repeats",
			},
			"zh": {"vllm-omni 跟上了，sglang-omni 没有跟上（自到达起的延迟增长了 5.00×）", "延迟自到达：vllm-omni 领先 33 %"},
		}[lang]
		for _, w := range want {
			if !strings.Contains(sec, w) {
				t.Errorf("%s: conclusion lacks %q:\n%s", lang, w, sec)
			}
		}
		for _, rate := range []string{"110", "150"} {
			for _, line := range strings.Split(sec, "\n") {
				if strings.HasPrefix(line, "| "+rate+" |") && strings.Contains(line, "×–") {
					t.Errorf("%s: a ratio at %s req/s: %s", lang, rate, line)
				}
			}
		}
	}
}

// The charts against offered rate place levels by rate and label them so.
func TestOpenLoopCharts(t *testing.T) {
	in := openFixture()
	if got := ChartsOf(in); !slices.Contains(got, OpenLatency) || !slices.Contains(got, Goodput) {
		t.Fatalf("ChartsOf an open loop: %v", got)
	}
	if slices.Contains(ChartsOf(fixture()), OpenLatency) {
		t.Fatal("a closed loop has the open-loop charts")
	}
	_, _, svgs := render(t, in)
	s := string(svgs[OpenLatency])
	for _, want := range []string{">10</text>", ">160</text>", "offered rate, requests / s (log₂ scale)", "stroke-dasharray"} {
		if !strings.Contains(s, want) {
			t.Errorf("open-latency.svg lacks %q", want)
		}
	}
	// 10 req/s at the left, 160 at the right, 80 between 40 and 160.
	x := func(label string) float64 {
		i := strings.Index(s, ">"+label+"</text>")
		j := strings.LastIndex(s[:i], `x="`)
		v, _ := strconv.ParseFloat(s[j+3:j+3+strings.Index(s[j+3:], `"`)], 64)
		return v
	}
	if !(x("10") < x("40") && x("40") < x("80") && x("80") < x("160")) {
		t.Errorf("ticks not by rate: 10 %v, 40 %v, 80 %v, 160 %v", x("10"), x("40"), x("80"), x("160"))
	}
	if g := string(svgs[Goodput]); !strings.Contains(g, "no SLO: every success counts") {
		t.Errorf("goodput.svg without an SLO is not titled so")
	}
}
