package engine

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mayBeEmpty are the fields a row may leave zero because the engine has
// no such thing (each still has its group's Source saying so). Booleans
// are facts either way. Any other zero field is a missing fact.
var mayBeEmpty = map[string]bool{
	"Stream.IDPrefix":                         true, // plain SGLang: not read
	"Errors.ModelNotFound.Param":              true, // vLLM: null
	"Errors.ModelNotFound.Code":               true, // vLLM: the status
	"Metrics.Labels":                          true, // SGLang-Omni, SGLang: model_name only
	"Metrics.CacheCounters":                   true, // SGLang-Omni exposes none
	"Metrics.CacheCounters.Deprecated":        true,
	"Metrics.Requests.Match":                  true,
	"Metrics.Requests.StatusLabel":            true,
	"Metrics.Stages.Match":                    true, // vLLM: every series counts
	"Metrics.Stages.Buckets":                  true, // plain SGLang: not read
	"Knobs.Served":                            true, // SGLang-Omni describes itself nowhere
	"Knobs.Keys.Path":                         true, // a flag no self-description mirrors
	"Knobs.Keys.Flag":                         true, // a served key no flag sets
	"Knobs.Expose":                            true, // SGLang serves /get_server_info by default
	"Errors.AudioRefusals":                    true, // plain SGLang: not read
	"Knobs.Outcome":                           true, // plain SGLang: not read
	"Shedding.Flag":                           true, // SGLang-Omni: bounded by its config
	"Shedding.Message":                        true, // plain SGLang: not read
	"Shedding.Older":                          true, // one message so far
	"Shedding.TokensFlag":                     true, // vLLM alone bounds prompt tokens
	"Metrics.Requests.StatusOK":               true, // "200" (HTTP) or none
	"Metrics.Requests.StatusShed":             true,
	"Metrics.Requests.StatusFailed":           true,
	"Metrics.Requests.StatusCancelled":        true,
	"Metrics.Requests.Task":                   true, // per route, or every task alike
	"Metrics.OtherRequests":                   true, // one design known
	"Metrics.OtherRequests.Match":             true,
	"Metrics.Stages.Task":                     true,
	"Shedding.DefaultRunning":                 true, // vLLM: chosen at start from the GPU (not read)
	"Metrics.UncountedCaches":                 true, // vLLM counts its caches
	"Transcription.Chunking.ClipS":            true, // plain SGLang: not read
	"Transcription.Chunking.OverlapS":         true, // SGLang-Omni: non-overlapping chunks
	"Transcription.Chunking.IDSuffix":         true, // plain SGLang: not read
	"Transcription.Chunking.StreamLimitS":     true, // vLLM splits streams too
	"Transcription.Chunking.LangDetectSuffix": true, // SGLang-Omni: none
	"Transcription.Chunking.LangDetectModel":  true,
	"Transcription.IgnoresModelSource":        false,
	"Metrics.RouteLabel":                      true,
	"Shedding.DefaultQueued":                  true, // unbounded by default, or not read
	"Tasks.Facts":                             true, // ASR's facts are the engine's (Engine.Facts)
	"Tasks.Unmetered":                         true, // metered, or no /metrics at all
	"Tasks.Shedding":                          true, // the engine's Shedding
	"Tasks.Shedding.Older":                    true,
	"Tasks.Shedding.TokensFlag":               true,
	"Tasks.Voices":                            true, // ASR rows list no voices
	"Tasks.Voices.Complete":                   true, // SGLang-Omni's list is not
}

// TestEveryEngineComplete walks every row of the table: a fact left zero
// (a new engine, or a new field some row forgot) fails here instead of
// falling back to another engine's behaviour.
func TestEveryEngineComplete(t *testing.T) {
	want := []string{VLLM, VLLMOmni, SGLangOmni, SGLang}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("engines %v, want %v", got, want)
	}
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			walk(t, "", reflect.ValueOf(*e))
			for _, f := range e.Facts {
				if f.What == "" || f.Source == "" {
					t.Errorf("fact %+v without its source", f)
				}
			}
			if got, ok := ByName(e.Name); !ok || got != e {
				t.Errorf("ByName(%q) does not find its row", e.Name)
			}
			for _, name := range KnobNames {
				if !slices.ContainsFunc(e.Knobs.Keys, func(k KnobKey) bool { return k.Knob == name }) {
					t.Errorf("no key for the knob %q", name)
				}
			}
			for _, k := range e.Knobs.Keys {
				if !slices.Contains(KnobNames, k.Knob) || k.Path == "" && k.Flag == "" {
					t.Errorf("knob key %+v names no known knob or nowhere to read it", k)
				}
			}
			if e.Metrics.Requests != nil && e.Metrics.Requests.Engine == "" {
				t.Error("request counter names no engine")
			}
		})
	}
	if _, ok := ByName("tgi"); ok {
		t.Error("ByName found an engine the table does not have")
	}
}

