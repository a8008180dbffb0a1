package fingerprint

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// Literal /metrics texts in the shapes the engines expose.
var metricsVectors = map[string]string{
	"vllm": `# HELP vllm:prefix_cache_queries_total Prefix cache queries.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen3-ASR-1.7B"} 4100.0
vllm:prefix_cache_queries_total{engine="1",model_name="Qwen/Qwen3-ASR-1.7B"} 900.0
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen3-ASR-1.7B"} 160.0
# TYPE vllm:mm_cache_queries_total counter
vllm:mm_cache_queries_total{model_name="Qwen/Qwen3-ASR-1.7B"} 100
# TYPE vllm:mm_cache_hits_total counter
vllm:mm_cache_hits_total{model_name="Qwen/Qwen3-ASR-1.7B"} 3
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="Qwen/Qwen3-ASR-1.7B"} 2
`,
	"vllm-old": `# TYPE vllm:gpu_prefix_cache_hits counter
vllm:gpu_prefix_cache_hits_total{model_name="m"} 7
vllm:gpu_prefix_cache_queries_total{model_name="m"} 70
`,
	"sglang": `# HELP sglang:cached_tokens_total Number of cached prompt tokens.
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="m"} 1234
sglang:prompt_tokens_total{model_name="m"} 99999
`,
	"none": "# TYPE up gauge\nup 1\n",
	// Plain SGLang before its first hit: no cached_tokens family yet.
	"sglang-no-hit-yet": "# TYPE sglang:num_requests_total counter\nsglang:num_requests_total{model_name=\"m\"} 3\n",
	// SGLang-Omni: no cache counter at all (serve/metrics.py @0641581e).
	"sglang-omni": "# TYPE sglang_omni_http_requests_total counter\nsglang_omni_http_requests_total{method=\"POST\",model_name=\"m\",route=\"/v1/audio/transcriptions\",status=\"200\"} 3.0\n",
	// Not counter values: JSON cannot hold NaN or Inf (steps.jsonl could
	// not be written) and a counter is never negative.
	"broken": "vllm:mm_cache_hits_total NaN\nvllm:prefix_cache_hits_total{a=\"1\"} +Inf\nsglang:cached_tokens_total -5\n" +
		"vllm:mm_cache_queries_total{a=\"1\"} 2\nvllm:mm_cache_queries_total{a=\"2\"} -3\n",
}

func TestCacheCounters(t *testing.T) {
	want := map[string]map[string]float64{
		"vllm":              {VLLMPrefixCacheQueries: 5000, VLLMPrefixCacheHits: 160, VLLMMMCacheQueries: 100, VLLMMMCacheHits: 3},
		"vllm-old":          {VLLMGPUPrefixHits: 7, VLLMGPUPrefixQueries: 70},
		"sglang":            {SGLangCachedTokens: 1234},
		"none":              {},
		"sglang-no-hit-yet": {SGLangCachedTokens: 0},
		"sglang-omni":       {},
		"broken":            {},
	}
	for name, text := range metricsVectors {
		fams, err := ParseMetrics([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := CacheCounters(fams)
		if len(got) != len(want[name]) {
			t.Errorf("%s: counters = %v, want %v", name, got, want[name])
		}
		for k, v := range want[name] {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got[k], v)
			}
		}
	}
}

func TestScrapeMetricsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error": "bad key", "api_key": "` + secret + `"}`))
			return
		}
		w.Write([]byte("# TYPE x counter\nx{a=\"1\" 5\n")) // broken label set
	}))
	defer srv.Close()
	ctx := context.Background()
	var me *MetricsError
	raw, _, err := ScrapeMetrics(ctx, srv.Client(), srv.URL, nil)
	if !errors.As(err, &me) || me.Status != 401 || strings.Contains(string(raw), secret) || !strings.Contains(string(raw), "bad key") {
		t.Errorf("401: raw %q err %v", raw, err)
	}
	raw, fams, err := ScrapeMetrics(ctx, srv.Client(), srv.URL, http.Header{"Authorization": {"Bearer " + secret}})
	if !errors.As(err, &me) || me.Status != 200 || fams != nil || len(raw) == 0 {
		t.Errorf("unparsable: raw %q err %v", raw, err)
	}
	srv.Close()
	if _, _, err := ScrapeMetrics(ctx, http.DefaultClient, srv.URL, nil); !errors.As(err, &me) || me.Status != 0 {
		t.Errorf("closed server: %v", err)
	}
}

