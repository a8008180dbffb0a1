package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/testkit"
)

// These tests hold each persona to its engine's behaviour as read from the
// engine's source (Facts, and issue 10's "What the real engines do"): one
// test per fact group, over loopback HTTP.

// transcribeResp posts a transcription with extra request headers and
// returns the whole response.
func transcribeResp(t *testing.T, url string, header http.Header, audio []byte, fields ...string) (*http.Response, []byte) {
	t.Helper()
	body, ct := form(t, audio, fields...)
	req, _ := http.NewRequest("POST", url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// sseData splits an event stream into its data payloads.
func sseData(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			d, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				t.Fatalf("not an SSE data line: %q", line)
			}
			out = append(out, d)
		}
	}
	return out
}

// vLLM answers response_format=text with its JSON object and Content-Type
// application/json; SGLang-Omni with text/plain.
func TestEngineTextFormat(t *testing.T) {
	corpus := testCorpus(t)
	_, vl := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus})
	resp, body := transcribeResp(t, vl.URL, nil, corpus[0].Audio, "response_format", "text")
	var v struct {
		Text  string `json:"text"`
		Usage struct {
			Type    string `json:"type"`
			Seconds int    `json:"seconds"`
		} `json:"usage"`
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &v) != nil ||
		v.Text != refA || v.Usage.Type != "duration" || v.Usage.Seconds != 1 {
		t.Errorf("vllm text: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus})
	resp, body = transcribeResp(t, sg.URL, nil, corpus[0].Audio, "response_format", "text")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || string(body) != refA {
		t.Errorf("sglang-omni text: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// Streams: how each engine ends a good stream, a failed one and one cut
// short, and the ids it gives.
func TestEngineStreams(t *testing.T) {
	corpus := testCorpus(t)
	sent := http.Header{"X-Request-Id": {"bs-1"}}
	for _, tc := range []struct {
		persona     string
		cfg         Config
		first, last string // substrings of the first and last data payloads
		done        bool   // ends with [DONE]
	}{
		{PersonaVLLM, Config{}, `"object":"transcription.chunk"`, `"finish_reason":"stop"`, true},
		{PersonaVLLM, Config{StreamFailRate: 1}, `"content":"the "`, `{"error":{"message":"Internal server error (simulated failure mid-stream)."`, true},
		{PersonaVLLM, Config{StreamCutRate: 1}, `"content":"the "`, `"content":"mat "`, false},
		{PersonaSGLangOmni, Config{}, `{"type":"transcript.text.delta","delta":"the "}`, `{"type":"transcript.text.done","text":"` + refA + `","usage":{"type":"duration","seconds":1}}`, true},
		{PersonaSGLangOmni, Config{StreamFailRate: 1}, `"delta":"the "`, `{"type":"error","error":{"message":`, false},
		{PersonaSGLangOmni, Config{StreamCutRate: 1}, `"delta":"the "`, `"delta":"mat "`, false},
	} {
		cfg := tc.cfg
		cfg.Persona, cfg.Corpus = tc.persona, corpus
		_, ts := newTestServer(t, cfg)
		resp, body := transcribeResp(t, ts.URL, sent, flip(corpus[0].Audio, 300), "stream", "true")
		data := sseData(t, body)
		name := tc.persona + map[bool]string{true: " fail", false: ""}[cfg.StreamFailRate > 0] + map[bool]string{true: " cut", false: ""}[cfg.StreamCutRate > 0]
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || len(data) < 2 {
			t.Fatalf("%s: %d %q %s", name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if done := data[len(data)-1] == "[DONE]"; done != tc.done {
			t.Errorf("%s: ends with [DONE] %v, want %v: %s", name, done, tc.done, body)
		}
		if tc.done {
			data = data[:len(data)-1]
		}
		if !strings.Contains(data[0], tc.first) || !strings.Contains(data[len(data)-1], tc.last) {
			t.Errorf("%s: first %s last %s, want %s ... %s", name, data[0], data[len(data)-1], tc.first, tc.last)
		}
		// vLLM takes the sent id (chunks carry transcribe-<id>, no header);
		// SGLang-Omni makes its own and names it in the header.
		switch tc.persona {
		case PersonaVLLM:
			if !strings.Contains(data[0], `"id":"transcribe-bs-1"`) || resp.Header.Get("X-Request-Id") != "" {
				t.Errorf("%s: id %q / %s", name, resp.Header.Get("X-Request-Id"), data[0])
			}
		default:
			if id := resp.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "transcription-") || len(id) != len("transcription-")+36 {
				t.Errorf("%s: X-Request-Id %q", name, id)
			}
		}
	}
}

// vLLM's /server_info exists only in dev mode; its knobs are nested with
// ?config_format=json; without dev mode /metrics still carries
// vllm:cache_config_info's labels.
func TestEngineVLLMServerInfo(t *testing.T) {
	_, plain := newTestServer(t, Config{Persona: PersonaVLLM, MaxRunning: 7, Cache: true})
	if status, _ := get(t, plain.URL+"/server_info"); status != 404 {
		t.Errorf("/server_info without dev mode: %d", status)
	}
	f := scrape(t, plain.URL)
	info := f["vllm:cache_config_info"]
	if info == nil || len(info.Metric) != 1 {
		t.Fatalf("no vllm:cache_config_info")
	}
	labels := map[string]string{}
	for _, l := range info.Metric[0].Label {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["gpu_memory_utilization"] != "0.9" || labels["enable_prefix_caching"] != "True" || labels["block_size"] != "16" ||
		labels["engine"] != "0" || labels["model_name"] != "" {
		t.Errorf("cache_config_info labels %v", labels)
	}

	_, dev := newTestServer(t, Config{Persona: PersonaVLLM, MaxRunning: 7, Cache: true, DevMode: true})
	status, body := get(t, dev.URL+"/server_info")
	var text struct {
		Config    string         `json:"vllm_config"`
		Env       map[string]any `json:"vllm_env"`
		SystemEnv map[string]any `json:"system_env"`
	}
	if status != 200 || json.Unmarshal(body, &text) != nil || !strings.Contains(text.Config, "enable_prefix_caching=True") || text.Env == nil || text.SystemEnv == nil {
		t.Errorf("/server_info: %d %s", status, body)
	}
	status, body = get(t, dev.URL+"/server_info?config_format=json")
	var nested struct {
		Config struct {
			Scheduler struct {
				MaxNumSeqs int `json:"max_num_seqs"`
			} `json:"scheduler_config"`
			Cache struct {
				GPUMem float64 `json:"gpu_memory_utilization"`
				Prefix bool    `json:"enable_prefix_caching"`
			} `json:"cache_config"`
			Model struct {
				DType string `json:"dtype"`
			} `json:"model_config"`
		} `json:"vllm_config"`
	}
	if status != 200 || json.Unmarshal(body, &nested) != nil || nested.Config.Scheduler.MaxNumSeqs != 7 || nested.Config.Cache.GPUMem != 0.9 ||
		!nested.Config.Cache.Prefix || nested.Config.Model.DType != "torch.bfloat16" {
		t.Errorf("/server_info?config_format=json: %d %s", status, body)
	}
}

// vLLM's metric names and labels: model_name and engine on every family,
// request_success by finished_reason, no vllm:gpu_prefix_cache_*.
func TestEngineVLLMMetrics(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus})
	post(t, t.Context(), ts.URL, corpus[0].Audio)
	f := scrape(t, ts.URL)
	for _, name := range []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:mm_cache_queries_total",
		"vllm:mm_cache_hits_total", "vllm:request_success_total", "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:e2e_request_latency_seconds"} {
		fam := f[name]
		if fam == nil {
			t.Errorf("%s missing", name)
			continue
		}
		for _, m := range fam.Metric {
			if !hasLabel(m, "engine") || !hasLabel(m, "model_name") {
				t.Errorf("%s lacks engine or model_name", name)
			}
		}
	}
	var reasons []string
	for _, m := range f["vllm:request_success_total"].GetMetric() {
		for _, l := range m.Label {
			if l.GetName() == "finished_reason" {
				reasons = append(reasons, l.GetValue())
			}
		}
	}
	if !slices.Contains(reasons, "stop") || value(t, f, "vllm:request_success_total") != 1 {
		t.Errorf("request_success_total reasons %v", reasons)
	}
	for name := range f {
		if strings.HasPrefix(name, "vllm:gpu_prefix_cache") {
			t.Errorf("%s is gone since vLLM 0.9", name)
		}
	}
}

func hasLabel(m *dto.Metric, name string) bool {
	return slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == name })
}

// SGLang-Omni's /health, /metrics families and labels (and 404 without
// metrics enabled), and vLLM's empty /health.
func TestEngineSGLangOmniHealthAndMetrics(t *testing.T) {
	corpus := testCorpus(t)
	_, vl := newTestServer(t, Config{Persona: PersonaVLLM})
	if status, body := get(t, vl.URL+"/health"); status != 200 || len(body) != 0 {
		t.Errorf("vllm /health: %d %q", status, body)
	}
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus})
	status, body := get(t, sg.URL+"/health")
	if status != 200 || !strings.HasPrefix(string(body), `{"`) || !strings.Contains(string(body), `"status":"healthy"`) {
		t.Errorf("sglang-omni /health: %d %s", status, body)
	}
	post(t, t.Context(), sg.URL, corpus[0].Audio)
	f := scrape(t, sg.URL)
	for _, name := range []string{"sglang_omni_pipeline_running", "sglang_omni_pipeline_tracked_requests", "sglang_omni_pipeline_pending_completions",
		"sglang_omni_request_states", "sglang_omni_stage_present", "sglang_omni_http_requests_total", "sglang_omni_http_request_duration_seconds"} {
		if f[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	var found bool
	for _, m := range f["sglang_omni_http_requests_total"].GetMetric() {
		l := map[string]string{}
		for _, p := range m.Label {
			l[p.GetName()] = p.GetValue()
		}
		if l["method"] == "POST" && l["route"] == "/v1/audio/transcriptions" && l["status"] == "200" && l["model_name"] == DefaultModel {
			found = m.Counter.GetValue() == 1
		}
	}
	if !found {
		t.Errorf("no sglang_omni_http_requests_total{method=POST,route=/v1/audio/transcriptions,status=200} 1")
	}
	_, off := newTestServer(t, Config{Persona: PersonaSGLangOmni, NoMetrics: true})
	if status, _ := get(t, off.URL+"/metrics"); status != 404 {
		t.Errorf("/metrics without metrics enabled: %d", status)
	}
}

// Errors: vLLM's OpenAI envelope (unknown model 404 NotFoundError,
// verbose_json 400 for Qwen3-ASR); SGLang-Omni checks no model on
// transcriptions (it answers with its own), FastAPI detail otherwise, a
// missing file 422.
func TestEngineErrors(t *testing.T) {
	corpus := testCorpus(t)
	_, vl := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus})
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus})
	for _, tc := range []struct {
		name   string
		url    string
		audio  []byte
		fields []string
		status int
		body   string
	}{
		{"vllm unknown model", vl.URL, corpus[0].Audio, []string{"model", "whisper-1"}, 404,
			`{"error":{"message":"The model ` + "`whisper-1`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`},
		{"vllm verbose_json", vl.URL, corpus[0].Audio, []string{"response_format", "verbose_json"}, 400,
			`{"error":{"message":"Currently do not support verbose_json for Qwen/Qwen3-ASR-1.7B","type":"BadRequestError","param":null,"code":400}}`},
		{"vllm diarized_json", vl.URL, corpus[0].Audio, []string{"response_format", "diarized_json"}, 400,
			`{"error":{"message":"Currently do not support diarized_json for Qwen/Qwen3-ASR-1.7B","type":"BadRequestError","param":null,"code":400}}`},
		{"vllm srt", vl.URL, corpus[0].Audio, []string{"response_format", "srt"}, 400,
			`{"error":{"message":"Currently only support response_format: ` + "`text`, `json`, `verbose_json` or `diarized_json`" + `","type":"BadRequestError","param":null,"code":400}}`},
		{"sglang-omni vtt", sg.URL, corpus[0].Audio, []string{"response_format", "vtt"}, 400,
			`{"detail":"response_format 'vtt' requires a segment-timestamp capability"}`},
		{"vllm bogus", vl.URL, corpus[0].Audio, []string{"response_format", "bogus"}, 400,
			`{"error":{"message":"Currently only support response_format: ` + "`text`, `json`, `verbose_json` or `diarized_json`" + `","type":"BadRequestError","param":null,"code":400}}`},
		{"sglang-omni diarized_json", sg.URL, corpus[0].Audio, []string{"response_format", "diarized_json"}, 400,
			`{"detail":"Unsupported response_format for /v1/audio/transcriptions: 'diarized_json'"}`},
		{"sglang-omni bogus", sg.URL, corpus[0].Audio, []string{"response_format", " Bogus "}, 400,
			`{"detail":"Unsupported response_format for /v1/audio/transcriptions: ' Bogus '"}`},
		{"sglang-omni missing file", sg.URL, nil, nil, 422,
			`{"detail":[{"input":null,"loc":["body","file"],"msg":"Field required","type":"missing"}]}`},
		{"sglang-omni verbose_json stream", sg.URL, corpus[0].Audio, []string{"response_format", "verbose_json", "stream", "true"}, 400,
			`{"detail":"stream=true supports only response_format 'json' or 'text', got 'verbose_json'"}`},
	} {
		status, body := post(t, t.Context(), tc.url, tc.audio, tc.fields...)
		if status != tc.status || string(body) != tc.body {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, status, body, tc.status, tc.body)
		}
	}
	// The model is not checked: the served one answers, 200.
	status, body := post(t, t.Context(), sg.URL, corpus[0].Audio, "model", "whisper-1")
	var got struct{ Text string }
	if json.Unmarshal(body, &got); status != 200 || got.Text != corpus[0].Text {
		t.Errorf("sglang-omni, another model: %d %s, want 200 with the served model's transcript", status, body)
	}
}