func walk(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			if !mayBeEmpty[path] {
				t.Errorf("%s is nil", path)
			}
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name := v.Type().Field(i).Name
			walk(t, strings.TrimPrefix(path+"."+name, "."), v.Field(i))
		}
	case reflect.Slice:
		if v.Len() == 0 && !mayBeEmpty[path] {
			t.Errorf("%s is empty", path)
		}
		for i := 0; i < v.Len(); i++ {
			walk(t, path, v.Index(i))
		}
	case reflect.Bool:
	default:
		if v.IsZero() && !mayBeEmpty[path] {
			t.Errorf("%s is not filled", path)
		}
	}
}

// TestCounterLists: the lists the recorder and claims read come from the
// rows, in table order, and keep the order benchseal preferred before
// the table (multimodal hits, prefix hits, the pre-0.9 names, SGLang).
func TestCounterLists(t *testing.T) {
	if want := []string{VLLMMMCacheHits, VLLMMMCacheQueries, VLLMPrefixCacheHits, VLLMPrefixCacheQueries,
		VLLMGPUPrefixHits, VLLMGPUPrefixQueries, SGLangCachedTokens}; !slices.Equal(CacheCounterNames, want) {
		t.Errorf("CacheCounterNames %v, want %v", CacheCounterNames, want)
	}
	if want := []string{VLLMMMCacheHits, VLLMPrefixCacheHits, VLLMGPUPrefixHits, SGLangCachedTokens}; !slices.Equal(CacheHitCounters, want) {
		t.Errorf("CacheHitCounters %v, want %v", CacheHitCounters, want)
	}
	// What each counts, from its row: only the multimodal pair counts
	// whole inputs; every prefix counter counts tokens.
	for name, want := range map[string]CacheUnit{VLLMMMCacheHits: CountsInputs, VLLMPrefixCacheHits: CountsTokens,
		VLLMGPUPrefixHits: CountsTokens, SGLangCachedTokens: CountsTokens} {
		c, ok := CacheCounterOf(name)
		if !ok || c.Counts != want || c.AnswersFromCache() != (want == CountsInputs) {
			t.Errorf("CacheCounterOf(%s) = %+v, %v; want it counting %s", name, c, ok, want)
		}
	}
	if _, ok := CacheCounterOf("vllm:unknown_total"); ok {
		t.Error("CacheCounterOf found a counter the table does not have")
	}
	var names []string
	for _, r := range RequestCounters {
		names = append(names, r.Engine+" "+r.Name)
	}
	if want := []string{"vllm vllm:request_success_total", "sglang-omni sglang_omni_http_requests_total", "sglang sglang:num_requests_total",
		"sglang-omni sglang_omni:asr_requests_total"}; !slices.Equal(names, want) {
		t.Errorf("RequestCounters %v, want %v", names, want)
	}
	for _, e := range All() {
		for _, c := range e.Metrics.CacheCounters {
			if !strings.HasPrefix(c.Name, e.Metrics.Prefix) || !strings.HasSuffix(c.Name, "_total") {
				t.Errorf("%s: cache counter %s is not an exposed %s*_total counter", e.Name, c.Name, e.Metrics.Prefix)
			}
		}
		if r := e.Metrics.Requests; r != nil && !strings.HasPrefix(r.Name, e.Metrics.Prefix) && r.Engine == e.Name {
			t.Errorf("%s: request counter %s lacks the prefix %s", e.Name, r.Name, e.Metrics.Prefix)
		}
	}
}

func TestByOwnedBy(t *testing.T) {
	for _, owned := range []string{"vllm", "sglang-omni", "sglang"} {
		e, ok := ByOwnedBy(owned)
		if !ok || e.Models.OwnedBy != owned {
			t.Errorf("ByOwnedBy(%q) = %v, %v", owned, e, ok)
		}
	}
	if _, ok := ByOwnedBy("openai"); ok {
		t.Error("ByOwnedBy found an owner no engine has")
	}
}

// TestStageFamiliesPreferOwn: on a vLLM-Omni server both its pipeline e2e
// and vLLM's relabelled one are present; the pipeline's must be read.
func TestStageFamiliesPreferOwn(t *testing.T) {
	idx := map[string]int{}
	for i, f := range StageFamilies {
		if _, dup := idx[f.Family]; dup {
			t.Errorf("%s listed twice", f.Family)
		}
		idx[f.Family] = i
	}
	omni, vllm := idx["vllm_omni:e2e_request_latency_s"], idx["vllm:e2e_request_latency_seconds"]
	if omni >= vllm {
		t.Errorf("vllm_omni:e2e_request_latency_s at %d, after vllm:e2e_request_latency_seconds at %d", omni, vllm)
	}
	for _, e := range All() {
		for _, f := range e.Metrics.Stages {
			if _, ok := idx[f.Family]; !ok {
				t.Errorf("%s: %s missing from StageFamilies", e.Name, f.Family)
			}
		}
	}
}