func TestProbe(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[{"id":"m"}]}`))
	})
	mux.HandleFunc("GET /server_info", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"api_key": "` + secret + `", "max_num_seqs": 256, "hf": "hf_` + secret + `"}`))
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	mux.HandleFunc("POST /version", func(w http.ResponseWriter, r *http.Request) {}) // GET: 405
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := Capture(context.Background(), srv.Client(), "a", srv.URL+"/", http.Header{"Authorization": {"Bearer " + secret}}, "before")
	b := mustValidate(t, "probe", c)
	if strings.Contains(string(b), secret) {
		t.Errorf("capture holds the secret: %s", b)
	}
	if len(c.Probes) != 3 || c.Probes[0].Path != "/v1/models" || c.Probes[0].Status != 200 || c.Probes[0].Body != `{"data":[{"id":"m"}]}` ||
		c.Probes[0].ContentType != "application/json" || c.Probes[1].Path != "/server_info?config_format=json" || !strings.Contains(c.Probes[1].Body, `"max_num_seqs": 256`) ||
		c.Probes[2].Path != "/health" || c.Probes[2].Status != 503 {
		t.Errorf("probes = %+v", c.Probes)
	}
	srv.Close()
	c = Capture(context.Background(), http.DefaultClient, "a", srv.URL, nil, "after")
	mustValidate(t, "probe", c)
	if len(c.Probes) != len(ProbePaths) || c.Probes[0].Status != 0 || c.Probes[0].Error == "" {
		t.Errorf("unreachable server: %+v", c.Probes)
	}
}

func TestProbeBodyLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", schemas.ProbeBodyLimit+10)))
	}))
	defer srv.Close()
	ps := Probe(context.Background(), srv.Client(), srv.URL, nil)
	if len(ps) != len(ProbePaths) || !ps[0].Truncated || len(ps[0].Body) != schemas.ProbeBodyLimit {
		t.Errorf("truncated = %v, len %d", ps[0].Truncated, len(ps[0].Body))
	}
}

func FuzzParseMetrics(f *testing.F) {
	if len(metricsVectors) == 0 {
		f.Fatal("no seed vectors")
	}
	for _, v := range metricsVectors {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fams, err := ParseMetrics(raw)
		if err != nil {
			return
		}
		c := CacheCounters(fams)
		for k, v := range c {
			if !slices.Contains(engine.CacheCounterNames, k) || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("counter %q = %v", k, v)
			}
		}
		// Whatever is read can be written as a valid steps.jsonl line.
		b, err := json.Marshal(schemas.StepTelemetry{Target: "a", Concurrency: 1, Repeat: 1, CacheBefore: c, CacheAfter: c})
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.Validate("step_telemetry", b); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
	})
}

// TestProbeScrubsEchoedSecrets: a server that echoes what it was sent
// (a debug endpoint, an error message) puts the key where no pattern finds
// it; the exact values sent are scrubbed wherever they appear.
func TestProbeScrubsEchoedSecrets(t *testing.T) {
	const key = "Pl41nK3yW1thN0Pr3f1x" // no hf_/sk- prefix, no key= before it
	const cookie = "c00k13V4lu3Echo"
	echo := func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		xkey := r.Header.Get("X-Api-Key")
		ck := r.Header.Get("Cookie")
		w.Write([]byte("seen " + auth + "|" + strings.TrimPrefix(auth, "Bearer ") + "x|<" + xkey + ">|" + ck + "|x" + strings.TrimPrefix(ck, "sid=") + "\n"))
	}
	srv := httptest.NewServer(http.HandlerFunc(echo))
	defer srv.Close()
	h := http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {key + "2"}, "Cookie": {"sid=" + cookie}, "Accept": {"text/plain"}}
	c := Capture(context.Background(), srv.Client(), "a", srv.URL, h, "before")
	b := mustValidate(t, "probe", c)
	for _, s := range []string{key, cookie} {
		if strings.Contains(string(b), s) {
			t.Errorf("capture holds %q: %s", s, b)
		}
	}
	if len(c.Probes) == 0 || !strings.HasPrefix(c.Probes[0].Body, "seen ") {
		t.Errorf("probes = %+v", c.Probes)
	}
	raw, _, _ := ScrapeMetrics(context.Background(), srv.Client(), srv.URL, h)
	if strings.Contains(string(raw), key) || strings.Contains(string(raw), cookie) || !strings.HasPrefix(string(raw), "seen ") {
		t.Errorf("metrics holds a secret: %q", raw)
	}
}
