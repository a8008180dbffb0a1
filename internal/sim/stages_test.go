package sim

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
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

// arrivalLog wraps a server's transcription endpoint and notes when each
// request reached it and when its handler returned: the test's own view
// of the times the server's histograms must fit.
type arrivalLog struct {
	mu      sync.Mutex
	in, out []time.Time
}

func (l *arrivalLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" {
			h.ServeHTTP(w, r)
			return
		}
		in := time.Now()
		h.ServeHTTP(w, r)
		out := time.Now()
		l.mu.Lock()
		l.in, l.out = append(l.in, in), append(l.out, out)
		l.mu.Unlock()
	})
}

// queueBounds: what 4 requests of one service time each, 2 admitted at a
// time, must have waited in all, from when they arrived and returned. A
// slot frees only a service time after an admission, so the 3rd and 4th
// admitted waited at least until the 1st and 2nd arrivals plus a service
// time, whichever two they were (at worst the last two to arrive); none
// waited longer than its time in the handler less its service.
func (l *arrivalLog) queueBounds(svc float64) (lower, upper float64) {
	in := slices.Clone(l.in)
	slices.SortFunc(in, func(a, b time.Time) int { return a.Compare(b) })
	lower = max(0, in[0].Sub(in[3]).Seconds()+svc) + max(0, in[1].Sub(in[2]).Seconds()+svc)
	for i := range l.in {
		upper += l.out[i].Sub(l.in[i]).Seconds() - svc
	}
	return lower, upper
}

// TestStageHistograms: the vllm personas expose every stage family of
// their engine's row with the engine's buckets; 4 requests at once with
// 2 admitted at a time: the two that waited spent up to a service time
// in the queue (2 services in all when all 4 arrive together); prefill
// and decode split every service by PrefillShare; e2e covers queue and
// service. The queue and e2e sums are held to what the test saw of the
// requests' arrivals and returns, not to a fixed tolerance a busy host
// breaks; where the host spread the 4 arrivals over more than half a
// service (little queueing to see), the burst is sent again with a
// longer service time.
func TestStageHistograms(t *testing.T) {
	corpus := testCorpus(t)
	for _, persona := range []string{PersonaVLLM, PersonaVLLMOmni} {
		t.Run(persona, func(t *testing.T) {
			for base := 60 * time.Millisecond; ; base *= 4 {
				if stageHistograms(t, persona, corpus, base) || base > time.Second {
					return
				}
			}
		})
	}
}

// stageHistograms runs one burst and its checks; false (nothing checked)
// when the arrivals left too little queueing to check.
func stageHistograms(t *testing.T, persona string, corpus []Clip, base time.Duration) bool {
	srv, err := New(Config{Persona: persona, Corpus: corpus, BaseLatency: base, MaxRunning: 2})
	if err != nil {
		t.Fatal(err)
	}
	var log arrivalLog
	ts := httptest.NewServer(log.wrap(srv))
	defer ts.Close()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() { post(t, context.Background(), ts.URL, flip(corpus[0].Audio, 100+i)) })
	}
	wg.Wait()
	svc := base.Seconds()
	lower, upper := log.queueBounds(svc)
	if lower < svc && base <= time.Second {
		t.Logf("at %v the 4 arrivals were spread so that only %.4f s of queueing is certain: again, longer", base, lower)
		return false
	}
	f := scrape(t, ts.URL)
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
	// The server notes a request's arrival a call after the test does: a
	// tenth of a service each for the two that waited covers that.
	queue := sums["vllm:request_queue_time_seconds"]
	t.Logf("at %v: queue sum %.4f s, between %.4f and %.4f s by the arrivals (2 services: %.4f)", base, queue, lower, upper, 2*svc)
	if queue < lower-0.2*svc || queue > upper {
		t.Errorf("queue sum %.4f s, the arrivals and returns put it between %.4f and %.4f s", queue, lower-0.2*svc, upper)
	}
	within("prefill", sums["vllm:request_prefill_time_seconds"], 4*PrefillShare*svc, 1e-9)
	within("decode", sums["vllm:request_decode_time_seconds"], 4*(1-PrefillShare)*svc, 1e-9)
	within("inference", sums["vllm:request_inference_time_seconds"], 4*svc, 1e-9)
	within("ttft", sums["vllm:time_to_first_token_seconds"], queue+4*PrefillShare*svc, 1e-9)
	e2e := sums["vllm:e2e_request_latency_seconds"]
	if e2e < queue+4*svc || e2e > upper+4*svc {
		t.Errorf("e2e sum %.4f s: not between queue + inference %.4f s and the handlers' time %.4f s", e2e, queue+4*svc, upper+4*svc)
	}
	if persona == PersonaVLLMOmni {
		n, sum, _ := histOf(t, f, "vllm_omni:e2e_request_latency_s")
		if n != 4 || math.Abs(sum-e2e) > 1e-9 {
			t.Errorf("vllm_omni e2e count %g sum %g, vllm's sum %g", n, sum, e2e)
		}
	}
	return true
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
