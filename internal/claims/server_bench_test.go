package claims

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/testkit"
)

// benchScrape is a /metrics answer of about n series: vLLM's six stage
// histograms for engines engines (every bucket a series), then counters
// with many label sets under the same prefix (the rest of a busy
// server's families).
func benchScrape(n, seen, engines int) []byte {
	var b strings.Builder
	series := 0
	for _, f := range engine.StageFamilies {
		if !strings.HasPrefix(f.Family, "vllm:") {
			continue
		}
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s histogram\n", f.Family, f.Family)
		for e := range engines {
			for i, le := range f.Buckets {
				fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",model_name=\"Qwen/Qwen3-ASR-1.7B\",le=\"%g\"} %d\n", f.Family, e, le, seen*(i+1)/len(f.Buckets))
				series++
			}
			fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",model_name=\"Qwen/Qwen3-ASR-1.7B\",le=\"+Inf\"} %d\n", f.Family, e, seen)
			fmt.Fprintf(&b, "%s_sum{engine=\"%d\",model_name=\"Qwen/Qwen3-ASR-1.7B\"} %g\n", f.Family, e, 0.05*float64(seen))
			fmt.Fprintf(&b, "%s_count{engine=\"%d\",model_name=\"Qwen/Qwen3-ASR-1.7B\"} %d\n", f.Family, e, seen)
			series += 3
		}
	}
	for fam := 0; series < n; fam++ {
		name := fmt.Sprintf("vllm:other_family_%d_total", fam) // an engine's prefix: no shortcut
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s counter\n", name, name)
		for i := 0; i < 100 && series < n; i++ {
			fmt.Fprintf(&b, "%s{engine=\"0\",model_name=\"Qwen/Qwen3-ASR-1.7B\",shard=\"%d\"} %d\n", name, i, seen*i)
			series++
		}
	}
	return []byte(b.String())
}

// BenchmarkServerStages is what a step boundary costs at 10k series: one
// /metrics answer parsed by expfmt (every series, as it must) and its
// stage families summed (ParseScrape), plus, once per step, the deltas
// and quantiles of the server block against the previous boundary's.
// ns/op is per boundary; cpu-ns/op is the process's CPU time (user +
// system, GC included) per boundary, which a machine shared with other
// work does not inflate as it does the wall clock.
func BenchmarkServerStages(b *testing.B) {
	for _, engines := range []int{1, 4} {
		b.Run(fmt.Sprintf("engines=%d", engines), func(b *testing.B) {
			before, after := benchScrape(10_000, 100, engines), benchScrape(10_000, 228, engines)
			b.SetBytes(int64(len(after)))
			b.ReportAllocs()
			defer testkit.ReportCPU(b)()
			var prev Scrape
			for i := 0; b.Loop(); i++ {
				raw := before
				if i%2 == 1 {
					raw = after
				}
				s, err := ParseScrape(raw)
				if err != nil {
					b.Fatal(err)
				}
				if i%2 == 1 {
					tel := Telemetry{Scrapes: map[ScrapeKey]Scrape{{"a", 1, 1, ScrapeMeasure}: prev, {"a", 1, 1, ScrapeAfter}: s}}
					if sv := ServerOf(tel, "asr", "a", 1, 1); sv == nil || len(sv.Stages) != 6 || sv.Stages[0].Count != float64(engines*128) {
						b.Fatalf("server %+v", sv)
					}
				}
				prev = s
			}
		})
	}
}

// BenchmarkParseAllSeries is what ParseScrape would cost if expfmt read
// every series of the answer (no stageLines): the comparison that
// justifies the line filter.
func BenchmarkParseAllSeries(b *testing.B) {
	raw := benchScrape(10_000, 228, 4)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	defer testkit.ReportCPU(b)()
	for b.Loop() {
		if _, err := parseStages(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStageLines is the line filter alone over a 10k-series answer.
func BenchmarkStageLines(b *testing.B) {
	raw := benchScrape(10_000, 228, 4)
	b.SetBytes(int64(len(raw)))
	defer testkit.ReportCPU(b)()
	for b.Loop() {
		stageLines(raw)
	}
}
