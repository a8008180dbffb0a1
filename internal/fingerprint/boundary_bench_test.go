package fingerprint

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/testkit"
)

// vllmScrape is a realistic vLLM /metrics answer of about n series for
// engines engines (data parallel), requests served so far: the families
// benchseal reads (cache counters, the request counter by
// finished_reason, the six stage histograms, every bucket a series) and,
// for the rest, thousands of unrelated series under the engine's own
// prefix (so the prefix test of the line filter gives no shortcut) and
// the Python client's own (python_gc_*, process_*).
func vllmScrape(n, engines, requests int) []byte {
	var b strings.Builder
	series := 0
	const model = `model_name="Qwen/Qwen3-ASR-1.7B"`
	counter := func(name string, v func(e int) int, extra ...string) {
		base := strings.TrimSuffix(name, "_total")
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s counter\n", base, base)
		for e := range engines {
			for _, x := range append([]string{""}, extra...) {
				fmt.Fprintf(&b, "%s{engine=\"%d\",%s%s} %d\n", name, e, model, x, v(e))
				fmt.Fprintf(&b, "%s_created{engine=\"%d\",%s%s} 1.7e9\n", base, e, model, x)
				series++
			}
		}
	}
	fmt.Fprintf(&b, "# HELP python_gc_objects_collected_total x\n# TYPE python_gc_objects_collected_total counter\n")
	for g := range 3 {
		fmt.Fprintf(&b, "python_gc_objects_collected_total{generation=\"%d\"} %d\n", g, 1000*g)
		series++
	}
	for _, name := range engine.CacheCounterNames {
		if strings.HasPrefix(name, "vllm:") {
			counter(name, func(e int) int { return requests * 40 })
		}
	}
	counter("vllm:request_success_total", func(e int) int { return requests / engines / 3 },
		`,finished_reason="length"`, `,finished_reason="abort"`)
	for _, f := range engine.StageFamilies {
		if !strings.HasPrefix(f.Family, "vllm:") {
			continue
		}
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s histogram\n", f.Family, f.Family)
		for e := range engines {
			for i, le := range f.Buckets {
				fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",le=\"%g\",%s} %d\n", f.Family, e, le, model, requests*(i+1)/len(f.Buckets)/engines)
				series++
			}
			fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",le=\"+Inf\",%s} %d\n", f.Family, e, model, requests/engines)
			fmt.Fprintf(&b, "%s_sum{engine=\"%d\",%s} %g\n", f.Family, e, model, 0.05*float64(requests/engines))
			fmt.Fprintf(&b, "%s_count{engine=\"%d\",%s} %d\n", f.Family, e, model, requests/engines)
			fmt.Fprintf(&b, "%s_created{engine=\"%d\",%s} 1.7e9\n", f.Family, e, model)
			series += 3
		}
	}
	for fam := 0; series < n; fam++ {
		name := fmt.Sprintf("vllm:other_family_%d", fam)
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s gauge\n", name, name)
		for i := 0; i < 100 && series < n; i++ {
			fmt.Fprintf(&b, "%s{engine=\"%d\",%s,shard=\"%d\"} %d\n", name, i%engines, model, i, requests*i)
			series++
		}
	}
	return []byte(b.String())
}

// boundary is what the recorder does with one /metrics answer already in
// memory at a step boundary: scrub and redact it, keep it (a new file),
// parse its families (recorderFamilies) and read its cache and request
// counters, then the request counter's growth since the step's previous
// scrape (the settle's test).
func boundary(b *testing.B, dir string, i int, raw []byte, base map[string]float64, redact bool) map[string]float64 {
	if redact {
		raw = []byte(RedactMetrics(scrub(string(raw), nil)))
	}
	if err := writeNewFile(filepath.Join(dir, fmt.Sprintf("c1-r%d-after.prom", i)), raw); err != nil {
		b.Fatal(err)
	}
	fams, err := recorderFamilies.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	if c := CacheCounters(fams); len(c) == 0 {
		b.Fatal("no cache counter")
	}
	counts := RequestCounts(fams)
	if base != nil {
		if g, ok := requestGrowth(base, counts); !ok || g <= 0 {
			b.Fatalf("growth %g %v", g, ok)
		}
	}
	return counts
}

