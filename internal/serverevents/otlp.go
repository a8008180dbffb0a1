package serverevents

import (
	"fmt"
	"regexp"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/benchseal/benchseal/schemas"
)

// vLLM's span attributes (vllm/tracing/utils.py @0bf3270f SpanAttributes).
const (
	AttrRequestID  = "gen_ai.request.id"
	AttrQueue      = "gen_ai.latency.time_in_queue"
	AttrPrefill    = "gen_ai.latency.time_in_model_prefill"
	AttrDecode     = "gen_ai.latency.time_in_model_decode"
	AttrInference  = "gen_ai.latency.time_in_model_inference"
	AttrTTFT       = "gen_ai.latency.time_to_first_token"
	AttrE2E        = "gen_ai.latency.e2e"
	SpanNameVLLM   = "llm_request" // output_processor.py @d0782260
	attrFinishReas = "gen_ai.response.finish_reasons"
)

// Span is one request span of an OTLP export: the id the server gave the
// request and the stage times its attributes carry (Source SourceOTLP).
type Span struct {
	ServerID string // gen_ai.request.id as exported
	BenchID  string // benchseal's request id inside ServerID, "" if none
	Stages   schemas.RequestStages
	// StartUnixNs is the span's start_time_unix_nano: the request's
	// arrival on the server's wall clock (vLLM's arrival_time), which
	// verify holds to the record's start up to one clock offset.
	StartUnixNs int64
}

// benchID finds benchseal's request id (bench.RequestID) in a server's id.
// A re-measured attempt's id ends "-a<k>" (bench.AttemptRequestID).
var benchID = regexp.MustCompile(`bs-[0-9a-f]{16}-c[0-9]+-r[0-9]+-s[0-9]+(-a[0-9]+)?`)

// BenchID is benchseal's request id inside a server's request id
// ("transcribe-bs-...-s3" -> "bs-...-s3"), or "".
func BenchID(serverID string) string { return benchID.FindString(serverID) }

// DecodeOTLP decodes one OTLP/protobuf ExportTraceServiceRequest and
// returns its request spans: those carrying gen_ai.request.id. Spans
// without it (vLLM's code-level spans, other services') are skipped.
func DecodeOTLP(body []byte) ([]Span, error) {
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("otlp: not an ExportTraceServiceRequest: %w", err)
	}
	return spansOf(&req), nil
}

func spansOf(req *collectortrace.ExportTraceServiceRequest) []Span {
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				attrs := map[string]*commonpb.AnyValue{}
				for _, kv := range sp.GetAttributes() {
					attrs[kv.GetKey()] = kv.GetValue()
				}
				id := attrs[AttrRequestID].GetStringValue()
				if id == "" {
					continue
				}
				s := Span{ServerID: id, BenchID: BenchID(id), StartUnixNs: int64(sp.GetStartTimeUnixNano())}
				s.Stages = schemas.RequestStages{ServerRequestID: id, Source: schemas.SourceOTLP, Parts: 1,
					QueueS: seconds(attrs[AttrQueue]), PrefillS: seconds(attrs[AttrPrefill]),
					DecodeS: seconds(attrs[AttrDecode]), InferenceS: seconds(attrs[AttrInference]),
					TTFTS: seconds(attrs[AttrTTFT]), E2ES: seconds(attrs[AttrE2E])}
				out = append(out, s)
			}
		}
	}
	return out
}

// seconds reads a duration attribute: vLLM sets Python floats (double),
// an int is accepted too; absent or another type is nil.
func seconds(v *commonpb.AnyValue) *float64 {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_DoubleValue:
		f := x.DoubleValue
		return &f
	case *commonpb.AnyValue_IntValue:
		f := float64(x.IntValue)
		return &f
	}
	return nil
}
