package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// otlpSink is an OTLP/HTTP endpoint that keeps what it is sent.
type otlpSink struct {
	mu  sync.Mutex
	got []*collectortrace.ExportTraceServiceRequest
}

func (o *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	buf.ReadFrom(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(buf.Bytes(), &req) != nil {
		w.WriteHeader(400)
		return
	}
	o.mu.Lock()
	o.got = append(o.got, &req)
	o.mu.Unlock()
}

func transcribeOnce(t *testing.T, url, id string, stream bool) *http.Response {
	t.Helper()
	body, ct := form(t, makeWAV(t, 16000, 0.5, 1), "stream", map[bool]string{true: "true", false: "false"}[stream])
	req, _ := http.NewRequest("POST", url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-Request-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b.String())
	}
	return resp
}

func TestOTLPSpans(t *testing.T) {
	sink := &otlpSink{}
	ep := httptest.NewServer(sink)
	defer ep.Close()
	s, err := New(Config{Persona: PersonaVLLM, BaseLatency: 40 * time.Millisecond, OTLPEndpoint: ep.URL + "/v1/traces", OTLPProtocol: OTLPHTTP})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	transcribeOnce(t, ts.URL, "bs-0000000000000000-c1-r1-s0", false)
	s.Close()
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.got) != 1 {
		t.Fatalf("%d exports, want 1 (flushed by Close)", len(sink.got))
	}
	sp := sink.got[0].ResourceSpans[0].ScopeSpans[0].Spans[0]
	if sp.Name != "llm_request" || kvString(sp.Attributes, "gen_ai.request.id") != "transcribe-bs-0000000000000000-c1-r1-s0" {
		t.Errorf("span %s, id %q", sp.Name, kvString(sp.Attributes, "gen_ai.request.id"))
	}
	pre, dec, e2e := kvDouble(sp.Attributes, "gen_ai.latency.time_in_model_prefill"), kvDouble(sp.Attributes, "gen_ai.latency.time_in_model_decode"), kvDouble(sp.Attributes, "gen_ai.latency.e2e")
	if pre < 0.0099 || pre > 0.0101 || dec < 0.0299 || dec > 0.0301 || e2e < 0.04 {
		t.Errorf("prefill %v decode %v e2e %v: want 0.01, 0.03 (40 ms split 1:3) and at least 0.04", pre, dec, e2e)
	}
}

func kvString(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

func kvDouble(kvs []*commonpb.KeyValue, key string) float64 {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetDoubleValue()
		}
	}
	return -1
}

func TestRequestProfiler(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Persona: PersonaSGLangOmni, BaseLatency: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	post := func(path, body string) (int, map[string]any) {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, m := post("/start_request_profile", `{"run_id":"r1"}`); code != 400 || !strings.Contains(m["detail"].(string), "SGLANG_TORCH_PROFILER_DIR") {
		t.Errorf("start without event_dir: %d %v", code, m)
	}
	transcribeOnce(t, ts.URL, "ignored", true) // before the start: not recorded
	if code, m := post("/start_request_profile", `{"run_id":"r1","event_dir":"`+dir+`"}`); code != 200 || m["run_id"] != "r1" || m["event_dir"] != dir {
		t.Fatalf("start: %d %v", code, m)
	}
	resp := transcribeOnce(t, ts.URL, "ignored", true)
	if code, m := post("/stop_request_profile", `{"run_id":"r1"}`); code != 200 || m["run_id"] != "r1" {
		t.Errorf("stop: %d %v", code, m)
	}
	transcribeOnce(t, ts.URL, "ignored", true) // after the stop: not recorded
	id := resp.Header.Get("X-Request-Id")
	names := map[string]int64{}
	files, _ := filepath.Glob(filepath.Join(dir, "events_*_*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("event files %v, want coordinator and asr", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e struct {
				RequestID   string `json:"request_id"`
				EventName   string `json:"event_name"`
				TimestampNs int64  `json:"timestamp_ns"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			if e.RequestID != id {
				t.Errorf("event of %q, want only %q", e.RequestID, id)
			}
			names[e.EventName] = e.TimestampNs
		}
	}
	if len(names) != 8 {
		t.Errorf("events %v", names)
	}
	if d := names["stage_complete"] - names["scheduler_prefill_start"]; d < int64(19*time.Millisecond) || d > int64(21*time.Millisecond) {
		t.Errorf("prefill start -> stage complete %v, want the 20 ms service", time.Duration(d))
	}
	if vs, err := New(Config{Persona: PersonaVLLM}); err == nil {
		rec := httptest.NewRecorder()
		vs.ServeHTTP(rec, httptest.NewRequest("POST", "/start_request_profile", strings.NewReader(`{}`)))
		if rec.Code != 404 {
			t.Errorf("vllm persona serves the profiler: %d", rec.Code)
		}
	}
}

// SGLang-Omni names a request transcription-<uuid4> (random): two servers
// started alike (same seed), as two runs against a relaunched server are,
// never give the same id, or an earlier run's event files would pass for
// this one's.
func TestSGLangOmniIDsAreFresh(t *testing.T) {
	seen := map[string]bool{}
	for range 2 {
		s, err := New(Config{Persona: PersonaSGLangOmni, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s)
		for range 2 {
			id := transcribeOnce(t, ts.URL, "ignored", true).Header.Get("X-Request-Id")
			u := strings.TrimPrefix(id, "transcription-")
			if seen[id] || len(u) != 36 || u[14] != '4' || !strings.ContainsRune("89ab", rune(u[19])) {
				t.Errorf("id %q: repeated, or not a version 4 UUID", id)
			}
			seen[id] = true
		}
		ts.Close()
	}
}
