package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// stage is a StageStat of count requests with the given mean.
func stage(name, family string, count int, mean float64) schemas.StageStat {
	return schemas.StageStat{Stage: name, Family: family, Count: float64(count), MeanS: ptr(mean), P50LeS: ptr(0.3), P95LeS: ptr(2.5)}
}

// vllmStages splits a client mean latency the way a vLLM with 8 running
// slots would: 12 ms of network and client, 5 ms of server time outside
// the engine, a service of 280 ms + 4 ms per concurrent request (30 %
// prefill, 70 % decode), and the rest waiting in the queue.
func vllmStages(c, count int, client float64) *schemas.ServerStages {
	e2e := client - 0.012
	service := min(e2e-0.005, 0.28+0.004*float64(c))
	queue := e2e - 0.005 - service
	return &schemas.ServerStages{Scope: schemas.ServerScopeMeasured, Stages: []schemas.StageStat{
		stage(schemas.StageQueue, "vllm:request_queue_time_seconds", count, queue),
		stage(schemas.StagePrefill, "vllm:request_prefill_time_seconds", count, 0.3*service),
		stage(schemas.StageDecode, "vllm:request_decode_time_seconds", count, 0.7*service),
		stage(schemas.StageInference, "vllm:request_inference_time_seconds", count, service),
		stage(schemas.StageTTFT, "vllm:time_to_first_token_seconds", count, queue+0.3*service),
		stage(schemas.StageE2E, "vllm:e2e_request_latency_seconds", count, e2e),
	}}
}

// fixtureStages is the fixture with the servers' own stages in every
// repeat: sglang-omni exposes only its HTTP handler's duration (9 ms under
// the client's latency), vllm-omni every vLLM stage (vllmStages), whose
// queue passes half the server time at C = 16.
func fixtureStages() Input {
	in := fixture()
	for ti := range in.Claims.Targets {
		tc := &in.Claims.Targets[ti]
		for li := range tc.Levels {
			l := &tc.Levels[li]
			for r := range l.Repeats {
				m := &l.Repeats[r]
				mean := *m.LatencyMeanS
				if ti == 0 {
					m.Server = &schemas.ServerStages{Scope: schemas.ServerScopeMeasured, Stages: []schemas.StageStat{
						stage(schemas.StageHTTP, "sglang_omni_http_request_duration_seconds", m.Requests, mean-0.009),
					}}
				} else {
					m.Server = vllmStages(l.Concurrency, m.Succeeded, mean)
				}
			}
		}
	}
	return in
}

func TestGoldenStages(t *testing.T) {
	in := fixtureStages()
	in.Verify = fixtureVerify()
	in.LinkCharts = true
	md, page, svgs := render(t, in)
	golden(t, "stages/REPORT.md", md)
	golden(t, "stages/report.html", page)
	golden(t, "stages/stages.svg", svgs[Stages])
	in.Lang = "zh"
	md, _, svgs = render(t, in)
	golden(t, "stages/zh/REPORT.md", md)
	golden(t, "stages/zh/stages.svg", svgs[Stages])
}

// TestStagesTable: the table's numbers are the medians over repeats of
// the servers' means in milliseconds; the HTTP handler stands in for
// server e2e where it is all a server has, and says so; what a server does
// not expose is "not observed" with the family that would carry it; the
// knee is the first level where queue time passes half the server time.
func TestStagesTable(t *testing.T) {
	in := fixtureStages()
	in.LinkCharts = true
	// The tables and the chart are report.html's; REPORT.md has the
	// findings and a pointer.
	report, _, _ := render(t, in)
	md := pageMarkdown(t, in)
	s := section(string(md), "Where the time goes")
	if s == "" {
		t.Fatalf("no \"Where the time goes\" section:\n%s", md)
	}
	short := section(string(report), "Where the time goes")
	if !strings.Contains(short, "Per-stage tables (mean ms per request, from the servers' /metrics histograms): report.html.") || strings.Contains(short, "| concurrency |") || strings.Contains(short, "stages.svg") ||
		!strings.Contains(short, "Not observed: queue, prefill (first forward), decode (no such histogram).") {
		t.Errorf("REPORT.md's section is not the findings and a pointer to report.html:\n%s", short)
	}
	// vllm-omni at C = 16: the median repeat's client mean and vllmStages' split of it.
	l := in.Claims.Targets[1].Levels[4]
	var means []float64
	for _, m := range l.Repeats {
		means = append(means, *m.LatencyMeanS)
	}
	client := median(means)
	e2e := client - 0.012
	queue := e2e - 0.005 - (0.28 + 0.004*16)
	row := "| 16 | " + num(1000*client) + " | " + num(1000*e2e) + " | " + num(1000*queue) + " | " + num(1000*0.3*0.344) + " | " + num(1000*0.7*0.344) + " | " + num(12) + " |"
	if !strings.Contains(s, row) {
		t.Errorf("the table lacks the row %q:\n%s", row, s)
	}
	for _, want := range []string{
		"**vllm-omni:** from C = 16, queue time dominates: " + num(1000*queue) + " ms of " + num(1000*e2e) + " ms server time.",
		// Said once: "Not observed: queue, …" (no column of it either).
		"**sglang-omni:** The knee:",
		"Only its HTTP handler's duration (sglang\\_omni\\_http\\_request\\_duration\\_seconds) is observed, standing in for server e2e",
		"Not observed: queue, prefill (first forward), decode (no such histogram).",
		"| 1 | " + num(1000*(0.25+0.02)*1.05) + " | " + num(1000*((0.25+0.02)*1.05-0.009)) + " | 9.00 |",
		"![Where the time goes: mean time per request by stage](stages.svg)",
		"| concurrency | client latency | server e2e (HTTP handler) | client − server |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(string(md), "Server-side stages:") {
		t.Error("the evidence says the stages were not observed, though they were")
	}
}

