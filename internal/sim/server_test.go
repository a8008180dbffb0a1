package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const refA = "the cat sat on the mat and looked at the door"
const refB = "a completely different sentence"

func testCorpus(t testing.TB) []Clip {
	return []Clip{
		{Audio: makeWAV(t, 16000, 1.0, 0), Text: refA},
		{Audio: makeWAV(t, 16000, 1.0, 1), Text: refB}, // same length as A
	}
}

func newTestServer(t testing.TB, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

// form builds a transcription request body; a nil audio leaves out "file".
func form(t testing.TB, audio []byte, fields ...string) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	if audio != nil {
		fw, err := mw.CreateFormFile("file", "clip.wav")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(audio)
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

func post(t testing.TB, ctx context.Context, url string, audio []byte, fields ...string) (int, []byte) {
	t.Helper()
	body, ct := form(t, audio, fields...)
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func textOf(t testing.TB, b []byte) string {
	t.Helper()
	var v struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Text == nil {
		t.Fatalf("not a {\"text\"} answer: %s (%v)", b, err)
	}
	return *v.Text
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// flip returns a copy of b with one byte changed, as a benchseal variant.
func flip(b []byte, at int) []byte {
	c := append([]byte(nil), b...)
	c[at] ^= 1
	return c
}

func TestRecognisesPerturbedClips(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Corpus: corpus})
	ctx := context.Background()
	a := corpus[0].Audio
	for _, at := range []int{60, len(a) / 2, len(a) - 1} {
		status, body := post(t, ctx, ts.URL, flip(a, at))
		if status != 200 || textOf(t, body) != refA {
			t.Errorf("variant at byte %d: %d %s, want %q", at, status, body, refA)
		}
	}
	if _, body := post(t, ctx, ts.URL, corpus[1].Audio); textOf(t, body) != refB {
		t.Errorf("clip B answered %s", body)
	}
	// Two bytes changed is no variant: the answer is the unknown-audio text.
	two := flip(flip(a, 100), len(a)-3)
	_, body := post(t, ctx, ts.URL, two)
	if got := textOf(t, body); got == refA || got == refB || got == "" {
		t.Errorf("two-byte change answered %q, want the unknown-audio text", got)
	}
	// Unknown audio of the same length gets the same pseudo-sentence.
	_, body2 := post(t, ctx, ts.URL, flip(two, 200))
	if textOf(t, body) != textOf(t, body2) {
		t.Errorf("unknown audio answers differ: %s vs %s", body, body2)
	}
}

// TestResponseFormats: SGLang-Omni answers text as text/plain, serves
// verbose_json with the request's language, and refuses srt for Qwen3-ASR.
func TestResponseFormats(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Corpus: corpus, Persona: PersonaSGLangOmni})
	ctx := context.Background()
	status, body := post(t, ctx, ts.URL, corpus[0].Audio, "model", DefaultModel, "response_format", "text", "temperature", "0")
	if status != 200 || string(body) != refA {
		t.Errorf("text: %d %q", status, body)
	}
	status, body = post(t, ctx, ts.URL, corpus[0].Audio, "response_format", "verbose_json", "language", "en")
	var v struct {
		Task     string  `json:"task"`
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		Text     string  `json:"text"`
		Segments []struct {
			End  float64 `json:"end"`
			Text string  `json:"text"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(body, &v); err != nil || status != 200 {
		t.Fatalf("verbose_json: %d %s %v", status, body, err)
	}
	if v.Task != "transcribe" || v.Language != "en" || v.Duration != 1.0 || v.Text != refA || len(v.Segments) != 1 || v.Segments[0].End != 1.0 {
		t.Errorf("verbose_json = %+v", v)
	}
	status, body = post(t, ctx, ts.URL, corpus[0].Audio, "response_format", "srt")
	if status != 400 {
		t.Errorf("srt: %d %s, want 400", status, body)
	}
}

func TestRawPrefix(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Corpus: corpus, RawPrefix: true})
	_, body := post(t, context.Background(), ts.URL, corpus[0].Audio)
	if got := textOf(t, body); got != "language English<asr_text>"+refA {
		t.Errorf("raw prefix answer %q", got)
	}
}

func TestPersonaErrors(t *testing.T) {
	corpus := testCorpus(t)
	for _, persona := range []string{PersonaVLLM, PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			_, ts := newTestServer(t, Config{Persona: persona, Corpus: corpus})
			ctx := context.Background()
			cases := []struct {
				name   string
				audio  []byte
				fields []string
				status int
				typ    string
			}{
				{"not a wav", []byte("ID3 this is an mp3, honest"), nil, 400, "BadRequestError"},
				{"bad stream", corpus[0].Audio, []string{"stream", "maybe"}, 400, "BadRequestError"},
			}
			if persona == PersonaVLLM {
				cases = append(cases, struct {
					name   string
					audio  []byte
					fields []string
					status int
					typ    string
				}{"missing file", nil, []string{"model", DefaultModel}, 400, "BadRequestError"})
			}
			for _, c := range cases {
				status, body := post(t, ctx, ts.URL, c.audio, c.fields...)
				if status != c.status {
					t.Errorf("%s: status %d, want %d", c.name, status, c.status)
				}
				checkErrorShape(t, persona, body, c.status, c.typ)
			}
		})
	}
}

// checkErrorShape decodes the persona's error JSON strictly.
func checkErrorShape(t *testing.T, persona string, body []byte, status int, typ string) {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("error body is not JSON: %s", body)
	}
	inner := raw
	if persona == PersonaVLLM {
		if len(raw) != 1 || raw["error"] == nil {
			t.Fatalf("vllm error is not {\"error\":{...}}: %s", body)
		}
		json.Unmarshal(raw["error"], &inner)
	} else {
		// SGLang-Omni: FastAPI's HTTPException, {"detail": "..."}.
		var detail string
		if len(raw) != 1 || json.Unmarshal(raw["detail"], &detail) != nil || len(detail) < 3 {
			t.Fatalf("sglang-omni error is not {\"detail\": \"...\"}: %s", body)
		}
		return
	}
	if string(inner["param"]) != "null" || string(inner["code"]) != fmt.Sprint(status) ||
		string(inner["type"]) != `"`+typ+`"` || len(inner["message"]) < 3 {
		t.Errorf("error fields wrong: %s", body)
	}
}

// TestSelfDescription: each persona serves its engine's endpoints and
// nothing more: vLLM /version and (dev mode only) /server_info; SGLang-Omni
// none of /version, /server_info, /get_server_info, /get_model_info.
func TestSelfDescription(t *testing.T) {
	for _, persona := range []string{PersonaVLLM, PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			_, ts := newTestServer(t, Config{Persona: persona, Model: "m/x", MaxRunning: 7, Cache: true})
			status, body := get(t, ts.URL+"/v1/models")
			var models struct {
				Object string `json:"object"`
				Data   []struct {
					ID, Object, Root string
					Owned            string `json:"owned_by"`
				} `json:"data"`
			}
			json.Unmarshal(body, &models)
			want := map[string]string{PersonaVLLM: "vllm", PersonaSGLangOmni: "sglang-omni"}[persona]
			if status != 200 || models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "m/x" ||
				models.Data[0].Object != "model" || models.Data[0].Owned != want || models.Data[0].Root != "m/x" {
				t.Errorf("/v1/models: %d %s", status, body)
			}
			absent := []string{"/server_info", "/get_server_info", "/get_model_info"}
			if persona == PersonaVLLM {
				status, body := get(t, ts.URL+"/version")
				var v map[string]any
				if status != 200 || json.Unmarshal(body, &v) != nil || v["version"] != VLLMVersion {
					t.Errorf("/version: %d %s", status, body)
				}
			} else {
				absent = append(absent, "/version")
			}
			for _, p := range absent {
				if status, body := get(t, ts.URL+p); status != 404 || string(body) != `{"detail":"Not Found"}` {
					t.Errorf("%s: %d %s, want FastAPI's 404", p, status, body)
				}
			}
		})
	}
}

func TestReadyDelay(t *testing.T) {
	_, ts := newTestServer(t, Config{ReadyDelay: time.Hour})
	for _, p := range []string{"/health", "/v1/models"} {
		if status, _ := get(t, ts.URL+p); status != 503 {
			t.Errorf("%s before ready: %d, want 503", p, status)
		}
	}
	if status, _ := get(t, ts.URL+"/metrics"); status != 200 {
		t.Errorf("/metrics before ready: %d, want 200", status)
	}
}

// scrape parses /metrics back with the Prometheus text parser.
func scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

func value(t testing.TB, fams map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.Metric) == 0 {
		t.Fatalf("metric %s missing", name)
	}
	var sum float64
	for _, m := range f.Metric {
		if !slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == "model_name" }) {
			t.Errorf("%s lacks the model_name label", name)
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		default:
			t.Fatalf("metric %s has no value", name)
		}
	}
	return sum
}

func TestCacheCounters(t *testing.T) {
	corpus := testCorpus(t)
	a := corpus[0].Audio
	tokens := float64(promptTokens(1.0))
	ctx := context.Background()
	for _, cache := range []bool{true, false} {
		t.Run(fmt.Sprintf("vllm cache=%v", cache), func(t *testing.T) {
			_, ts := newTestServer(t, Config{Corpus: corpus, Cache: cache, BaseLatency: 20 * time.Millisecond})
			for range 3 {
				post(t, ctx, ts.URL, a)
			}
			f := scrape(t, ts.URL)
			hits := map[bool]float64{true: 2, false: 0}[cache]
			if q, h := value(t, f, "vllm:mm_cache_queries_total"), value(t, f, "vllm:mm_cache_hits_total"); q != 3 || h != hits {
				t.Errorf("mm cache queries/hits = %v/%v, want 3/%v", q, h, hits)
			}
			if q, h := value(t, f, "vllm:prefix_cache_queries_total"), value(t, f, "vllm:prefix_cache_hits_total"); q != 3*tokens || h != hits*tokens {
				t.Errorf("prefix cache queries/hits = %v/%v, want %v/%v", q, h, 3*tokens, hits*tokens)
			}
			if n := value(t, f, "vllm:request_success_total"); n != 3 {
				t.Errorf("request_success_total = %v", n)
			}
			if n := value(t, f, "vllm:e2e_request_latency_seconds"); n != 3 {
				t.Errorf("latency histogram count = %v", n)
			}
			for _, g := range []string{"vllm:num_requests_running", "vllm:num_requests_waiting"} {
				if v := value(t, f, g); v != 0 {
					t.Errorf("%s = %v when idle", g, v)
				}
			}
		})
	}
	t.Run("vllm perturbed", func(t *testing.T) {
		_, ts := newTestServer(t, Config{Corpus: corpus, Cache: true})
		for i := range 5 {
			_, body := post(t, ctx, ts.URL, flip(a, 100+i))
			if textOf(t, body) != refA {
				t.Errorf("variant %d answered %s", i, body)
			}
		}
		f := scrape(t, ts.URL)
		if h := value(t, f, "vllm:mm_cache_hits_total") + value(t, f, "vllm:prefix_cache_hits_total"); h != 0 {
			t.Errorf("perturbed requests hit the cache %v times", h)
		}
	})
	// SGLang-Omni caches by audio content but exposes no cache counter.
	t.Run("sglang-omni", func(t *testing.T) {
		_, ts := newTestServer(t, Config{Persona: PersonaSGLangOmni, Corpus: corpus, Cache: true})
		post(t, ctx, ts.URL, a)
		post(t, ctx, ts.URL, a)
		post(t, ctx, ts.URL, flip(a, 99))
		f := scrape(t, ts.URL)
		for name := range f {
			if strings.Contains(name, "cache") || strings.HasPrefix(name, "sglang:") || strings.HasPrefix(name, "vllm:") {
				t.Errorf("sglang-omni exposes %s", name)
			}
		}
		if n := value(t, f, "sglang_omni_http_requests_total"); n != 3 {
			t.Errorf("http_requests_total = %v", n)
		}
	})
}

// TestCacheHitSkipsQueue: with every slot taken by slow requests, a cached
// body is still answered at once.
func TestCacheHitSkipsQueue(t *testing.T) {
	corpus := testCorpus(t)
	a := corpus[0].Audio
	_, ts := newTestServer(t, Config{Corpus: corpus, Cache: true, MaxRunning: 1, BaseLatency: 300 * time.Millisecond})
	ctx := context.Background()
	post(t, ctx, ts.URL, a) // fills the cache
	hold, cancel := context.WithCancel(ctx)
	defer cancel()
	go post(t, hold, ts.URL, corpus[1].Audio)
	go post(t, hold, ts.URL, flip(corpus[1].Audio, 77))
	waitFor(t, ts.URL, "vllm:num_requests_waiting", 1)
	start := time.Now()
	_, body := post(t, ctx, ts.URL, a)
	if textOf(t, body) != refA {
		t.Errorf("cached answer %s", body)
	}
	// The queued request alone holds for >= 300 ms more; a hit must not wait.
	if d := time.Since(start); d >= 300*time.Millisecond {
		t.Errorf("cache hit took %v behind a full queue", d)
	}
}

// waitFor polls /metrics until the gauge reaches want.
func waitFor(t testing.TB, url, gauge string, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if value(t, scrape(t, url), gauge) == want {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("%s never reached %v", gauge, want)
}

func TestShedding(t *testing.T) {
	corpus := testCorpus(t)
	for persona, shed := range map[string]int{PersonaVLLM: 503, PersonaSGLangOmni: 500} {
		t.Run(persona, func(t *testing.T) {
			_, ts := newTestServer(t, Config{Persona: persona, Corpus: corpus, MaxRunning: 2, MaxQueue: 3, BaseLatency: time.Hour})
			running, waiting := "vllm:num_requests_running", "vllm:num_requests_waiting"
			if persona == PersonaSGLangOmni {
				// The coordinator's tracked requests: running + waiting.
				running, waiting = "sglang_omni_pipeline_tracked_requests", "sglang_omni_pipeline_tracked_requests"
			}
			hold, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			// vLLM's --max-num-queued-reqs caps the requests in flight
			// (3: 2 running, 1 waiting); SGLang-Omni's
			// --max_queued_requests the waiters (2 running + 3).
			held := 3
			if persona == PersonaSGLangOmni {
				held = 5
			}
			for i := range held {
				wg.Go(func() { post(t, hold, ts.URL, flip(corpus[0].Audio, 100+i)) })
			}
			if persona == PersonaSGLangOmni {
				waitFor(t, ts.URL, running, 5)
			} else {
				waitFor(t, ts.URL, running, 2)
				waitFor(t, ts.URL, waiting, 1)
			}
			for i := range 4 {
				status, body := post(t, context.Background(), ts.URL, flip(corpus[0].Audio, 200+i))
				if status != shed {
					t.Errorf("request beyond the queue: %d, want %d", status, shed)
				}
				checkErrorShape(t, persona, body, shed, errorType(shed))
			}
			cancel()
			wg.Wait()
			waitFor(t, ts.URL, running, 0)
			waitFor(t, ts.URL, waiting, 0)
		})
	}
}

func TestFIFOAdmission(t *testing.T) {
	a := &admission{max: 1}
	first, _, err := a.admit(context.Background(), ask{slots: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	tickets := make(chan *ticket, 3)
	for i := range 3 {
		go func() {
			tk, _, err := a.admit(context.Background(), ask{slots: 1}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			tickets <- tk
			order <- i
		}()
		for { // enqueue one at a time so that arrival order is known
			if _, w := a.state(); w == i+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	first.release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("admitted %d, want %d (FIFO)", got, want)
		}
		(<-tickets).release()
	}
	if r, w := a.state(); r != 0 || w != 0 || a.slots != 0 {
		t.Errorf("after all released: running %d waiting %d slots %d", r, w, a.slots)
	}
}

func TestAdmissionCancelWhileQueued(t *testing.T) {
	a := &admission{max: 1}
	first, _, _ := a.admit(context.Background(), ask{slots: 1}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, _, err := a.admit(ctx, ask{slots: 1}, nil); done <- err }()
	for {
		if _, w := a.state(); w == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("admit returned nil after cancel")
	}
	first.release()
	if r, w := a.state(); r != 0 || w != 0 || a.slots != 0 {
		t.Errorf("running %d waiting %d slots %d, want 0 0 0", r, w, a.slots)
	}
}

// TestAdmissionBounds: vLLM's --max-num-queued-reqs counts the requests
// in flight (running + waiting, n slots for a request of n engine
// requests), SGLang-Omni's --max_queued_requests the waiters alone, and
// vLLM's --max-num-queued-tokens the prompt tokens still in prefill.
func TestAdmissionBounds(t *testing.T) {
	hold, cancel := context.WithCancel(context.Background())
	defer cancel()
	// in admits q and waits until it runs or waits; the ticket comes
	// back for one that runs.
	in := func(a *admission, q ask) *ticket {
		t.Helper()
		r0, w0 := a.state()
		got := make(chan *ticket, 1)
		go func() {
			tk, _, err := a.admit(hold, q, nil)
			if err != nil && hold.Err() == nil {
				t.Errorf("admit: %v", err)
			}
			got <- tk
		}()
		for {
			if r, w := a.state(); r+w > r0+w0 {
				if r > r0 {
					return <-got
				}
				return nil
			}
			time.Sleep(time.Millisecond)
		}
	}
	shed := func(a *admission, q ask) bool {
		ctx, stop := context.WithCancel(context.Background())
		stop() // a request that would wait returns at once
		_, _, err := a.admit(ctx, q, nil)
		return err == errShed
	}
	// vLLM: 2 running, cap 3 in flight: one waits, the next is shed.
	v := &admission{max: 2, maxQueue: 3, inFlight: true}
	for range 3 {
		in(v, ask{slots: 1})
	}
	if !shed(v, ask{slots: 1}) {
		t.Error("vLLM, 4th in flight of 3: not shed")
	}
	// A request of 2 engine requests takes 2 slots.
	v2 := &admission{max: 8, maxQueue: 3, inFlight: true}
	in(v2, ask{slots: 2})
	if !shed(v2, ask{slots: 2}) {
		t.Error("vLLM, 2 + 2 slots of 3: not shed")
	}
	if in(v2, ask{slots: 1}) == nil {
		t.Error("vLLM, 2 + 1 slots of 3: not admitted")
	}
	// SGLang-Omni: 2 running + 3 waiting, the 6th shed.
	sg := &admission{max: 2, maxQueue: 3}
	for range 5 {
		in(sg, ask{slots: 1})
	}
	if !shed(sg, ask{slots: 1}) {
		t.Error("SGLang-Omni, 6th of 2 + 3: not shed")
	}
	// Tokens: 100 in prefill of 150: a 60-token prompt is shed, and
	// admitted once the first has its first token.
	k := &admission{maxTokens: 150}
	first := in(k, ask{slots: 1, tokens: 100})
	if !shed(k, ask{slots: 1, tokens: 60}) {
		t.Error("tokens 100 + 60 of 150: not shed")
	}
	first.prefilled()
	if in(k, ask{slots: 1, tokens: 60}) == nil {
		t.Error("tokens 0 + 60 of 150 after the first token: not admitted")
	}
	first.release() // prefilled already: the count stays 60
	if k.prefill != 60 {
		t.Errorf("prefill tokens %d, want 60", k.prefill)
	}
}

func TestFailRate(t *testing.T) {
	corpus := testCorpus(t)
	ctx := context.Background()
	_, ts := newTestServer(t, Config{Corpus: corpus, FailRate: 1})
	status, body := post(t, ctx, ts.URL, corpus[0].Audio)
	if status != 500 {
		t.Errorf("fail rate 1: %d", status)
	}
	checkErrorShape(t, PersonaVLLM, body, 500, "InternalServerError")

	count := func(seed uint64) int {
		_, ts := newTestServer(t, Config{Corpus: corpus, FailRate: 0.3, Seed: seed})
		failed := 0
		for i := range 200 {
			if status, _ := post(t, ctx, ts.URL, flip(corpus[0].Audio, 100+i)); status == 500 {
				failed++
			}
		}
		return failed
	}
	n := count(7)
	if n < 40 || n > 80 {
		t.Errorf("fail rate 0.3 failed %d of 200", n)
	}
	if m := count(7); m != n {
		t.Errorf("same seed failed %d then %d: not reproducible", n, m)
	}
}

func TestWordErrorRate(t *testing.T) {
	corpus := testCorpus(t)
	ctx := context.Background()
	_, ts := newTestServer(t, Config{Corpus: corpus, WordErrorRate: 0.2, Seed: 3})
	_, b1 := post(t, ctx, ts.URL, flip(corpus[0].Audio, 100))
	_, b2 := post(t, ctx, ts.URL, flip(corpus[0].Audio, 5000))
	got := strings.Fields(textOf(t, b1))
	ref := strings.Fields(refA)
	if len(got) != len(ref) {
		t.Fatalf("answer %q has %d words, reference %d", got, len(got), len(ref))
	}
	diff := 0
	for i := range ref {
		if got[i] != ref[i] {
			diff++
		}
	}
	if want := 2; diff != want { // round(0.2 * 11)
		t.Errorf("%d words substituted, want %d: %q", diff, want, got)
	}
	if textOf(t, b1) != textOf(t, b2) {
		t.Errorf("two variants of one clip answered differently: %s / %s", b1, b2)
	}
}

func TestStreaming(t *testing.T) {
	corpus := testCorpus(t)
	for _, raw := range []bool{false, true} {
		_, ts := newTestServer(t, Config{Corpus: corpus, BaseLatency: 30 * time.Millisecond, RawPrefix: raw})
		body, ct := form(t, flip(corpus[0].Audio, 300), "stream", "true", "model", DefaultModel, "stream_include_usage", "true")
		resp, err := http.Post(ts.URL+"/v1/audio/transcriptions", ct, body)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
			t.Errorf("content type %q", got)
		}
		var text strings.Builder
		var events, finals, usages int
		done := false
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				t.Fatalf("not an SSE data line: %q", line)
			}
			if done {
				t.Fatalf("event after [DONE]: %q", line)
			}
			if data == "[DONE]" {
				done = true
				continue
			}
			var c struct {
				ID      string `json:"id"`
				Object  string `json:"object"`
				Model   string `json:"model"`
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
				Usage *struct {
					PromptTokens int `json:"prompt_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(data), &c); err != nil {
				t.Fatalf("chunk %q: %v", data, err)
			}
			if !strings.HasPrefix(c.ID, "transcribe-") || c.Object != "transcription.chunk" || c.Model != DefaultModel {
				t.Errorf("chunk shape: %s", data)
			}
			if len(c.Choices) == 0 { // the usage chunk, after the final one
				if finals != 1 || c.Usage == nil || c.Usage.PromptTokens == 0 {
					t.Errorf("usage chunk: %s", data)
				}
				usages++
				continue
			}
			if len(c.Choices) != 1 || c.Usage != nil {
				t.Errorf("chunk shape: %s", data)
			}
			events++
			text.WriteString(c.Choices[0].Delta.Content)
			if c.Choices[0].FinishReason != nil {
				finals++
				if *c.Choices[0].FinishReason != "stop" {
					t.Errorf("final chunk: %s", data)
				}
			}
		}
		resp.Body.Close()
		want := refA
		if raw {
			want = RawPrefix + refA
		}
		if !done || finals != 1 || usages != 1 || strings.TrimSpace(text.String()) != want || events != len(strings.Fields(want))+1 {
			t.Errorf("raw=%v: stream gave %q in %d events (%d final, done %v)", raw, text.String(), events, finals, done)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"persona":   {Persona: "triton"},
		"fail rate": {FailRate: 1.5},
		"wer":       {WordErrorRate: -0.1},
		"running":   {MaxRunning: -1},
		"latency":   {BaseLatency: -time.Second},
		"corpus":    {Corpus: []Clip{{Audio: []byte("nope")}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		} else if _, ok := err.(*ConfigError); !ok {
			t.Errorf("%s: error %T, want *ConfigError", name, err)
		}
	}
}

// TestDefaultModel: without Config.Model the vllm-omni persona serves
// Qwen3-TTS, as vLLM-Omni does (issue 36: it served the ASR model), and
// answers speech in it; vllm and sglang-omni serve Qwen3-ASR.
func TestDefaultModel(t *testing.T) {
	for persona, want := range map[string]string{PersonaVLLM: DefaultModel, PersonaSGLangOmni: DefaultModel, PersonaVLLMOmni: DefaultTTSModel} {
		if got := DefaultModelOf(persona); got != want {
			t.Errorf("DefaultModelOf(%s) = %s, want %s", persona, got, want)
		}
		_, ts := newTestServer(t, Config{Persona: persona})
		_, body := get(t, ts.URL+"/v1/models")
		var models struct {
			Data []struct{ ID string } `json:"data"`
		}
		if json.Unmarshal(body, &models) != nil || len(models.Data) != 1 || models.Data[0].ID != want {
			t.Errorf("%s: /v1/models %s, want the one model %s", persona, body, want)
		}
	}
	if DefaultTTSModel == DefaultModel || !strings.Contains(DefaultTTSModel, "TTS") {
		t.Errorf("DefaultTTSModel %q", DefaultTTSModel)
	}
}