// TestShed: SGLang-Omni's overload on transcriptions is a 500 whose
// detail is QueueFullError's message (or 0.1.4's backlog message), on
// speech a 503 with the same message (its tts row's Shedding); a 500
// with another detail, or the message under another status, is not
// shedding.
func TestShed(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		engine string
	}{
		{500, `{"detail":"The request queue is full."}`, SGLangOmni},
		{500, `{"detail":"request-build backlog is full (backlog_limit=16)"}`, SGLangOmni},
		{503, `{"error":{"message":"The server is overloaded: too many requests queued.","type":"ServiceUnavailableError","param":null,"code":503}}`, VLLM},
		{500, `{"detail":"CUDA out of memory"}`, ""},
		{503, `{"error":{"message":"The request queue is full.","type":"server_error","param":null,"code":null}}`, SGLangOmni}, // its speech path (TaskRow.Shedding)
		{429, `{"detail":"The request queue is full."}`, ""},
		{400, `{"detail":"The request queue is full."}`, ""},
	} {
		got, ok := Shed(tc.status, tc.body)
		if got != tc.engine || ok != (tc.engine != "") {
			t.Errorf("Shed(%d, %s) = %q, %v; want %q", tc.status, tc.body, got, ok, tc.engine)
		}
	}
}

// TestEngineRequests: vLLM splits 90 s into 3 or 4 chunks of at most 30 s
// (each but the last ends in its last second: 29 to 30 s), streamed or
// not, and a request without language may add one language detection;
// SGLang-Omni splits only non-streamed audio, at 60 s, with no overlap.
func TestEngineRequests(t *testing.T) {
	v, _ := ByName(VLLM)
	sg, _ := ByName(SGLangOmni)
	vc, sc := v.Transcription.Chunking, sg.Transcription.Chunking
	for _, tc := range []struct {
		c                  Chunking
		s                  float64
		stream, langDetect bool
		lo, hi             int
	}{
		{vc, 20, false, false, 1, 1},
		{vc, 30, false, false, 1, 1},
		{vc, 90, false, false, 3, 4},
		{vc, 90, true, false, 3, 4},
		{vc, 90, false, true, 4, 5},
		{vc, 20, false, true, 2, 2},
		{sc, 90, false, false, 2, 2},
		{sc, 90, true, false, 1, 1},
	} {
		if lo, hi := tc.c.EngineRequests(tc.s, tc.stream, tc.langDetect); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s %g s stream=%v langDetect=%v: %d..%d, want %d..%d", tc.c.IDSuffix, tc.s, tc.stream, tc.langDetect, lo, hi, tc.lo, tc.hi)
		}
	}
	for _, tc := range []struct {
		model    string
		language bool
		want     bool
	}{{"openai/whisper-large-v3", false, true}, {"openai/Whisper-small", false, true}, {"openai/whisper-large-v3", true, false}, {"Qwen/Qwen3-ASR-1.7B", false, false}} {
		if got := vc.DetectsLanguage(tc.model, tc.language); got != tc.want {
			t.Errorf("vLLM DetectsLanguage(%q, %v) = %v", tc.model, tc.language, got)
		}
		if sc.DetectsLanguage(tc.model, tc.language) {
			t.Errorf("SGLang-Omni detects language for %q", tc.model)
		}
	}
}

// TestAudioRefused: a 400 refusing the audio itself is told apart from
// other 400s (a wrong format, a wrong field).
func TestAudioRefused(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		engine string
	}{
		{400, `{"error":{"message":"Maximum file size exceeded","type":"BadRequestError","param":"audio_filesize_mb","code":400}}`, VLLM},
		{400, `{"detail":"Uploaded audio file is empty"}`, SGLangOmni},
		{400, `{"detail":"stream=true does not support audio longer than 1200 seconds; use stream=false, which transcribes long audio in chunks"}`, SGLangOmni},
		{400, `{"error":{"message":"Currently do not support verbose_json for m"}}`, ""},
		{500, `{"detail":"Uploaded audio file is empty"}`, ""},
	} {
		got, ok := AudioRefused(tc.status, tc.body)
		if got != tc.engine || ok != (tc.engine != "") {
			t.Errorf("AudioRefused(%d, %s) = %q, %v; want %q", tc.status, tc.body, got, ok, tc.engine)
		}
	}
}

// TestByModelsAnswer: the first entry whose owned_by names an engine, none
// for an answer that names none or is no model list.
func TestByModelsAnswer(t *testing.T) {
	for body, want := range map[string]string{
		`{"data":[{"id":"x","owned_by":"someone"},{"id":"m","owned_by":"sglang-omni"}]}`: SGLangOmni,
		`{"data":[{"id":"m","owned_by":"vllm"}]}`:                                        VLLM,
		`{"data":[{"id":"m","owned_by":"someone"}]}`:                                     "",
		`not json`: "",
	} {
		got := ""
		if e, ok := ByModelsAnswer([]byte(body)); ok {
			got = e.Name
		}
		if got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}