// TestStagesNotObserved: without a server block in any repeat there is no
// section and no chart, and the evidence says what is missing and how to
// provide it.
func TestStagesNotObserved(t *testing.T) {
	in := fixture()
	md, _, _ := render(t, in)
	if strings.Contains(string(md), "Where the time goes") || strings.Contains(string(md), "stages.svg") {
		t.Error("a run without server stages shows the section or its chart")
	}
	if !strings.Contains(string(md), "**Server-side stages:** not observed: claims.json has no server block") || !strings.Contains(string(md), "SGLang with --enable-metrics") {
		t.Error("the evidence does not say the server-side stages were not observed, and how to provide them")
	}
	if got := ChartsOf(in); len(got) != len(Charts) {
		t.Errorf("ChartsOf = %v without server stages", got)
	}
	if got := ChartsOf(fixtureStages()); len(got) != len(Charts)+1 || got[len(got)-1] != Stages {
		t.Errorf("ChartsOf = %v with server stages", got)
	}
}

// TestStagesThreeStates: plain SGLang (queue and e2e only) leaves prefill
// and decode "not observed"; a histogram that counted none of the
// succeeded requests, and a server time above the client's latency, are
// broken data: the cell says so, the caveats name it, no number is shown.
// fixtureStagesBroken is fixtureStages with sglang-omni as plain SGLang
// (queue and e2e only), a queue histogram that counted none of C = 2's
// requests, a server e2e above the client's latency at C = 4 and one
// repeat of C = 8 without a server block.
func fixtureStagesBroken() Input {
	in := fixtureStages()
	tc := &in.Claims.Targets[0]
	for li := range tc.Levels {
		for r := range tc.Levels[li].Repeats {
			m := &tc.Levels[li].Repeats[r]
			mean := *m.LatencyMeanS
			m.Server = &schemas.ServerStages{Scope: schemas.ServerScopeMeasured, Stages: []schemas.StageStat{
				stage(schemas.StageQueue, "sglang:queue_time_seconds", m.Requests, 0.002),
				stage(schemas.StageE2E, "sglang:e2e_request_latency_seconds", m.Requests, mean-0.01),
			}}
			switch li {
			case 1:
				m.Server.Stages[0] = schemas.StageStat{Stage: schemas.StageQueue, Family: "sglang:queue_time_seconds"}
			case 2:
				m.Server.Stages[1].MeanS = ptr(mean + 0.05)
			case 3:
				if r == 0 {
					m.Server = nil
				}
			case 4:
				// The server restarted during the step: its e2e went
				// down and internal/claims left it out (warm-ups
				// included: no measure scrape).
				m.Server.Scope = ""
				m.Server.Stages = m.Server.Stages[:1]
				m.Server.Note = "e2e: not computed, sglang:e2e_request_latency_seconds went down (count 80 to 3): the server restarted or reset its metrics"
			}
		}
	}
	return in
}

