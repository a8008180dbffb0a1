package serverevents_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/schemas"
)

func dbl(k string, v float64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}}
}

// vllmExport is an export as vLLM's do_tracing makes it, with a code-level
// span beside it that carries no request id.
func vllmExport(ids ...string) *collectortrace.ExportTraceServiceRequest {
	var spans []*tracepb.Span
	for i, id := range ids {
		f := float64(i + 1)
		spans = append(spans, &tracepb.Span{Name: serverevents.SpanNameVLLM, Kind: tracepb.Span_SPAN_KIND_SERVER, Attributes: []*commonpb.KeyValue{
			{Key: serverevents.AttrRequestID, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: id}}},
			dbl(serverevents.AttrQueue, 0.01*f), dbl(serverevents.AttrPrefill, 0.02*f), dbl(serverevents.AttrDecode, 0.03*f),
			dbl(serverevents.AttrInference, 0.05*f), dbl(serverevents.AttrTTFT, 0.031*f), dbl(serverevents.AttrE2E, 0.061*f),
		}})
	}
	spans = append(spans, &tracepb.Span{Name: "load_model"})
	return &collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}}}}}
}

const prefix = "bs-0123456789abcdef-c2-r1-s"

func recs(n int) []schemas.Record {
	var out []schemas.Record
	for i := 0; i < n; i++ {
		id := prefix + string(rune('0'+i))
		out = append(out, schemas.Record{Concurrency: 2, Repeat: 1, Seq: i, RequestID: id, ServerRequestID: "transcribe-" + id, OK: true, Phase: schemas.PhaseMeasure})
	}
	return out
}

func TestReceiverBothProtocols(t *testing.T) {
	r, err := serverevents.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// HTTP/protobuf, as OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf.
	body, _ := proto.Marshal(vllmExport("transcribe-" + prefix + "0"))
	resp, err := http.Post("http://"+r.Addr()+serverevents.TracesPath, "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP export: %d", resp.StatusCode)
	}
	resp, _ = http.Post("http://"+r.Addr()+serverevents.TracesPath, "application/json", strings.NewReader("{}"))
	if resp.Body.Close(); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("JSON export: %d, want 415", resp.StatusCode)
	}

	// gRPC, vLLM's default.
	conn, err := grpc.NewClient(r.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := collectortrace.NewTraceServiceClient(conn).Export(ctx, vllmExport("transcribe-"+prefix+"1_0", "transcribe-"+prefix+"1_1")); err != nil {
		t.Fatalf("gRPC export: %v", err)
	}

	ex := r.Exports()
	if len(ex) != 2 || r.Spans() != 3 {
		t.Fatalf("%d exports, %d spans; want 2, 3", len(ex), r.Spans())
	}
	if !bytes.Equal(ex[0].Body, body) {
		t.Error("the HTTP export is not kept as received")
	}
	var spans []serverevents.Span
	for _, e := range ex {
		again, err := serverevents.DecodeOTLP(e.Body)
		if err != nil || len(again) != len(e.Spans) {
			t.Fatalf("kept body does not decode to the same spans: %v", err)
		}
		spans = append(spans, again...)
	}
	lines := serverevents.StepSpans(spans, recs(3))
	if len(lines) != 2 {
		t.Fatalf("lines = %+v", lines)
	}
	one := lines[0]
	if one.RequestID != prefix+"0" || *one.QueueS != 0.01 || *one.PrefillS != 0.02 || *one.DecodeS != 0.03 || *one.E2ES != 0.061 || one.Parts != 1 || one.BuildS != nil {
		t.Errorf("single span line = %+v", one)
	}
	two := lines[1]
	if two.RequestID != prefix+"1" || two.Parts != 2 || *two.E2ES != 0.122 || two.QueueS != nil {
		t.Errorf("chunked request line = %+v (want the longest e2e only)", two)
	}
	if other := serverevents.StepSpans(spans, []schemas.Record{{RequestID: "bs-0123456789abcdef-c4-r1-s0"}}); len(other) != 0 {
		t.Errorf("spans of another step joined: %+v", other)
	}
}

