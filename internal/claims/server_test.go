package claims

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// TestStageNamesAreSchemas: internal/engine cannot import schemas, so it
// spells the stage names itself; they must be the schema's.
func TestStageNamesAreSchemas(t *testing.T) {
	pairs := [][2]string{{engine.StageQueue, schemas.StageQueue}, {engine.StagePrefill, schemas.StagePrefill},
		{engine.StageDecode, schemas.StageDecode}, {engine.StageInference, schemas.StageInference},
		{engine.StageTTFT, schemas.StageTTFT}, {engine.StageE2E, schemas.StageE2E}, {engine.StageHTTP, schemas.StageHTTP}}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("engine %q, schemas %q", p[0], p[1])
		}
	}
	for _, f := range engine.StageFamilies {
		if !slices.Contains(stageOrder, f.Stage) {
			t.Errorf("%s: stage %q is not a schemas stage", f.Family, f.Stage)
		}
	}
}

// promHist writes one histogram series in the text format: per bound its
// cumulative count (the last bound is +Inf).
func promHist(name, labels string, bounds []string, cum []int, sum float64) string {
	var b strings.Builder
	for i, le := range bounds {
		fmt.Fprintf(&b, "%s_bucket{%sle=%q} %d\n", name, labels, le, cum[i])
	}
	fmt.Fprintf(&b, "%s_sum{%s} %g\n%s_count{%s} %d\n", name, strings.TrimSuffix(labels, ","), sum, name, strings.TrimSuffix(labels, ","), cum[len(cum)-1])
	return b.String()
}

// TestQuantileBound: the bound of the bucket that holds the rank, never a
// value inside it; nothing for a rank in +Inf or an empty histogram.
func TestQuantileBound(t *testing.T) {
	inf := math.Inf(1)
	h := Histogram{Count: 10, Buckets: []Bucket{{0.1, 2}, {0.5, 6}, {1, 10}, {inf, 10}}}
	for _, c := range []struct{ q, want float64 }{
		{0.1, 0.1},  // rank 1 in [0, 0.1]
		{0.2, 0.1},  // rank 2: the last of the first bucket
		{0.5, 0.5},  // rank 5 in (0.1, 0.5]
		{0.95, 1.0}, // rank 9.5 in (0.5, 1]
	} {
		if got, ok := QuantileBound(c.q, h); !ok || got != c.want {
			t.Errorf("q%g = %g (%v), want %g", c.q, got, ok, c.want)
		}
	}
	// A queue of exactly 0 in vLLM's buckets: "at most 0.3 s", not 0.15 s.
	zero := Histogram{Count: 8, Buckets: []Bucket{{0.3, 8}, {0.5, 8}, {inf, 8}}}
	if got, ok := QuantileBound(0.5, zero); !ok || got != 0.3 {
		t.Errorf("all in the first bucket: %g (%v), want the bound 0.3", got, ok)
	}
	tail := Histogram{Count: 4, Buckets: []Bucket{{0.3, 1}, {0.5, 1}, {inf, 4}}}
	if got, ok := QuantileBound(0.95, tail); ok {
		t.Errorf("rank in +Inf: %g, want no bound", got)
	}
	if _, ok := QuantileBound(0.5, Histogram{Buckets: []Bucket{{0.3, 0}, {inf, 0}}}); ok {
		t.Error("a quantile of nothing observed")
	}
	if _, ok := QuantileBound(0.5, Histogram{Count: 1, Buckets: []Bucket{{0.3, 1}}}); ok {
		t.Error("a quantile without +Inf")
	}
}

// serverFS is a run directory's steps.jsonl and scrapes of step a c=1 r=1.
func serverFS(scrapes map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{schemas.StepsFile: {Data: []byte(`{"target":"a","concurrency":1,"repeat":1,"start_ns":100,"end_ns":200}` + "\n")}}
	for when, text := range scrapes {
		fsys[schemas.MetricsPath("a", 1, 1, when)] = &fstest.MapFile{Data: []byte(text)}
	}
	return fsys
}

var vllmBounds = []string{"0.3", "0.5", "+Inf"}