func TestStagesThreeStates(t *testing.T) {
	in := fixtureStagesBroken()
	tc := &in.Claims.Targets[0]
	md := pageMarkdown(t, in) // the tables are report.html's
	s := section(string(md), "Where the time goes")
	for _, want := range []string{
		"Not observed: prefill (first forward), decode (no such histogram).",
		"| 2 | ", " | broken: counted no request | ",
		" | broken: server time exceeds client latency |",
		" (2 of 3 repeats) |",
		"| 16 | ", " | broken: histogram reset during the step | 2.00 | broken: from a broken server time |",
		"At C = 16 the server's stages include the warm-up requests (no scrape after them); the client's latency does not.",
		// One story: the knee's attribution, not a queue that "never
		// exceeds half" beside it.
		"**sglang-omni:** The knee: from C = 8 to 16, throughput +16 %, latency +39 %; about all of it is elsewhere (+180 ms of +180 ms;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "The server exposes only its HTTP handler") {
		t.Error("a server with e2e is said to stand in with its HTTP handler")
	}
	caveats := string(md[:strings.Index(string(md), " Protocol: ")])
	if !strings.Contains(caveats, "**Server stages broken:** sglang-omni at C = 2 (counted no request); sglang-omni at C = 4 (server time exceeds client latency); sglang-omni at C = 16 (histogram reset during the step)") {
		t.Errorf("the caveats do not name the broken cells:\n%s", caveats)
	}

	// A target without any server block beside one with: named, no table
	// (vllm-omni's two: the means and the histograms' percentiles).
	for li := range tc.Levels {
		for r := range tc.Levels[li].Repeats {
			tc.Levels[li].Repeats[r].Server = nil
		}
	}
	md = pageMarkdown(t, in)
	s = section(string(md), "Where the time goes")
	if !strings.Contains(s, "**sglang-omni:** server-side stages not observed: its /metrics exposed no stage histogram during measurement.") || strings.Count(s, "| concurrency |") != 2 {
		t.Errorf("a target without stages beside one with:\n%s", s)
	}
}

// TestStagesKneeNotMonotone: a queue that dominates at one level and not
// at a higher one is named as such, not "from C = …".
func TestStagesKneeNotMonotone(t *testing.T) {
	in := fixtureStages()
	// C = 16 dominates; make C = 4 dominate too (C = 8 does not).
	for r := range in.Claims.Targets[1].Levels[2].Repeats {
		m := &in.Claims.Targets[1].Levels[2].Repeats[r]
		q := findStage(m.Server, schemas.StageQueue)
		e := findStage(m.Server, schemas.StageE2E)
		*q.MeanS = 0.6 * *e.MeanS
		*findStage(m.Server, schemas.StagePrefill).MeanS = 0.1 * *e.MeanS
		*findStage(m.Server, schemas.StageDecode).MeanS = 0.2 * *e.MeanS
	}
	md, _, _ := render(t, in)
	if s := section(string(md), "Where the time goes"); !strings.Contains(s, "**vllm-omni:** at C = 4 queue time first dominates (not at every higher level):") {
		t.Errorf("the knee of a queue that dominates at C = 4 and not at C = 8:\n%s", s)
	}
}

// stageVariants reach every string of "Where the time goes" (TestLangComplete).
func stageVariants() []Input {
	out := []Input{fixtureStages(), fixtureStagesBroken()}
	in := fixtureStages()
	for li, l := range in.Claims.Targets[0].Levels {
		for r := range l.Repeats {
			l.Repeats[r].Server = nil
			if li == 0 {
				in.Claims.Targets[1].Levels[0].Repeats[r].Server = nil
			}
		}
	}
	for li, l := range in.Claims.Targets[1].Levels {
		for r := range l.Repeats {
			if m := l.Repeats[r].Server; m != nil && li == 1 {
				*findStage(m, schemas.StagePrefill).MeanS = 10 // more than the server time
			}
			if m := l.Repeats[r].Server; m != nil && li == 2 {
				*findStage(m, schemas.StageDecode).MeanS = -1
			}
		}
	}
	out = append(out, in)
	// A queue without a server time; a queue that dominates, then not.
	in = fixtureStages()
	for _, l := range in.Claims.Targets[0].Levels {
		for r := range l.Repeats {
			l.Repeats[r].Server.Stages = []schemas.StageStat{stage(schemas.StageQueue, "sglang:queue_time_seconds", 1, 0.1)}
		}
	}
	for r := range in.Claims.Targets[1].Levels[2].Repeats {
		m := in.Claims.Targets[1].Levels[2].Repeats[r].Server
		*findStage(m, schemas.StageQueue).MeanS = 0.6 * *findStage(m, schemas.StageE2E).MeanS
		*findStage(m, schemas.StagePrefill).MeanS = 0.01
		*findStage(m, schemas.StageDecode).MeanS = 0.01
	}
	return append(out, in)
}