// Overload: vLLM queues without bound by default (no MaxQueue): nothing is
// shed however many wait; SGLang-Omni 0.1.4 sheds with 500 and its detail
// (TestShedding covers the bounded queues of both).
func TestEngineVLLMUnboundedQueue(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus, MaxRunning: 1, BaseLatency: 20 * time.Millisecond})
	statuses := make(chan int, 12)
	for i := range 12 {
		go func() {
			s, _ := post(t, t.Context(), ts.URL, flip(corpus[0].Audio, 100+i))
			statuses <- s
		}()
	}
	for range 12 {
		if s := <-statuses; s != 200 {
			t.Errorf("status %d: default vLLM never sheds", s)
		}
	}
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, MaxRunning: 1, MaxQueue: 1, BaseLatency: time.Hour})
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	for i := range 2 {
		go post(t, hold, sg.URL, flip(corpus[0].Audio, 100+i))
	}
	waitFor(t, sg.URL, "sglang_omni_pipeline_tracked_requests", 2)
	status, body := post(t, t.Context(), sg.URL, corpus[0].Audio)
	if status != 500 || string(body) != `{"detail":"The request queue is full."}` {
		t.Errorf("sglang-omni shed: %d %s", status, body)
	}
}

// TestSGLangOmniShedsAt64Plus32: at its defaults (max_running_requests
// 64) and --max_queued_requests 32, SGLang-Omni holds 96 requests and
// sheds the 97th with 500 "The request queue is full.", which the runner
// reads as shedding (engine.Shed), not as a server failure.
func TestSGLangOmniShedsAt64Plus32(t *testing.T) {
	corpus := testCorpus(t)
	srv, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, MaxQueue: 32, BaseLatency: time.Hour})
	if got := srv.Config().MaxRunning; got != 64 {
		t.Fatalf("default MaxRunning %d, want 64", got)
	}
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	for i := range 96 {
		go post(t, hold, sg.URL, flip(corpus[0].Audio, 100+i))
	}
	waitFor(t, sg.URL, "sglang_omni_pipeline_tracked_requests", 96)
	for _, stream := range []bool{false, true} {
		fields := []string{"stream", fmt.Sprint(stream)}
		status, body := post(t, t.Context(), sg.URL, flip(corpus[0].Audio, 7), fields...)
		if status != 500 || string(body) != `{"detail":"The request queue is full."}` {
			t.Errorf("stream=%v: the 97th: %d %s", stream, status, body)
		}
		if e, ok := engine.Shed(status, string(body)); !ok || e != engine.SGLangOmni {
			t.Errorf("engine.Shed(%d, %s) = %q, %v", status, body, e, ok)
		}
	}
}