// vllmScrape is a vLLM /metrics with two engines (labels summed) whose
// queue and e2e histograms hold the given cumulative counts per engine.
func vllmScrape(queue0, queue1 []int, qsum float64, e2e []int, esum float64) string {
	return "# TYPE vllm:request_queue_time_seconds histogram\n" +
		promHist("vllm:request_queue_time_seconds", `engine="0",model_name="m",`, vllmBounds, queue0, qsum/2) +
		promHist("vllm:request_queue_time_seconds", `engine="1",model_name="m",`, vllmBounds, queue1, qsum/2) +
		"# TYPE vllm:e2e_request_latency_seconds histogram\n" +
		promHist("vllm:e2e_request_latency_seconds", `engine="0",model_name="m",`, vllmBounds, e2e, esum) +
		"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0\n"
}

func oneStepRun() (schemas.Run, []schemas.Record) {
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1}, Targets: []schemas.Target{{Name: "a"}}}
	recs := []schemas.Record{{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 100, EndNs: 200, OK: true}}
	return run, recs
}

func serverOf(t *testing.T, fsys fstest.MapFS) *schemas.ServerStages {
	t.Helper()
	tel, err := LoadTelemetry(fsys)
	if err != nil {
		t.Fatal(err)
	}
	run, recs := oneStepRun()
	cl, err := Compute(run, recs, WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	lv := cl.Targets[0].Levels[0]
	if lv.Median.Server != nil {
		t.Error("the median has a server block")
	}
	return lv.Repeats[0].Server
}

// TestServerStagesFromScrapes: measure to after, labels summed, mean from
// the sums, quantiles from the delta's buckets; the before scrape is not
// used when there is a measure scrape.
func TestServerStagesFromScrapes(t *testing.T) {
	fsys := serverFS(map[string]string{
		"before":  vllmScrape([]int{0, 0, 0}, []int{0, 0, 0}, 0, []int{0, 0, 0}, 0),
		"measure": vllmScrape([]int{1, 1, 1}, []int{1, 1, 1}, 0.2, []int{2, 2, 2}, 0.4),
		"after":   vllmScrape([]int{3, 4, 5}, []int{1, 2, 3}, 2.2, []int{6, 6, 6}, 1.4),
	})
	s := serverOf(t, fsys)
	if s == nil || s.Scope != schemas.ServerScopeMeasured || s.Note != "" || len(s.Stages) != 2 {
		t.Fatalf("server %+v", s)
	}
	q, e := s.Stages[0], s.Stages[1]
	if q.Stage != schemas.StageQueue || q.Family != "vllm:request_queue_time_seconds" || q.Count != 6 || !near(*q.MeanS, 2.0/6) {
		t.Errorf("queue %+v mean %v", q, val(q.MeanS))
	}
	// Delta: le=0.3 2, le=0.5 4, +Inf 6; p50 rank 3 in (0.3, 0.5]: at
	// most 0.5; p95 rank 5.7 in +Inf: no bound.
	if q.P50LeS == nil || *q.P50LeS != 0.5 || q.P95LeS != nil {
		t.Errorf("queue p50 <= %v p95 <= %v, want 0.5 and none (rank in +Inf)", val(q.P50LeS), val(q.P95LeS))
	}
	if e.Stage != schemas.StageE2E || e.Count != 4 || !near(*e.MeanS, 0.25) || e.P50LeS == nil || *e.P50LeS != 0.3 {
		t.Errorf("e2e %+v mean %v p50 <= %v", e, val(e.MeanS), val(e.P50LeS))
	}
}

// TestServerStagesFallBackToBefore: without the measure scrape the deltas
// start before the step (warm-ups included), and Scope says nothing.
func TestServerStagesFallBackToBefore(t *testing.T) {
	s := serverOf(t, serverFS(map[string]string{
		"before": vllmScrape([]int{0, 0, 0}, []int{0, 0, 0}, 0, []int{0, 0, 0}, 0),
		"after":  vllmScrape([]int{1, 1, 1}, []int{0, 0, 0}, 0.1, []int{1, 1, 1}, 0.2),
	}))
	if s == nil || s.Scope != "" || s.Stages[0].Count != 1 {
		t.Fatalf("server %+v", s)
	}
	// A measure scrape that does not parse (a 404 page kept raw) is no start either.
	s = serverOf(t, serverFS(map[string]string{
		"before":  vllmScrape([]int{0, 0, 0}, []int{0, 0, 0}, 0, []int{0, 0, 0}, 0),
		"measure": "<html>404 {{\n",
		"after":   vllmScrape([]int{1, 1, 1}, []int{0, 0, 0}, 0.1, []int{1, 1, 1}, 0.2),
	}))
	if s == nil || s.Scope != "" {
		t.Fatalf("server %+v", s)
	}
}

// TestServerStagesReset: a histogram that went down is not computed, and
// the note says why; the others still are.
func TestServerStagesReset(t *testing.T) {
	s := serverOf(t, serverFS(map[string]string{
		"measure": vllmScrape([]int{5, 5, 5}, []int{0, 0, 0}, 1, []int{2, 2, 2}, 0.4),
		"after":   vllmScrape([]int{1, 1, 1}, []int{0, 0, 0}, 0.1, []int{3, 3, 3}, 0.6),
	}))
	if s == nil || len(s.Stages) != 1 || s.Stages[0].Stage != schemas.StageE2E {
		t.Fatalf("server %+v", s)
	}
	if !strings.Contains(s.Note, "queue: not computed, vllm:request_queue_time_seconds went down (count 5 to 1)") {
		t.Errorf("note %q", s.Note)
	}
}

// TestServerStagesAbsent: no family of the table, or no after scrape: no
// server block at all (absent, never zeros).
func TestServerStagesAbsent(t *testing.T) {
	other := "# TYPE foo_seconds histogram\nfoo_seconds_bucket{le=\"+Inf\"} 3\nfoo_seconds_sum 1\nfoo_seconds_count 3\n"
	if s := serverOf(t, serverFS(map[string]string{"measure": other, "after": other})); s != nil {
		t.Errorf("server %+v from a scrape without stage families", s)
	}
	if s := serverOf(t, serverFS(map[string]string{"measure": vllmScrape([]int{0, 0, 0}, []int{0, 0, 0}, 0, []int{0, 0, 0}, 0)})); s != nil {
		t.Errorf("server %+v without an after scrape", s)
	}
	if s := serverOf(t, serverFS(nil)); s != nil {
		t.Errorf("server %+v without scrapes", s)
	}
}

// TestServerStagesRouteOnly: SGLang-Omni times every route; only the
// transcription route's series count, whatever its method and status.
func TestServerStagesRouteOnly(t *testing.T) {
	bounds := []string{"0.05", "0.1", "+Inf"}
	scrape := func(n, health int, sum float64) string {
		return "# TYPE sglang_omni_http_request_duration_seconds histogram\n" +
			promHist("sglang_omni_http_request_duration_seconds", `method="POST",model_name="m",route="/v1/audio/transcriptions",`, bounds, []int{0, n, n}, sum) +
			promHist("sglang_omni_http_request_duration_seconds", `method="GET",model_name="m",route="/health",`, bounds, []int{health, health, health}, 0.001)
	}
	s := serverOf(t, serverFS(map[string]string{"measure": scrape(2, 1, 0.14), "after": scrape(6, 9, 0.46)}))
	if s == nil || len(s.Stages) != 1 {
		t.Fatalf("server %+v", s)
	}
	h := s.Stages[0]
	if h.Stage != schemas.StageHTTP || h.Count != 4 || !near(*h.MeanS, 0.08) {
		t.Errorf("http %+v mean %v", h, val(h.MeanS))
	}
}

// TestServerStagesPreferOmniE2E: a vLLM-Omni scrape has both e2e
// families; the pipeline's own is read.
func TestServerStagesPreferOmniE2E(t *testing.T) {
	bounds := []string{"0.05", "+Inf"}
	scrape := func(n int) string {
		return "# TYPE vllm:e2e_request_latency_seconds histogram\n" +
			promHist("vllm:e2e_request_latency_seconds", `model_name="m",replica="0",stage="0",`, vllmBounds, []int{n, n, n}, 0.01*float64(n)) +
			"# TYPE vllm_omni:e2e_request_latency_s histogram\n" +
			promHist("vllm_omni:e2e_request_latency_s", `model_name="m",`, bounds, []int{0, n}, 0.02*float64(n))
	}
	s := serverOf(t, serverFS(map[string]string{"measure": scrape(1), "after": scrape(3)}))
	if s == nil || len(s.Stages) != 1 || s.Stages[0].Family != "vllm_omni:e2e_request_latency_s" || !near(*s.Stages[0].MeanS, 0.02) {
		t.Fatalf("server %+v", s)
	}
}

func TestDeltaBucketsDiffer(t *testing.T) {
	a := Histogram{Count: 1, Buckets: []Bucket{{0.1, 1}, {math.Inf(1), 1}}}
	b := Histogram{Count: 2, Buckets: []Bucket{{0.2, 2}, {math.Inf(1), 2}}}
	_, err := Delta("x", a, b)
	var re *HistogramResetError
	if err == nil || errors.As(err, &re) {
		t.Errorf("different bounds: %v", err)
	}
}

// TestStageLinesChangeNothing: the line filter keeps every line the stage
// families need: parsing the filtered text gives what parsing all of it
// gives, on a big synthetic answer and on odd but valid lines.
func TestStageLinesChangeNothing(t *testing.T) {
	odd := "# a comment\n# HELP vllm:e2e_request_latency_seconds Histogram of e2e.\n# TYPE vllm:e2e_request_latency_seconds histogram\n" +
		"vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"0.3\"} 2\nvllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"+Inf\"} 3\n" +
		"vllm:e2e_request_latency_seconds_sum{engine=\"0\"} 1.5\nvllm:e2e_request_latency_seconds_count{engine=\"0\"} 3\n" +
		"# TYPE vllm:e2e_request_latency_seconds_other counter\nvllm:e2e_request_latency_seconds_other 7\n" +
		"# TYPE sglang:queue_time_seconds histogram\nsglang:queue_time_seconds_bucket{le=\"+Inf\"} 4\nsglang:queue_time_seconds_sum 0.4\nsglang:queue_time_seconds_count 4\n"
	for name, raw := range map[string][]byte{"big": benchScrape(3000, 50, 2), "odd": []byte(odd)} {
		all, err1 := parseStages(raw)
		kept, err2 := ParseScrape(raw)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		if len(all.Families) == 0 || fmt.Sprint(all.Families) != fmt.Sprint(kept.Families) {
			t.Errorf("%s: all lines give %v, the kept ones %v", name, all.Families, kept.Families)
		}
	}
	if _, err := ParseScrape([]byte("# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_sum{engine=\"0\"} not-a-number\n")); err == nil {
		t.Error("a broken stage line parsed")
	}
}

// FuzzParseScrape: ParseScrape never panics, and on any answer Prometheus's
// parser reads whole, the line filter changes nothing (what
// parseStages gives from all the lines).
func FuzzParseScrape(f *testing.F) {
	seeds := []string{
		vllmScrape([]int{1, 2, 3}, []int{0, 1, 1}, 0.4, []int{2, 2, 2}, 0.5),
		string(benchScrape(200, 3, 1)),
		"# TYPE vllm:e2e_request_latency_seconds_bucket counter\nvllm:e2e_request_latency_seconds_bucket 3\n" +
			"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 1\nvllm:e2e_request_latency_seconds_count 1\nvllm:e2e_request_latency_seconds_sum 1\n",
		"<html>404</html>",
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		kept, kerr := ParseScrape(raw)
		all, aerr := parseStages(raw)
		if aerr != nil {
			return
		}
		if kerr != nil {
			t.Fatalf("the whole answer parses, its stage lines do not: %v", kerr)
		}
		if fmt.Sprint(all.Families) != fmt.Sprint(kept.Families) {
			t.Fatalf("all lines give %v, the kept ones %v", all.Families, kept.Families)
		}
	})
}
