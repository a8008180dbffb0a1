package fingerprint

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
	dto "github.com/prometheus/client_model/go"
)

// DefaultSettleBound is how long the recorder waits at most, after a
// phase, for the server to count the phase's requests.
//
// Engines count a request just after its answer left, not before:
// vLLM's output handler pushes a finished request's output to the HTTP
// side (step 2 of output_handler), then records its stats, counter and
// stage histograms in one loop (step 4, PrometheusStatLogger.record); the
// HTTP side runs in between when the handler awaits, between chunks of
// VLLM_V1_OUTPUT_PROC_CHUNK_SIZE (128) outputs or on an abort
// (vllm-project/vllm vllm/v1/engine/async_llm.py@00080ee1,
// vllm/v1/metrics/loggers.py@005a810b). A scrape the instant the last
// answer arrived could miss the last requests, and verify's checks 7 and
// 9 would call an honest run's records "requests the server never saw".
// That lag is one pass of the handler's loop, milliseconds; 2 s is
// hundreds of times more, and bounds what a step costs when the counter
// never gets there (records the server did not count, which verify then
// reports): two scrapes a step, 4 s at most.
const DefaultSettleBound = 2 * time.Second

// settlePoll is the first wait between two scrapes of a settle; it
// doubles up to settlePollMax, so a lag of a few ms costs a few ms and a
// long one a scrape every 100 ms (a 10k-series scrape costs the server
// too).
const (
	settlePoll    = 5 * time.Millisecond
	settlePollMax = 100 * time.Millisecond
)

// recorderFamilies are the families the recorder reads: the cache
// counters and the request counters of the engine table. Not the stage
// histograms: every engine observes them with its request counter (vLLM:
// the same loop of record(); SGLang-Omni: the same
// observe_http_request), so a counter that grew says they did too.
var recorderFamilies = func() *Families {
	names := counterNames(engine.CacheCounterNames...)
	for _, rc := range engine.RequestCounters {
		names = append(names, counterNames(rc.Name)...)
	}
	return NewFamilies(names...)
}()

// scrapeFamilies scrapes t's /metrics and parses the recorder's families
// (recorderFamilies) out of it.
func scrapeFamilies(ctx context.Context, client *http.Client, t Endpoint) ([]byte, map[string]*dto.MetricFamily, error) {
	return scrapeParsed(ctx, client, t.URL, t.Header, recorderFamilies.Parse)
}

// RequestCounts are the request counters (engine.RequestCounters) present
// in fams, each summed over its series that carry its Match labels,
// whatever their status: a lower bound a server's count of the requests
// it answered with 200 never exceeds.
func RequestCounts(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, rc := range engine.RequestCounters {
		f, ok := fams[rc.Name]
		if !ok {
			f, ok = fams[strings.TrimSuffix(rc.Name, "_total")]
		}
		if !ok {
			continue
		}
		var sum float64
		for _, m := range f.GetMetric() {
			if !LabelsMatch(m, rc.Match) {
				continue
			}
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			}
		}
		out[rc.Name] = sum
	}
	return out
}

// LabelsMatch says whether m carries every label of match with its
// value (an engine row's Match: SGLang-Omni's transcription route, a
// status). The one matcher of the recorder, internal/claims and verify.
func LabelsMatch(m *dto.Metric, match map[string]string) bool {
	for k, v := range match {
		if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
			return false
		}
	}
	return true
}

// requestGrowth is the growth from base to now of the first request
// counter (engine.RequestCounters order) both have; ok is false when
// none.
func requestGrowth(base, now map[string]float64) (float64, bool) {
	for _, rc := range engine.RequestCounters {
		b, okb := base[rc.Name]
		n, okn := now[rc.Name]
		if okb && okn {
			return n - b, true
		}
	}
	return 0, false
}

// settleScrape waits for the server to count want requests since the
// scrape whose request counts are base: while the first request counter
// present in both has grown by less, it scrapes again, until the bound
// passes. It returns the scrape to keep (the last that answered and
// parsed) and how it waited; nil when it did not wait for anything
// (nothing answered, no previous scrape, no request counter exposed, or
// waits disabled).
func (r *Recorder) settleScrape(ctx context.Context, t Endpoint, want int, base map[string]float64,
	raw []byte, fams map[string]*dto.MetricFamily) ([]byte, map[string]*dto.MetricFamily, *schemas.ScrapeSettle) {
	if want <= 0 || base == nil || r.cfg.SettleBound < 0 {
		return raw, fams, nil
	}
	counted, ok := requestGrowth(base, RequestCounts(fams))
	if !ok {
		return raw, fams, nil
	}
	st := &schemas.ScrapeSettle{Want: want, Scrapes: 1}
	start := time.Now()
	for poll := settlePoll; counted < float64(want); poll = min(2*poll, settlePollMax) {
		left := r.cfg.SettleBound - time.Since(start)
		if left <= 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(poll, left)):
		}
		if ctx.Err() != nil {
			break
		}
		raw2, fams2, err := scrapeFamilies(ctx, r.cfg.Client, t)
		if err != nil {
			break // keep the scrape that answered; this one is not evidence
		}
		st.Scrapes++
		raw, fams = raw2, fams2
		if c, ok := requestGrowth(base, RequestCounts(fams)); ok {
			counted = c
		}
	}
	st.Counted, st.WaitedNs, st.Met = counted, time.Since(start).Nanoseconds(), counted >= float64(want)
	return raw, fams, st
}