// Every persona has its facts, each with a source.
func TestFactsHaveSources(t *testing.T) {
	for name := range personas {
		fs := Facts(name)
		if len(fs) < 5 {
			t.Errorf("%s: %d facts", name, len(fs))
		}
		for _, f := range fs {
			if f.What == "" || f.Source == "" {
				t.Errorf("%s: fact %+v without its source", name, f)
			}
		}
	}
}

// vLLM-Omni answers as vLLM does but relabels engine as stage and replica
// on every vllm:* family and adds vllm_omni:* families.
func TestEngineVLLMOmni(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaVLLMOmni, Corpus: corpus, Cache: true})
	resp, body := transcribeResp(t, ts.URL, http.Header{"X-Request-Id": {"bs-2"}}, corpus[0].Audio, "response_format", "text")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || textOf(t, body) != refA {
		t.Errorf("text: %d %s", resp.StatusCode, body)
	}
	f := scrape(t, ts.URL)
	for _, name := range []string{"vllm:mm_cache_hits_total", "vllm:request_success_total", "vllm:cache_config_info", "vllm:num_requests_running"} {
		for _, m := range f[name].GetMetric() {
			if hasLabel(m, "engine") || !hasLabel(m, "stage") || !hasLabel(m, "replica") {
				t.Errorf("%s: labels %v, want stage and replica instead of engine", name, m.Label)
			}
		}
	}
	if value(t, f, "vllm_omni:requests_success_total") != 1 || value(t, f, "vllm:request_success_total") != 1 {
		t.Errorf("request counters: vllm_omni %v, vllm %v", value(t, f, "vllm_omni:requests_success_total"), value(t, f, "vllm:request_success_total"))
	}
	for _, name := range []string{"vllm_omni:num_requests_running", "vllm_omni:num_requests_waiting", "vllm_omni:prompt_tokens_total"} {
		value(t, f, name)
	}
}

