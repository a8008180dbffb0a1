package sim

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestVLLMMaxQueueCountsInFlight: vLLM's --max-num-queued-reqs (PR
// #49445) caps the requests in flight, running and waiting together:
// with 4 running at most and --max-queue 6, the 7th request in flight is
// shed (503), not the 11th as a queue beyond the running ones would.
func TestVLLMMaxQueueCountsInFlight(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus, MaxRunning: 4, MaxQueue: 6, BaseLatency: time.Hour})
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	for i := range 6 {
		go post(t, hold, ts.URL, flip(corpus[0].Audio, 100+i))
	}
	waitFor(t, ts.URL, "vllm:num_requests_running", 4)
	waitFor(t, ts.URL, "vllm:num_requests_waiting", 2)
	if status, _ := post(t, t.Context(), ts.URL, flip(corpus[0].Audio, 7)); status != 503 {
		t.Errorf("the 7th in flight of --max-queue 6: %d, want 503", status)
	}
}

// streamTimes posts a stream and returns when its headers and its first
// data event arrived.
func streamTimes(t *testing.T, ctx context.Context, url string, audio []byte, id string) (headers, first time.Time, status int) {
	t.Helper()
	body, ct := form(t, audio, "stream", "true")
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-Request-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			t.Error(err)
		}
		return
	}
	defer resp.Body.Close()
	headers, status = time.Now(), resp.StatusCode
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: {") {
			first = time.Now()
			break
		}
	}
	for sc.Scan() {
	}
	return
}

// TestVLLMStreamHeadersAtAcceptance: vLLM answers a stream 200 once the
// engine has accepted it and waits in the scheduler after (V8, P1): a
// stream queued behind a running one has its headers while the running
// one still runs.
func TestVLLMStreamHeadersAtAcceptance(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus, MaxRunning: 1, BaseLatency: time.Hour})
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	go post(t, hold, ts.URL, corpus[0].Audio)
	waitFor(t, ts.URL, "vllm:num_requests_running", 1)
	// The running request holds the only slot for an hour: headers that
	// arrive now came before the queue let the stream run.
	body, ct := form(t, corpus[1].Audio, "stream", "true")
	req, _ := http.NewRequestWithContext(hold, "POST", ts.URL+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultClient.Do(req) // returns at the headers
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("queued stream: %d %q, want 200 text/event-stream before it runs", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if w := value(t, scrape(t, ts.URL), "vllm:num_requests_waiting"); w != 1 {
		t.Errorf("waiting %v with the headers out, want 1 (the stream still queued)", w)
	}
}

// TestStreamFirstTextAfterSimFirstToken: in an honest run (no faults) a
// client's first streamed text never comes before the first token the
// sim itself books (its span's arrival + time to first token: queue +
// PrefillShare of the service time), so a rule "client first byte >=
// server first token" holds on the simulator.
func TestStreamFirstTextAfterSimFirstToken(t *testing.T) {
	sink := &otlpSink{}
	ep := httptest.NewServer(sink)
	defer ep.Close()
	s, err := New(Config{Persona: PersonaVLLM, Corpus: testCorpus(t), MaxRunning: 1, BaseLatency: 80 * time.Millisecond,
		PerAudioSecond: 40 * time.Millisecond, OTLPEndpoint: ep.URL + "/v1/traces", OTLPProtocol: OTLPHTTP})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	firsts := map[string]time.Time{}
	type res struct {
		id    string
		first time.Time
	}
	out := make(chan res, 3)
	for i, id := range []string{"a", "b", "c"} { // the 2nd and 3rd queue
		go func() {
			_, first, status := streamTimes(t, t.Context(), ts.URL, flip(testCorpus(t)[0].Audio, 100+i), id)
			if status != 200 || first.IsZero() {
				t.Errorf("%s: status %d, first text %v", id, status, first)
			}
			out <- res{id, first}
		}()
	}
	for range 3 {
		r := <-out
		firsts["transcribe-"+r.id] = r.first
	}
	s.Close()
	sink.mu.Lock()
	defer sink.mu.Unlock()
	n := 0
	for _, req := range sink.got {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					id := kvString(sp.Attributes, "gen_ai.request.id")
					ttft := kvDouble(sp.Attributes, "gen_ai.latency.time_to_first_token")
					simFirst := time.Unix(0, int64(sp.StartTimeUnixNano)).Add(time.Duration(ttft * float64(time.Second)))
					client, ok := firsts[id]
					if !ok {
						t.Errorf("span of %q, no such stream", id)
						continue
					}
					n++
					if client.Before(simFirst) {
						t.Errorf("%s: the client's first text at %v, before the sim's own first token at %v", id, client, simFirst)
					}
				}
			}
		}
	}
	if n != 3 {
		t.Errorf("%d spans matched, want 3", n)
	}
}

// TestSGLangOmniBadFormatAfterTranscription: SGLang-Omni validates a
// non-streamed response_format inside assemble_speech_to_text_response,
// after the model ran (charliechenye/sglang-omni speech_to_text.py
// @3f4286eb): a bad format costs a whole transcription, then 400, and
// holds a running slot meanwhile. vLLM refuses it at once.
func TestSGLangOmniBadFormatAfterTranscription(t *testing.T) {
	corpus := testCorpus(t)
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, BaseLatency: time.Hour})
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan int, 1)
	go func() {
		status, _ := post(t, hold, sg.URL, corpus[0].Audio, "response_format", "diarized_json")
		got <- status
	}()
	// It runs (the pipeline tracks it) instead of being refused at once.
	waitFor(t, sg.URL, "sglang_omni_pipeline_tracked_requests", 1)
	select {
	case status := <-got:
		t.Fatalf("refused (%d) before its transcription", status)
	default:
	}
	_, vl := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus, BaseLatency: time.Hour})
	if status, _ := post(t, t.Context(), vl.URL, corpus[0].Audio, "response_format", "bogus"); status != 400 {
		t.Errorf("vllm bogus format: %d, want 400 at once", status)
	}
}

