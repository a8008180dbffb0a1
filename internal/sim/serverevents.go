package sim

import (
	"time"
)

// observeRequest gives a request respond answers to the persona's
// per-request evidence: an OTLP span (vllm, with Config.OTLPEndpoint) or
// profiler events (sglang-omni, while profiling). Queue is measured
// (begin - start: the wait for admission), service is split into prefill
// and decode, by PrefillShare as the stage histograms split it. It is called when respond starts and returns what respond
// defers: a request answered while the profiler was on is recorded even
// if a stop came meanwhile (a real engine emits its events before the
// answer's last byte leaves, so a client that saw the answer never stops
// the profiler before them).
func (s *Server) observeRequest(ids []string, start, begin time.Time, service time.Duration) func() {
	tracing := s.cfg.OTLPEndpoint != "" && otlpPersonas[s.cfg.Persona]
	profiling := profilerPersonas[s.cfg.Persona] && s.prof.enter()
	if !tracing && !profiling {
		return func() {}
	}
	return func() {
		prefill := time.Duration(float64(service) * PrefillShare)
		for _, id := range ids {
			if tracing {
				s.traceRequest(id, start, begin, prefill, service)
			}
			if profiling {
				s.profileRequest(id, start, begin, prefill, service)
			}
		}
		if profiling {
			s.prof.leave()
		}
	}
}