// TestChunkedEngineRequests: one HTTP request of 90 s is 4 engine requests
// on vLLM (chunks of 29 s: its split point is the first quiet window of
// each chunk's last second), each counted by vllm:request_success_total and
// observed by its stage histograms, streamed too; a request without
// language on a model that detects it adds one (lang_detect), one with a
// language does not. SGLang-Omni's middleware counts HTTP requests: 1.
func TestChunkedEngineRequests(t *testing.T) {
	long := testkit.NoiseWAV(90, 3)
	for _, tc := range []struct {
		name   string
		cfg    Config
		fields []string
		family string
		want   float64
	}{
		{"vllm 90 s", Config{Persona: PersonaVLLM}, []string{"language", "en"}, "vllm:request_success_total", 4},
		{"vllm 90 s stream", Config{Persona: PersonaVLLM}, []string{"language", "en", "stream", "true"}, "vllm:request_success_total", 4},
		{"vllm 90 s no language, lang detect", Config{Persona: PersonaVLLM, Model: "openai/whisper-large-v3"}, nil, "vllm:request_success_total", 5},
		{"vllm 90 s language, lang detect", Config{Persona: PersonaVLLM, Model: "openai/whisper-large-v3"}, []string{"language", "en"}, "vllm:e2e_request_latency_seconds", 4},
		{"vllm 20 s chunks of 10 s", Config{Persona: PersonaVLLM, ChunkSeconds: 10}, nil, "vllm:request_success_total", 3},
		{"vllm no chunking", Config{Persona: PersonaVLLM, ChunkSeconds: -1}, nil, "vllm:request_success_total", 1},
		{"sglang-omni 90 s", Config{Persona: PersonaSGLangOmni}, nil, "sglang_omni_http_requests_total", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts := newTestServer(t, tc.cfg)
			audio := long
			if tc.cfg.ChunkSeconds == 10 {
				audio = testkit.NoiseWAV(20, 3)
			}
			if status, body := post(t, t.Context(), ts.URL, audio, tc.fields...); status != 200 {
				t.Fatalf("%d %s", status, body)
			}
			if got := value(t, scrape(t, ts.URL), tc.family); got != tc.want {
				t.Errorf("%s = %g, want %g", tc.family, got, tc.want)
			}
		})
	}
	// SGLang-Omni cannot split a stream: one over its 1200 s limit is 400.
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni})
	status, body := post(t, t.Context(), sg.URL, testkit.WAV(16000, 1, 16, make([]byte, 2*16000*1201)), "stream", "true")
	if status != 400 || !strings.Contains(string(body), "stream=true does not support audio longer than 1200 seconds") {
		t.Errorf("sglang-omni stream of 1201 s: %d %s", status, body)
	}
}