// TestSGLangOmniNoUsageAtZero: SGLang-Omni leaves usage out when its
// duration probe says 0 s (usage = ... if duration_s > 0 else None,
// exclude_none); vLLM answers seconds 0.
func TestSGLangOmniNoUsageAtZero(t *testing.T) {
	empty := makeWAV(t, 16000, 0, 0)
	for persona, want := range map[string]string{PersonaSGLangOmni: `{"text":`, PersonaVLLM: `"usage":{"type":"duration","seconds":0}`} {
		_, ts := newTestServer(t, Config{Persona: persona})
		status, body := post(t, t.Context(), ts.URL, empty)
		if status != 200 || !strings.Contains(string(body), want) || (persona == PersonaSGLangOmni && strings.Contains(string(body), "usage")) {
			t.Errorf("%s, 0 s of audio: %d %s", persona, status, body)
		}
	}
}

// TestSGLangOmniRuntimeMetrics: with SGLangRuntimeMetrics the persona
// renders the prometheus_client design: sglang_omni:asr_requests_total
// counts every request accepted and once more completed, rejected (shed),
// failed or cancelled; the completed one is observed in the latency
// histograms, a streamed one in the time to first text.
func TestSGLangOmniRuntimeMetrics(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, SGLangMetrics: SGLangRuntimeMetrics,
		MaxRunning: 1, MaxQueue: 1, BaseLatency: 30 * time.Millisecond})
	if s, _ := post(t, t.Context(), ts.URL, corpus[0].Audio); s != 200 {
		t.Fatalf("status %d", s)
	}
	if s, _ := post(t, t.Context(), ts.URL, corpus[1].Audio, "stream", "true"); s != 200 {
		t.Fatalf("stream status %d", s)
	}
	if s, _ := post(t, t.Context(), ts.URL, corpus[0].Audio, "response_format", "srt"); s != 400 {
		t.Fatalf("srt status %d", s)
	}
	fams := scrape(t, ts.URL)
	count := func(status string) float64 {
		for _, m := range fams["sglang_omni:asr_requests_total"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" && l.GetValue() == status {
					return m.GetCounter().GetValue()
				}
			}
		}
		return -1
	}
	for status, want := range map[string]float64{"accepted": 3, "completed": 2, "failed": 1, "rejected": 0, "cancelled": 0} {
		if got := count(status); got != want {
			t.Errorf("asr_requests_total{status=%q} = %v, want %v", status, got, want)
		}
	}
	if h := fams["sglang_omni:asr_request_latency_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 2 {
		t.Errorf("latency count %d, want 2", h.GetSampleCount())
	}
	if h := fams["sglang_omni:asr_text_ttft_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 1 {
		t.Errorf("ttft count %d, want 1 (the stream)", h.GetSampleCount())
	}
	if fams["sglang_omni_http_requests_total"] != nil {
		t.Error("the runtime design also rendered serve/metrics.py's families")
	}
}

// TestVLLMMaxQueuedTokens: vLLM's --max-num-queued-tokens (PR #49445)
// caps the prompt tokens of the requests still in prefill: a 1 s clip is
// 41 prompt tokens here (promptTokens), so with a cap of 60 a second
// request arriving while the first is in its prefill is shed with 503.
func TestVLLMMaxQueuedTokens(t *testing.T) {
	corpus := testCorpus(t)
	if _, err := New(Config{Persona: PersonaSGLangOmni, MaxQueuedTokens: 60}); err == nil {
		t.Error("sglang-omni took a token bound its engine has not")
	}
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, Corpus: corpus, MaxQueuedTokens: 60, BaseLatency: time.Hour})
	hold, cancel := context.WithCancel(t.Context())
	defer cancel()
	go post(t, hold, ts.URL, corpus[0].Audio)
	waitFor(t, ts.URL, "vllm:num_requests_running", 1)
	if status, _ := post(t, t.Context(), ts.URL, corpus[1].Audio); status != 503 {
		t.Errorf("41 + 41 prompt tokens in prefill of 60: %d, want 503", status)
	}
}

// TestSGLangOmniStreamFirstTextAfterPrefill: the sglang-omni persona's
// first streamed text too comes after the prefill share of the service
// time (its profiler's first token), never a word's even share of it:
// 200 ms of service, so no text before 50 ms after the request was sent.
func TestSGLangOmniStreamFirstTextAfterPrefill(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, BaseLatency: 200 * time.Millisecond})
	sent := time.Now()
	_, first, status := streamTimes(t, t.Context(), ts.URL, corpus[0].Audio, "x")
	if prefill := time.Duration(float64(200*time.Millisecond) * PrefillShare); status != 200 || first.Sub(sent) < prefill {
		t.Errorf("status %d, first text %v after sending, want at least the prefill share %v", status, first.Sub(sent), prefill)
	}
}
