package sim

import (
	"net/http"
	"time"
)

// tracePrefillShare is the share of a request's service time the spans
// and profiler events count as prefill (up to the first token); the rest
// is decode. It is the split the stage histograms use.
const tracePrefillShare = 0.25

// observeRequest gives a request that respond answered to the persona's
// per-request evidence: an OTLP span (vllm, with Config.OTLPEndpoint) or
// profiler events (sglang-omni, while profiling). Queue is measured
// (begin - start: the wait for admission), service is split into prefill
// and decode. A request whose client left is not observed.
func (s *Server) observeRequest(r *http.Request, n uint64, start, begin time.Time, service time.Duration) {
	tracing := s.cfg.OTLPEndpoint != "" && otlpPersonas[s.cfg.Persona]
	if r.Context().Err() != nil || (!tracing && !profilerPersonas[s.cfg.Persona]) {
		return
	}
	id := s.requestID(r, n)
	prefill := time.Duration(float64(service) * tracePrefillShare)
	if tracing {
		s.traceRequest(id, start, begin, prefill, service)
	}
	if profilerPersonas[s.cfg.Persona] {
		s.profileRequest(id, start, begin, prefill, service)
	}
}
