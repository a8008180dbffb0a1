package sim

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// OTLP protocols of Config.OTLPProtocol, as vLLM reads
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (vllm/tracing/otel.py @40eeb0c5).
const (
	OTLPGRPC = "grpc"
	OTLPHTTP = "http/protobuf"
)

// OTLPFlushInterval is how often the vllm persona exports the spans it
// holds (vLLM's BatchSpanProcessor: every 5 s by default; the sim is
// quicker so that tests wait less).
const OTLPFlushInterval = 500 * time.Millisecond

// otlpPersonas export spans: the vLLM engines (--otlp-traces-endpoint).
var otlpPersonas = map[string]bool{PersonaVLLM: true, PersonaVLLMOmni: true}

// spanExporter batches the vllm persona's request spans and exports them
// to Config.OTLPEndpoint.
type spanExporter struct {
	once    sync.Once
	mu      sync.Mutex
	pending []*tracepb.Span
	conn    *grpc.ClientConn
	stop    chan struct{}
	done    chan struct{}
	closed  bool
	fail    func(error)
}

// traceRequest records one finished request as vLLM's do_tracing does
// (vllm/v1/engine/output_processor.py @d0782260): span "llm_request", kind
// SERVER, starting at arrival, with gen_ai.request.id = the request's id
// and the gen_ai.latency.* durations in seconds (vllm/tracing/utils.py
// @0bf3270f). The sim's clock: arrival = start, queued = start, scheduled
// = begin, first token = begin + prefill, last token = begin + service.
func (s *Server) traceRequest(id string, start, begin time.Time, prefill, service time.Duration) {
	x := &s.traces
	x.once.Do(func() { s.startExporter() })
	end := begin.Add(service) // the last token: the answer's last byte leaves after it
	d := func(k string, v float64) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}}
	}
	sp := &tracepb.Span{
		TraceId: traceID(s.bits(uint64(start.UnixNano()))), SpanId: spanID(s.bits(^uint64(start.UnixNano()))),
		Name: "llm_request", Kind: tracepb.Span_SPAN_KIND_SERVER,
		StartTimeUnixNano: uint64(start.UnixNano()), EndTimeUnixNano: uint64(end.UnixNano()),
		Attributes: []*commonpb.KeyValue{
			d("gen_ai.latency.time_to_first_token", begin.Add(prefill).Sub(start).Seconds()),
			d("gen_ai.latency.e2e", end.Sub(start).Seconds()),
			d("gen_ai.latency.time_in_queue", begin.Sub(start).Seconds()),
			d("gen_ai.latency.time_in_model_prefill", prefill.Seconds()),
			d("gen_ai.latency.time_in_model_decode", (service - prefill).Seconds()),
			d("gen_ai.latency.time_in_model_inference", service.Seconds()),
			{Key: "gen_ai.request.id", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: id}}},
			{Key: "gen_ai.response.finish_reasons", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: `["stop"]`}}},
		},
	}
	x.mu.Lock()
	if !x.closed {
		x.pending = append(x.pending, sp)
	}
	x.mu.Unlock()
}

func traceID(b uint64) []byte {
	id := make([]byte, 16)
	for i := range 8 {
		id[i], id[8+i] = byte(b>>(8*i)), byte(^b>>(8*i))
	}
	return id
}

func spanID(b uint64) []byte {
	id := make([]byte, 8)
	for i := range id {
		id[i] = byte(b >> (8 * i))
	}
	return id
}

func (s *Server) startExporter() {
	x := &s.traces
	x.mu.Lock()
	x.stop, x.done = make(chan struct{}), make(chan struct{})
	x.mu.Unlock()
	x.fail = func(err error) {
		if s.cfg.RequestLog != nil {
			s.logMu.Lock()
			fmt.Fprintf(s.cfg.RequestLog, "sim: otlp export: %v\n", err)
			s.logMu.Unlock()
		}
	}
	if s.cfg.OTLPProtocol != OTLPHTTP {
		target := strings.TrimPrefix(strings.TrimPrefix(s.cfg.OTLPEndpoint, "http://"), "grpc://")
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			x.fail(err)
		}
		x.conn = conn
	}
	go func() {
		defer close(x.done)
		t := time.NewTicker(OTLPFlushInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.exportSpans()
			case <-x.stop:
				s.exportSpans()
				return
			}
		}
	}()
}

// exportSpans sends what is pending as one ExportTraceServiceRequest.
func (s *Server) exportSpans() {
	x := &s.traces
	x.mu.Lock()
	spans := x.pending
	x.pending = nil
	x.mu.Unlock()
	if len(spans) == 0 {
		return
	}
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	req := &collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "vllm"),
			str("vllm.instrumenting_module_name", "vllm.llm_engine"), str("vllm.process_id", fmt.Sprint(os.Getpid()))}},
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "vllm.llm_engine"}, Spans: spans}},
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.cfg.OTLPProtocol == OTLPHTTP {
		body, err := proto.Marshal(req)
		if err != nil {
			s.traces.fail(err)
			return
		}
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.OTLPEndpoint, bytes.NewReader(body))
		if err != nil {
			s.traces.fail(err)
			return
		}
		hr.Header.Set("Content-Type", "application/x-protobuf")
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			s.traces.fail(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			s.traces.fail(fmt.Errorf("%s answered %s", s.cfg.OTLPEndpoint, resp.Status))
		}
		return
	}
	if x.conn == nil {
		return
	}
	if _, err := collectortrace.NewTraceServiceClient(x.conn).Export(ctx, req); err != nil {
		s.traces.fail(err)
	}
}

// Close exports the spans the server still holds and closes its
// profiler's event files. Serve calls it once it has shut down.
func (s *Server) Close() {
	x := &s.traces
	x.mu.Lock()
	started := x.stop != nil && !x.closed
	x.closed = true
	x.mu.Unlock()
	if started {
		close(x.stop)
		<-x.done
		if x.conn != nil {
			x.conn.Close()
		}
	}
	s.prof.stop("")
}