// BenchmarkStepBoundary is the recorder's cost per step boundary at 10k
// series (BenchmarkStepBoundary/all; unredacted: all but the redaction),
// and its parts: redaction, writing the file, the line filter, expfmt on
// the kept lines, and expfmt on every line (what the recorder paid before
// it filtered). ns/op is per
// boundary; cpu-ns/op the process's CPU time per boundary.
func BenchmarkStepBoundary(b *testing.B) {
	for _, engines := range []int{1, 4} {
		before, after := vllmScrape(10_000, engines, 1200), vllmScrape(10_000, engines, 2400)
		for _, redact := range []bool{false, true} {
			name := "unredacted"
			if redact {
				name = "all"
			}
			b.Run(fmt.Sprintf("engines=%d/%s", engines, name), func(b *testing.B) {
				b.SetBytes(int64(len(after)))
				b.ReportAllocs()
				dir := b.TempDir()
				defer testkit.ReportCPU(b)()
				base := boundary(b, dir, -1, before, nil, redact)
				for i := 0; b.Loop(); i++ {
					boundary(b, dir, i, after, base, redact)
				}
			})
		}
		if engines != 1 {
			continue
		}
		parts := []struct {
			name string
			f    func(i int, dir string)
		}{
			{"redact", func(int, string) { RedactMetrics(scrub(string(after), nil)) }},
			{"redact-whole", func(int, string) { Redact(scrub(string(after), nil)) }},
			{"write", func(i int, dir string) {
				writeNewFile(filepath.Join(dir, fmt.Sprintf("%d.prom", i)), after)
			}},
			{"filter", func(int, string) { recorderFamilies.Lines(after) }},
			{"parse-kept", func(int, string) { ParseMetrics(recorderFamilies.Lines(after)) }},
			{"parse-all", func(int, string) { ParseMetrics(after) }},
		}
		for _, p := range parts {
			b.Run(fmt.Sprintf("engines=%d/%s", engines, p.name), func(b *testing.B) {
				dir := b.TempDir()
				defer testkit.ReportCPU(b)()
				for i := 0; b.Loop(); i++ {
					p.f(i, dir)
				}
			})
		}
	}
}

func TestVLLMScrapeParses(t *testing.T) {
	raw := vllmScrape(10_000, 2, 1200)
	all, err := ParseMetrics(raw)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := recorderFamilies.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 100 || len(kept) == 0 || len(kept) >= len(all) {
		t.Fatalf("families: %d of %d kept", len(kept), len(all))
	}
	if a, k := RequestCounts(all), RequestCounts(kept); len(k) != 1 || a[engine.RequestCounters[0].Name] != k[engine.RequestCounters[0].Name] {
		t.Errorf("request counts %v, all %v", k, a)
	}
	if a, k := CacheCounters(all), CacheCounters(kept); len(k) == 0 || fmt.Sprint(a) != fmt.Sprint(k) {
		t.Errorf("cache counters %v, all %v", k, a)
	}
}

// FuzzRecorderFamilies holds the recorder's line filter to parsing the
// whole answer: whenever all of it parses, the kept lines parse too and
// give the same cache and request counters.
func FuzzRecorderFamilies(f *testing.F) {
	f.Add(vllmScrape(300, 2, 40))
	f.Add([]byte("vllm:request_success_total{finished_reason=\"stop\"} 3\n# TYPE x counter\nx 1\n"))
	f.Add([]byte("# TYPE vllm:other gauge\nvllm:request_success_total 2\n# TYPE vllm:request_success counter\nvllm:request_success_total 5\n"))
	f.Add([]byte("# HELP sglang_omni_http_requests_total x\n# TYPE sglang_omni_http_requests_total counter\nsglang_omni_http_requests_total{route=\"/v1/audio/transcriptions\",status=\"200\"} 4.0\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		all, err := ParseMetrics(raw)
		if err != nil {
			return
		}
		kept, err := recorderFamilies.Parse(raw)
		if err != nil {
			t.Fatalf("the whole answer parses, its kept lines do not: %v\n%s", err, recorderFamilies.Lines(raw))
		}
		if a, k := fmt.Sprint(CacheCounters(all)), fmt.Sprint(CacheCounters(kept)); a != k {
			t.Errorf("cache counters %s, whole answer %s", k, a)
		}
		if a, k := fmt.Sprint(RequestCounts(all)), fmt.Sprint(RequestCounts(kept)); a != k {
			t.Errorf("request counts %s, whole answer %s", k, a)
		}
	})
}