// A server histogram that counted more requests than the client's
// successes (SGLang-Omni's handler counts a shed 500 too) describes other
// requests: client − server is "not comparable", never a network time.
func TestStagesClientMinusServerApart(t *testing.T) {
	in := fixtureStages()
	m := &in.Claims.Targets[0].Levels[0].Repeats[0]
	m.Server.Stages[0].Count = float64(m.Succeeded + 3)
	md := pageMarkdown(t, in) // the tables are report.html's
	s := section(string(md), "Where the time goes")
	if !strings.Contains(s, "not comparable: the server's mean includes failures or other traffic") {
		t.Errorf("no \"not comparable\" cell for a server that counted more than the successes:\n%s", s)
	}
}

// A queue that is 0 at every level is said as such, not as "its largest
// share is 0 ms".
func TestKneeNeverQueued(t *testing.T) {
	in := fixtureStages()
	for li := range in.Claims.Targets[1].Levels {
		for r := range in.Claims.Targets[1].Levels[li].Repeats {
			st := in.Claims.Targets[1].Levels[li].Repeats[r].Server
			for i := range st.Stages {
				if st.Stages[i].Stage == schemas.StageQueue {
					st.Stages[i].MeanS = ptr(0.0)
				}
			}
		}
	}
	md, _, _ := render(t, in)
	s := section(string(md), "Where the time goes")
	if !strings.Contains(s, "requests never waited in the queue at any level measured.") || strings.Contains(s, "largest share is 0 ms") {
		t.Errorf("a queue of 0 everywhere:\n%s", s)
	}
}

// A server with no queue histogram but requests joined by id (SGLang-Omni
// streamed, with its request profiler): the knee is read from the
// requests, not called "not observed" above a table that shows it.
func TestKneePerRequest(t *testing.T) {
	v := newView(fixture())
	row := func(c int, queue, server float64) pctRow {
		return pctRow{c: c, server: pctCell{kind: cellValue, p50: server},
			stage: map[string]pctCell{schemas.StageQueue: {kind: cellValue, p50: queue}}}
	}
	pt := &pctTarget{perRequest: true, rows: []pctRow{row(4, 0.001, 0.035), row(16, 0.101, 0.135)}}
	tt := timeTarget{name: "sg", exposed: map[string]string{schemas.StageHTTP: "sglang_omni_http_request_duration_seconds"}}
	if got, want := v.knee(tt, pt), "at C = 16 the median request's queue time dominates: 101 ms of 135 ms server time."; !strings.Contains(got, want) {
		t.Errorf("knee %q, want it to say %q", got, want)
	}
	if got := v.knee(tt, nil); !strings.Contains(got, "not observed (no queue-time histogram)") {
		t.Errorf("without per-request evidence: %q", got)
	}
}

// A stage whose growth is float noise (two equal means subtracted) reads
// 0 ms, not "-1.5e-13" (issue 36); one attribution of the growth whose
// shares add up (issue 40): "about all of it" where one stage grew by 90
// % or more and nothing else by over 10 %, else whole-percent shares
// that sum to 100 %, the rest "elsewhere".
func TestKneeExplainNoise(t *testing.T) {
	v := newView(fixture())
	stages := func(q, p, d float64) func(st string) (float64, bool) {
		return func(st string) (float64, bool) {
			switch st {
			case schemas.StagePrefill:
				return p, true
			case schemas.StageQueue:
				return q, true
			case schemas.StageDecode:
				return d, !math.IsNaN(d)
			}
			return 0, false
		}
	}
	if got, want := v.explain(0.0644, "m", stages(0.0612, -1.5e-16, math.NaN())), "about all of it is queue (+61.2 ms of +64.4 ms; m)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Issue 40's seed-shaped persona: queue 289 of 288 ms is about all.
	if got, want := v.explain(0.288, "m", stages(0.289, 0, math.NaN())), "about all of it is queue (+289 ms of +288 ms; m)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got := v.explain(0.300, "m", stages(0.150, 0.031, 0.100))
	if want := "of the +300 ms (m): queue +150 ms (50 %), prefill (first forward) +31.0 ms (10 %), decode +100 ms (33 %), elsewhere +19.0 ms (7 %)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	sum := 0
	for _, m := range regexp.MustCompile(`\((-?\d+) %\)`).FindAllStringSubmatch(got, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != 100 {
		t.Errorf("shares add to %d %%: %s", sum, got)
	}
	if msNum(0.0004) != "0" || msNum(-0.0004) != "0" || msNum(0.002) != "0.002" {
		t.Errorf("msNum: %s %s %s", msNum(0.0004), msNum(-0.0004), msNum(0.002))
	}
}
