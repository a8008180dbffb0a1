package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// simRun is the run in testdata/simrun/run, made by testdata/simrun/drive.py
// with real benchseal sim processes on loopback: a vllm persona exporting
// OTLP spans to run --otlp-listen (joined by request id) and an
// sglang-omni persona whose request profiler run --server-events read
// (non-streamed: its ids never came back, so its lines join by count
// only); 40 ms base latency, 2 running slots, C = 1, 4, 8 requests, 2
// repeats. Read as benchseal report reads a run directory: documents,
// records and stage times from the same map.
func simRun(t testing.TB) Input {
	t.Helper()
	in, err := loadSimRun()
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func loadSimRun() (Input, error) {
	docs := map[string][]byte{}
	root := filepath.Join("testdata", "simrun", "run")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		docs[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		return Input{}, err
	}
	var skipped error
	in, err := FromDocs(docs, func(name string, err error) { skipped = fmt.Errorf("skipped %s: %w", name, err) })
	if err != nil || skipped != nil {
		return in, errors.Join(err, skipped)
	}
	var bad string
	if in.Records, bad, err = Records(docs); err != nil {
		return in, fmt.Errorf("%s: %w", bad, err)
	}
	if in.Stages, bad, err = RequestStages(docs); err != nil {
		return in, fmt.Errorf("%s: %w", bad, err)
	}
	return in, nil
}

// perRequestVariants reach every string of the per-request percentiles
// (TestLangComplete): the sim run; its broken copy; and one where vllm's
// spans name no record (ids blanked) while SGLang-Omni's profiler lines
// join (ids given, as a streamed run returns them).
func perRequestVariants() []Input {
	in, err := loadSimRun()
	if err != nil {
		panic(err)
	}
	broken := simRunBroken()
	swapped, _ := loadSimRun()
	ids := map[[2]int][]string{}
	for _, r := range swapped.Records {
		if r.Target == "sglang-omni" && r.Phase == schemas.PhaseMeasure && r.OK {
			k := [2]int{r.Concurrency, r.Repeat}
			ids[k] = append(ids[k], r.RequestID)
		}
	}
	for i := range swapped.Stages["vllm"] {
		swapped.Stages["vllm"][i].RequestID = ""
	}
	for i := range swapped.Stages["sglang-omni"] {
		l := &swapped.Stages["sglang-omni"][i]
		k := [2]int{l.Concurrency, l.Repeat}
		if len(ids[k]) > 0 {
			l.RequestID, ids[k] = ids[k][0], ids[k][1:]
		}
	}
	return []Input{in, broken, swapped, histogramBoundsVariant()}
}

func TestGoldenSimRun(t *testing.T) {
	in := simRun(t)
	in.LinkCharts = true
	md, page, svgs := render(t, in)
	golden(t, "simrun/REPORT.md", md)
	golden(t, "simrun/report.html", page)
	golden(t, "simrun/stages.svg", svgs[Stages])
	in.Lang = "zh"
	md, _, svgs = render(t, in)
	golden(t, "simrun/zh/REPORT.md", md)
	golden(t, "simrun/zh/stages.svg", svgs[Stages])
}

// numpyP is numpy's default (linear) percentile, written out again here
// so the test does not take the report's word for it.
func numpyP(xs []float64, p float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	r := p / 100 * float64(len(xs)-1)
	lo := int(math.Floor(r))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (xs[lo+1]-xs[lo])*(r-float64(lo))
}

// TestPerRequestPercentiles: where the server's per-request lines join
// the records by request id, the percentiles are exact over those
// requests (re-derived here from the raw files), client − server is taken
// per request, and the paragraph says how many joined; SGLang-Omni's
// lines, which carry only its own ids, are said not to join, and why,
// and its percentiles come from the histograms.
func TestPerRequestPercentiles(t *testing.T) {
	in := simRun(t)
	md, _, _ := render(t, in)
	s := section(string(md), "Where the time goes")

	// vllm at C = 4, from the raw files.
	lat := map[string]float64{}
	for _, r := range in.Records {
		if r.Target == "vllm" && r.Concurrency == 4 && r.Phase == schemas.PhaseMeasure && r.OK {
			lat[r.RequestID] = float64(r.EndNs-r.StartNs) / 1e9
		}
	}
	var client, queue, e2e, rest []float64
	for _, rep := range []string{"r1", "r2"} {
		b, err := os.ReadFile(filepath.Join("testdata", "simrun", "run", "servers", "vllm", "stages", "c4-"+rep+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var l schemas.RequestStages
			if err := json.Unmarshal(line, &l); err != nil {
				t.Fatal(err)
			}
			c, ok := lat[l.RequestID]
			if !ok {
				continue // a warm-up
			}
			client, queue, e2e = append(client, c), append(queue, *l.QueueS), append(e2e, *l.E2ES)
			rest = append(rest, c-*l.E2ES)
		}
	}
	if len(client) != 16 {
		t.Fatalf("the fixture joins %d of vllm's C = 4 requests, want 16", len(client))
	}
	cell := func(xs []float64) string { return num(1000*numpyP(xs, 50)) + " / " + num(1000*numpyP(xs, 95)) }
	row := "| 4 | 16 of 16 successes | " + cell(client) + " | " + cell(e2e) + " | " + cell(queue) + " | 10.0 / 10.0 | 30.0 / 30.0 | " + cell(rest) + " |"
	for _, want := range []string{
		"Percentiles (p50 / p95) from 32 requests joined by request id (OpenTelemetry spans)",
		row,
		"vllm, p50 / p95 in milliseconds, from 32 requests joined by request id.",
		"The per-request join is not available: the server's 32 per-request records carry only its own request ids, which SGLang-Omni returns on streamed answers alone (a run with --stream joins them). Histogram p50 / p95, upper bounds",
		"in milliseconds, of server e2e (HTTP handler): ≤ 50.0 / ≤ 50.0 at C = 1; ≤ 100 / ≤ 100 at C = 4.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
	// The histograms' means stay: vllm's means table is still there, in
	// report.html.
	if page := section(string(pageMarkdown(t, in)), "Where the time goes"); !strings.Contains(page, "vllm, ms per request; read from vllm:e2e") || strings.Contains(s, "vllm, ms per request") {
		t.Errorf("the means table is not report.html's alone:\n%s", page)
	}

	// Without the records (REPORT.md as run writes it and verify
	// regenerates it), the stage times are not used.
	noRecs := in
	noRecs.Records = nil
	md2, _, _ := render(t, noRecs)
	noStages := noRecs
	noStages.Stages = nil
	md3, _, _ := render(t, noStages)
	if !bytes.Equal(md2, md3) {
		t.Error("the report without records differs with and without the stage times")
	}
	// vllm's histograms put every stage of both levels in their first
	// bucket (≤ 300 ms): one sentence says so instead of a table of
	// "≤ 300 / ≤ 300"; sglang-omni's bounds differ by level: a table.
	// Those are report.html's.
	if s := section(string(pageMarkdown(t, noRecs)), "Where the time goes"); strings.Contains(s, "joined") ||
		!strings.Contains(s, "Histogram p50 and p95: one bucket at every level, too coarse to say more.") ||
		strings.Contains(s, "vllm, p50 / p95 in milliseconds") || !strings.Contains(s, "in milliseconds, of server e2e (HTTP handler): ≤ 50.0 / ≤ 50.0 at C = 1; ≤ 100 / ≤ 100 at C = 4.") {
		t.Errorf("without records, the percentiles are not the histograms':\n%s", s)
	}
}

// TestPerRequestThreeStates: a stage no joined line carries is not
// observed; a time that is not a duration is broken; a request whose
// server e2e exceeds its client latency makes client − server broken,
// and the caveats name it; a level with no joined request is a row of
// "not observed".
func TestPerRequestThreeStates(t *testing.T) {
	in := simRunBroken()
	md, _, _ := render(t, in)
	s := section(string(md), "Where the time goes")
	for _, want := range []string{
		"| 1 | 0 of 16 successes | — | not observed | not observed | not observed | — |",
		"Not observed at any level: prefill (first forward).",
		"\"not observed\" on a whole row: no request of that level joined.",
		"| 4 | 16 of 16 successes | ",
		" | broken: not a duration | 30.0 / 30.0 | broken: server time exceeds client latency |",
		"from 16 requests joined by request id",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
	caveats := string(md[:strings.Index(string(md), " Protocol: ")])
	if !strings.Contains(caveats, "vllm at C = 4 (not a duration); vllm at C = 4 (server time exceeds client latency)") {
		t.Errorf("the caveats do not name the broken per-request cells:\n%s", caveats)
	}
}

// simRunBroken is simRun with vllm's C = 1 lines gone, its C = 4 prefill
// null everywhere, one queue time negative and one e2e 50 ms longer than
// its request's client latency.
func simRunBroken() Input {
	in, err := loadSimRun()
	if err != nil {
		panic(err)
	}
	var ls []schemas.RequestStages
	for _, l := range in.Stages["vllm"] {
		if l.Concurrency == 1 {
			continue
		}
		l.PrefillS = nil
		ls = append(ls, l)
	}
	measured := map[string]bool{}
	for _, r := range in.Records {
		measured[r.RequestID] = r.Phase == schemas.PhaseMeasure
	}
	for i := range ls {
		if ls[i].Concurrency == 4 && measured[ls[i].RequestID] {
			ls[i].QueueS = ptr(-0.001)
			ls[i].E2ES = ptr(*ls[i].E2ES + 0.05 + 0.1)
			break
		}
	}
	in.Stages = map[string][]schemas.RequestStages{"vllm": ls, "sglang-omni": in.Stages["sglang-omni"]}
	return in
}

// TestPerRequestJoinNamed: spans that name no record say the join failed
// (without blaming streaming); SGLang-Omni's profiler lines that do join
// (a streamed run) give its percentiles per request, and say so.
func TestPerRequestJoinNamed(t *testing.T) {
	in := perRequestVariants()[2]
	md, _, _ := render(t, in)
	s := section(string(md), "Where the time goes")
	for _, want := range []string{
		fmt.Sprintf("The per-request join is not available: none of the server's %d per-request records names a request id of the records.", len(in.Stages["vllm"])),
		"Percentiles (p50 / p95) from 32 requests joined by request id (SGLang-Omni's request profiler)",
		"sglang-omni, p50 / p95 in milliseconds, from 32 requests joined by request id.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
}

// TestHistogramBounds: without per-request evidence a stage's
// percentiles are the histograms' upper bounds, shown as such ("≤"), and
// one above the largest finite bucket (a null bound while the histogram
// counted requests) says so instead of a number.
func TestHistogramBounds(t *testing.T) {
	in := histogramBoundsVariant()
	md := pageMarkdown(t, in) // the histograms' bounds are report.html's
	s := section(string(md), "Where the time goes")
	for _, want := range []string{
		"| 1 | ", " | ≤ 300 / above the buckets | ≤ 300 / ≤ 2500 | ",
		"vllm-omni, p50 / p95 in milliseconds, from the histograms.",
		"Histogram p50 / p95, upper bounds",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the section lacks %q:\n%s", want, s)
		}
	}
}

// histogramBoundsVariant is fixtureStages with vllm-omni's queue p95 at
// C = 1 above the largest bucket in every repeat.
func histogramBoundsVariant() Input {
	in := fixtureStages()
	for r := range in.Claims.Targets[1].Levels[0].Repeats {
		findStage(in.Claims.Targets[1].Levels[0].Repeats[r].Server, schemas.StageQueue).P95LeS = nil
	}
	return in
}

// The histograms' resolution is said of the families each target's table
// is read from, in its engine's words (issue 36: "vLLM's finest latency
// bucket is 0.3 s" under SGLang-Omni's tables); a family the engine table
// does not know gets no figure, and stages whose buckets differ are each
// named.
func TestFinestBuckets(t *testing.T) {
	v := newView(fixture())
	for _, tc := range []struct {
		exposed map[string]string
		http    bool
		want    string
	}{
		{map[string]string{schemas.StageHTTP: "sglang_omni_http_request_duration_seconds"}, true, " (SGLang-Omni's finest latency bucket is 0.005 s)"},
		{map[string]string{schemas.StageQueue: "vllm:request_queue_time_seconds", schemas.StageE2E: "vllm:e2e_request_latency_seconds"}, false, " (vLLM's finest latency bucket is 0.3 s)"},
		{map[string]string{schemas.StageE2E: "vllm_omni:e2e_request_latency_s", schemas.StageQueue: "vllm:request_queue_time_seconds", schemas.StagePrefill: "vllm:request_prefill_time_seconds"}, false,
			" (finest latency buckets: vLLM-Omni's 0.05 s for server e2e; vLLM's 0.3 s for queue, prefill (first forward))"},
		{map[string]string{schemas.StageQueue: "sglang:queue_time_seconds"}, false, ""},
	} {
		if got := v.finestBuckets("a", tc.exposed, tc.http); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.exposed, got, tc.want)
		}
	}
	md := pageMarkdown(t, fixtureStages()) // the histograms' bounds are report.html's
	s := section(string(md), "Where the time goes")
	sg, vl, ok := strings.Cut(s, "vllm-omni")
	if !ok || strings.Contains(sg, "vLLM's finest") || !strings.Contains(sg, "SGLang-Omni's finest latency bucket is 0.005 s") ||
		!strings.Contains(vl, "vLLM's finest latency bucket is 0.3 s") {
		t.Errorf("the buckets are not each target's own:\n%s", s)
	}
}