func TestEventStages(t *testing.T) {
	const id = "transcription-1b9f"
	file := strings.Join([]string{
		`{"request_id":"` + id + `","stage":"coordinator","event_name":"request_admission","timestamp_ns":1000000000,"run_id":"r","pid":1,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"scheduler_request_build_start","timestamp_ns":1001000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"scheduler_request_build_end","timestamp_ns":1004000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"scheduler_queue_enter","timestamp_ns":1005000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"scheduler_prefill_start","timestamp_ns":1025000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"scheduler_first_emit","timestamp_ns":1065000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"thinker","event_name":"stage_complete","timestamp_ns":1165000000,"run_id":"r","pid":2,"metadata":{}}`,
		`{"request_id":"` + id + `","stage":"coordinator","event_name":"terminal_response","timestamp_ns":1170000000,"run_id":"r","pid":1,"metadata":{}}`,
		`{"request_id":"transcription-other","stage":"thinker","event_name":"scheduler_queue_enter","timestamp_ns":5,"run_id":"r","pid":2,"metadata":{}}`,
	}, "\n") + "\n"
	evs, err := serverevents.ParseEvents(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	lines := serverevents.StepEvents(evs, "r", []schemas.Record{{Concurrency: 8, Repeat: 2, RequestID: "bs-x", ServerRequestID: id}})
	if len(lines) != 2 {
		t.Fatalf("lines = %+v", lines)
	}
	l := lines[0]
	near := func(p *float64, want float64) bool { return p != nil && *p > want-1e-9 && *p < want+1e-9 }
	if l.RequestID != "bs-x" || l.Stage != "thinker" || !near(l.QueueS, 0.020) || !near(l.PrefillS, 0.040) || !near(l.DecodeS, 0.100) ||
		!near(l.BuildS, 0.003) || !near(l.E2ES, 0.170) || l.TTFTS != nil || l.Concurrency != 8 {
		t.Errorf("joined line = %+v", l)
	}
	if o := lines[1]; o.RequestID != "" || o.QueueS != nil || o.E2ES != nil || o.Repeat != 2 {
		t.Errorf("unjoined line = %+v: want no record id and null times", o)
	}
	if _, err := serverevents.ParseEvents(strings.NewReader("{\"request_id\":1}\n{}\n")); err == nil {
		t.Error("a bad line was accepted")
	}
	if evs, err := serverevents.ParseEvents(strings.NewReader(file + `{"request_id":"x","sta`)); err != nil || len(evs) != 9 {
		t.Errorf("a last line cut short: %d events, %v", len(evs), err)
	}
}

// Timestamps are wall-clock nanoseconds (time.time_ns()): an interval is
// their exact integer difference, which float64 timestamps would round to
// 256 ns. A verifier re-derives the same bytes only if the run did.
func TestEventIntervalsExact(t *testing.T) {
	const t0 = 1_764_000_000_123_456_789
	evs := []serverevents.Event{
		{RequestID: "r", Stage: "asr", EventName: serverevents.EvQueueEnter, TimestampNs: t0},
		{RequestID: "r", Stage: "asr", EventName: serverevents.EvPrefillStart, TimestampNs: t0 + 1},
		{RequestID: "r", Stage: "asr", EventName: serverevents.EvFirstEmit, TimestampNs: t0 + 1 + 1_000_003},
	}
	l := serverevents.EventStages(evs)[0]
	if *l.QueueS != 1e-9 || *l.PrefillS != 0.001000003 {
		t.Errorf("queue %v prefill %v: want 1e-09 and 0.001000003", *l.QueueS, *l.PrefillS)
	}
	far := []serverevents.Event{
		{RequestID: "r", Stage: "asr", EventName: serverevents.EvQueueEnter, TimestampNs: -1 << 63},
		{RequestID: "r", Stage: "asr", EventName: serverevents.EvPrefillStart, TimestampNs: 1<<63 - 1},
	}
	if q := serverevents.EventStages(far)[0].QueueS; q != nil {
		t.Errorf("an overflowing interval gave %v, want null", *q)
	}
}

// A profiler event directory can hold an earlier run's files (SGLang-Omni
// appends to events_<stage>_<pid>.jsonl; a relaunched server has another
// pid): only files with events of this session's run_id are copied, the
// others are named as stale, and only this run_id's events are joined.
func TestCopyEventsOnlyThisRun(t *testing.T) {
	run, src := t.TempDir(), t.TempDir()
	st := serverevents.Step{Target: "b", Concurrency: 1, Repeat: 1}
	started := time.Date(2026, 11, 30, 16, 0, 0, 123456789, time.UTC)
	runID := serverevents.RunID(started, st)
	if old := serverevents.RunID(started.Add(time.Nanosecond), st); old == runID || !strings.Contains(runID, "-b-c1-r1") {
		t.Fatalf("run ids %q and %q: want unique to the run and naming the step", runID, old)
	}
	ev := func(id, rid, name string, ns int64) string {
		return `{"request_id":"` + id + `","stage":"coordinator","event_name":"` + name + `","timestamp_ns":` + strconv.FormatInt(ns, 10) + `,"run_id":"` + rid + `","pid":1,"metadata":{}}` + "\n"
	}
	// The earlier run's file (another pid), and this run's file that the
	// same pid appended to after an earlier session's lines.
	stale := ev("transcription-old", "benchseal-b-c1-r1", "request_admission", 0) + ev("transcription-old", "benchseal-b-c1-r1", "terminal_response", 3_590_000_000)
	mine := ev("transcription-prev", "other", "request_admission", 0) + ev("transcription-prev", "other", "terminal_response", 9e9) +
		ev("transcription-new", runID, "request_admission", 0) + ev("transcription-new", runID, "terminal_response", 20_000_000)
	os.WriteFile(filepath.Join(src, "events_coordinator_7.jsonl"), []byte(stale), 0o644)
	os.WriteFile(filepath.Join(src, "events_coordinator_8.jsonl"), []byte(mine), 0o644)
	rec, _ := json.Marshal(schemas.Record{Phase: schemas.PhaseMeasure, OK: true, Concurrency: 1, Repeat: 1, RequestID: "bs-0123456789abcdef-c1-r1-s0",
		ServerRequestID: "transcription-new", StartNs: 0, EndNs: 21_000_000})
	p := filepath.Join(run, filepath.FromSlash(schemas.RecordsPath("b", 1, 1)))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, append(rec, '\n'), 0o644)

	left, err := serverevents.CopyEvents(run, st, src, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || filepath.Base(left[0]) != "events_coordinator_7.jsonl" {
		t.Errorf("stale files %v, want the earlier run's events_coordinator_7.jsonl", left)
	}
	if _, err := os.Stat(filepath.Join(run, filepath.FromSlash(schemas.ProfilerEventsPath("b", 1, 1, "events_coordinator_7.jsonl")))); err == nil {
		t.Error("the earlier run's file was sealed into this run")
	}
	b, err := os.ReadFile(filepath.Join(run, filepath.FromSlash(schemas.StagesPath("b", 1, 1))))
	if err != nil {
		t.Fatal(err)
	}
	var l schemas.RequestStages
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &l) != nil ||
		l.RequestID != "bs-0123456789abcdef-c1-r1-s0" || l.E2ES == nil || *l.E2ES != 0.02 {
		t.Errorf("stage lines %s: want only this run's request, e2e 0.02", b)
	}
}

// An exporter pointed at the receiver's root (an http/protobuf endpoint
// without /v1/traces) reaches it and is refused: Refusals says so, with
// the path it needs, so the run's warning is not "start vLLM with the
// endpoint" that it already was started with.
func TestReceiverRefusals(t *testing.T) {
	r, err := serverevents.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Refusals(); len(got) != 0 {
		t.Fatalf("refusals before any request: %v", got)
	}
	body, _ := proto.Marshal(vllmExport("transcribe-" + prefix + "0"))
	for range 2 {
		resp, err := http.Post("http://"+r.Addr()+"/", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, _ := http.Post("http://"+r.Addr()+serverevents.TracesPath, "application/json", strings.NewReader("{}"))
	resp.Body.Close()
	got := r.Refusals()
	if len(got) != 2 || !strings.HasPrefix(got[0], "HTTP POSTs to / arrived: the endpoint needs the /v1/traces path with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf (--otlp-traces-endpoint http://"+r.Addr()+"/v1/traces) (2 times)") ||
		!strings.Contains(got[1], `"application/json"`) {
		t.Errorf("refusals %q", got)
	}
	if r.Spans() != 0 {
		t.Errorf("%d spans taken from refused requests", r.Spans())
	}
}