// TestStreamHeaders: vLLM answers 200 before it generates; SGLang-Omni's
// status and headers wait for its first chunk (the first word here,
// a quarter of the service time in), so what fails before it is a plain
// HTTP error (TestSGLangOmniShedsAt64Plus32). SGLang-Omni's bound is a
// floor no busy host lowers (a timer never fires early); vLLM's "at once"
// is half the first word's time plus twice what a GET /health round trip
// costs on this host just then (measured before and after), and where
// that leaves too little room to tell the two apart the service time
// grows.
func TestStreamHeaders(t *testing.T) {
	corpus := testCorpus(t)
	for _, tc := range []struct {
		persona    string
		atFirstBit bool
	}{{PersonaVLLM, false}, {PersonaSGLangOmni, true}} {
		for service := 400 * time.Millisecond; ; service *= 4 {
			if streamHeaders(t, corpus, tc.persona, tc.atFirstBit, service) || service > 5*time.Second {
				break
			}
		}
	}
}

// streamHeaders makes one streamed request; false when the host's cost
// left too little room to check vLLM's bound.
func streamHeaders(t *testing.T, corpus []Clip, persona string, atFirstBit bool, service time.Duration) bool {
	_, ts := newTestServer(t, Config{Persona: persona, Corpus: corpus, BaseLatency: service})
	roundTrip := func() time.Duration {
		start := time.Now()
		resp, err := http.Get(ts.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start)
	}
	before := roundTrip()
	body, ct := form(t, corpus[0].Audio, "stream", "true")
	req, _ := http.NewRequestWithContext(t.Context(), "POST", ts.URL+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	headers := time.Since(start)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cost := max(before, roundTrip())
	words := len(strings.Fields(corpus[0].Text))
	firstWord := service / time.Duration(words)
	if atFirstBit {
		if headers < firstWord*9/10 {
			t.Errorf("%s: headers after %v (the first word is due at %v)", persona, headers, firstWord)
		}
		return true
	}
	bound := firstWord/2 + 2*cost
	if bound >= firstWord*9/10 && service <= 5*time.Second {
		t.Logf("%s at %v: a round trip costs %v here, too close to the first word (%v) to tell: again, longer", persona, service, cost, firstWord)
		return false
	}
	if headers > bound {
		t.Errorf("%s: headers after %v (the first word is due at %v; at once here is within %v, a round trip costing %v)", persona, headers, firstWord, bound, cost)
	}
	return true
}
