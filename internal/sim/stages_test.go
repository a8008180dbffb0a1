package sim

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
	dto "github.com/prometheus/client_model/go"
)

// histOf sums a histogram family's series: count, sum and its upper
// bounds (without +Inf).
func histOf(t *testing.T, fams map[string]*dto.MetricFamily, name string) (count, sum float64, bounds []float64) {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.Metric) == 0 {
		t.Fatalf("histogram %s missing", name)
	}
	for i, m := range f.Metric {
		h := m.GetHistogram()
		count += float64(h.GetSampleCount())
		sum += h.GetSampleSum()
		if i == 0 {
			for _, b := range h.GetBucket() {
				if !math.IsInf(b.GetUpperBound(), 1) {
					bounds = append(bounds, b.GetUpperBound())
				}
			}
		}
	}
	return count, sum, bounds
}

// TestStageHistograms: the vllm personas expose every stage family of
// their engine's row with the engine's buckets; 4 requests at once with
// 2 admitted at a time: the two that waited spent one service time in
// the queue, so the queue's sum is 2 services; prefill and decode split
// every service by PrefillShare; e2e covers queue and service.
func TestStageHistograms(t *testing.T) {
	const base = 60 * time.Millisecond
	corpus := testCorpus(t)
	for _, persona := range []string{PersonaVLLM, PersonaVLLMOmni} {
		t.Run(persona, func(t *testing.T) {
			_, ts := newTestServer(t, Config{Persona: persona, Corpus: corpus, BaseLatency: base, MaxRunning: 2})
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					post(t, context.Background(), ts.URL, flip(corpus[0].Audio, 100+i))
				}()
			}
			wg.Wait()
			f := scrape(t, ts.URL)
			svc := base.Seconds()
			sums := map[string]float64{}
			for _, sf := range mustEngine(persona).Metrics.Stages {
				n, sum, bounds := histOf(t, f, sf.Family)
				if n != 4 {
					t.Errorf("%s count %g, want 4", sf.Family, n)
				}
				if !slices.Equal(bounds, sf.Buckets) {
					t.Errorf("%s buckets %v, the engine's are %v", sf.Family, bounds, sf.Buckets)
				}
				sums[sf.Family] = sum
			}
			within := func(name string, got, want, tol float64) {
				if math.Abs(got-want) > tol {
					t.Errorf("%s sum %.4f s, want %.4f s ± %.4f", name, got, want, tol)
				}
			}
			within("queue", sums["vllm:request_queue_time_seconds"], 2*svc, 0.03)
			within("prefill", sums["vllm:request_prefill_time_seconds"], 4*PrefillShare*svc, 1e-9)
			within("decode", sums["vllm:request_decode_time_seconds"], 4*(1-PrefillShare)*svc, 1e-9)
			within("inference", sums["vllm:request_inference_time_seconds"], 4*svc, 1e-9)
			within("ttft", sums["vllm:time_to_first_token_seconds"], sums["vllm:request_queue_time_seconds"]+4*PrefillShare*svc, 1e-9)
			e2e := sums["vllm:e2e_request_latency_seconds"]
			within("e2e", e2e, 6*svc, 0.04)
			if e2e < sums["vllm:request_queue_time_seconds"]+4*svc {
				t.Errorf("e2e %.4f s shorter than queue + inference", e2e)
			}
			if persona == PersonaVLLMOmni {
				n, sum, _ := histOf(t, f, "vllm_omni:e2e_request_latency_s")
				if n != 4 || math.Abs(sum-e2e) > 1e-9 {
					t.Errorf("vllm_omni e2e count %g sum %g, vllm's sum %g", n, sum, e2e)
				}
			}
		})
	}
}

// TestSGLangOmniDurationBuckets: the middleware's buckets are the
// engine's (serve/metrics.py DEFAULT_DURATION_BUCKETS).
func TestSGLangOmniDurationBuckets(t *testing.T) {
	for _, sf := range mustEngine(engine.SGLangOmni).Metrics.Stages {
		if sf.Stage == engine.StageHTTP && !slices.Equal(sf.Buckets, sglangDurationBuckets) {
			t.Errorf("sim buckets %v, engine's %v", sglangDurationBuckets, sf.Buckets)
		}
	}
}
