package engine

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// Names of the engines in the table, which are also the simulator's
// persona names and what each engine's /v1/models says in owned_by where
// it says its own name.
const (
	VLLM       = "vllm"
	VLLMOmni   = "vllm-omni"
	SGLangOmni = "sglang-omni"
	SGLang     = "sglang"
)

// Engine is one serving engine: every way benchseal's readers and the
// simulator tell engines apart is a field here. Each group carries the
// Source it was read from (repository file@commit, or "assumption: ..."
// / "not read: ..." where no source was read, so a reader sees it).
type Engine struct {
	Name    string // VLLM, VLLMOmni, SGLangOmni or SGLang
	Repo    string // the GitHub repository the facts were read in
	Version string // the release the facts describe
	Facts   []Fact // each behaviour in words, with its source
	// Tasks are what it does per task (tasks.go): the route, the stream
	// shape, and so the route filter of its per-route counters.
	Tasks []TaskRow

	Models        Models
	Transcription Transcription
	Stream        Stream
	Errors        Errors
	Health        Health
	Metrics       Metrics
	Knobs         Knobs
	Shedding      Shedding
}

// Fact is one way an engine behaves, with the engine source it was read
// from.
type Fact struct {
	What   string
	Source string
}

// Models is the engine's GET /v1/models.
type Models struct {
	OwnedBy string // each model's owned_by
	// MaxModelLen: entries carry max_model_len.
	MaxModelLen bool
	// CreatedZero: created is 0 rather than the start time.
	CreatedZero bool
	Source      string
}

// Transcription is the engine's POST /v1/audio/transcriptions.
type Transcription struct {
	Path string
	// TextAsJSON: response_format=text is answered with the JSON object
	// {"text","usage"} as application/json (else text/plain).
	TextAsJSON bool
	// VerboseJSON: verbose_json is served for Qwen3-ASR (else 400).
	VerboseJSON bool
	// MissingFileStatus is the status of a request without its file.
	MissingFileStatus int
	// IgnoresModel: the form's model is not checked; a request for a
	// model the server does not serve is answered by its own model, 200
	// (else 404, Errors.ModelNotFound). IgnoresModelSource says where
	// that was read.
	IgnoresModel       bool
	IgnoresModelSource string
	// NoUsageAtZero: usage is left out (not {"seconds":0}) when the
	// engine's duration probe says 0 s; a reader never requires it.
	NoUsageAtZero bool
	// Chunking is how one HTTP request becomes several engine requests.
	Chunking Chunking
	Source   string
}

// Chunking is how an engine splits one transcription into engine
// requests: long audio into chunks, and a request without a language
// into one more that detects it. Where its request counter and stage
// histograms count engine requests (Counted), one record may be counted
// several times: EngineRequests bounds how many.
type Chunking struct {
	// ClipS: audio longer than this is split (0: never split).
	ClipS float64
	// OverlapS: a chunk but the last ends somewhere in the last OverlapS
	// seconds before ClipS (vLLM looks for the quietest window there), so
	// chunks but the last are between ClipS-OverlapS and ClipS long.
	OverlapS float64
	// IDSuffix is the fmt format appended to the request's id for chunk
	// i (from 0): "-%d" (vLLM), "-chunk-%d" (SGLang-Omni).
	IDSuffix string
	// Streams: streamed requests are split too (else a stream is one
	// engine request, up to StreamLimitS; longer is refused, 400).
	Streams      bool
	StreamLimitS float64 // 0: no limit read
	// LangDetectSuffix names the extra engine request ("<id>-lang_detect")
	// a request without language adds on models that detect language
	// explicitly; "" when the engine has none. LangDetectModel is what
	// the served model's name contains (any case) on such models: the
	// architecture decides, and a run records only the name.
	LangDetectSuffix string
	LangDetectModel  string
	// Counted: the engine's request counter and stage histograms count
	// engine requests (vLLM's engine core), not HTTP requests
	// (SGLang-Omni's middleware).
	Counted bool
	Source  string
}

// DetectsLanguage says whether a request without language to model
// adds a language-detection engine request.
func (c Chunking) DetectsLanguage(model string, language bool) bool {
	return c.LangDetectSuffix != "" && !language && c.LangDetectModel != "" &&
		strings.Contains(strings.ToLower(model), c.LangDetectModel)
}

// EngineRequests bounds how many engine requests one HTTP request of
// audioS seconds becomes, streamed or not: at least ceil(audioS/ClipS)
// chunks, at most ceil(audioS/(ClipS-OverlapS)), and one more with
// langDetect (DetectsLanguage).
func (c Chunking) EngineRequests(audioS float64, stream, langDetect bool) (lo, hi int) {
	lo, hi = 1, 1
	if c.ClipS > 0 && audioS > c.ClipS && (c.Streams || !stream) {
		lo = int(math.Ceil(audioS / c.ClipS))
		hi = lo
		if c.OverlapS > 0 && c.OverlapS < c.ClipS {
			hi = int(math.Ceil(audioS / (c.ClipS - c.OverlapS)))
		}
	}
	if langDetect {
		lo++
		hi++
	}
	return lo, hi
}

// StreamEvents names the shape of a task's stream (a transcription's
// events, or a speech stream's: tts.go).
type StreamEvents string

const (
	// ChunkEvents: vLLM's transcription.chunk objects with choices, a last
	// choice with finish_reason, then data: [DONE].
	ChunkEvents StreamEvents = "transcription.chunk"
	// TranscriptEvents: OpenAI's transcript.text.delta events, then
	// transcript.text.done {text, usage}, then data: [DONE].
	TranscriptEvents StreamEvents = "transcript.text"
)

// Stream is the shape of a stream=true transcription.
type Stream struct {
	Events StreamEvents
	// ErrorEvent is the data: line a stream that fails midway sends.
	ErrorEvent ErrorShape
	// DoneAfterError: [DONE] follows the error event (else the stream
	// closes without it).
	DoneAfterError bool
	// IDHeader: the stream's response carries the server's id in
	// X-Request-Id.
	IDHeader bool
	// TakesRequestID: the request's X-Request-Id becomes the id, after
	// IDPrefix (else the server makes a uuid).
	TakesRequestID bool
	IDPrefix       string
	// HeadersAtFirstChunk: the response's status and headers wait for
	// the first chunk of text, so what fails before it (admission, a full
	// queue, an early model error) is a plain HTTP error in the engine's
	// error shape, not a 200 stream with an error event (which is then
	// only for failures after the first chunk). Else the headers go out
	// before generation. HeadersSource says where that was read.
	HeadersAtFirstChunk bool
	HeadersSource       string
	Source              string
}

// ErrorShape names a JSON error body.
type ErrorShape string

const (
	// OpenAIError: {"error":{"message","type","param","code"}}.
	OpenAIError ErrorShape = "openai"
	// OpenAIErrorObject: {"object":"error","message",...} (older vLLM).
	OpenAIErrorObject ErrorShape = "openai-object"
	// TypedError: {"type":"error","error":{"message"}} (a stream event).
	TypedError ErrorShape = "typed"
	// FastAPIDetail: {"detail": msg}, FastAPI's HTTPException.
	FastAPIDetail ErrorShape = "fastapi"
)

// Errors is how the engine answers a request it refuses.
type Errors struct {
	Shape ErrorShape // most errors
	// ModelNotFound is the 404 body for a model it does not serve: its
	// message (%s is the model, quoted as ModelQuote says), type, param
	// and code ("" code: the HTTP status, as a number).
	ModelNotFound ModelNotFound
	// AudioRefusals are messages of the 400s it refuses the audio itself
	// with (too large, too long, empty, undecodable): a corpus problem,
	// not a model failure. AudioRefusalsSource says where they were read.
	AudioRefusals       []string
	AudioRefusalsSource string
	Source              string
}

// AudioRefused reports whether a 400 answer is some engine's refusal of
// the audio itself (Errors.AudioRefusals), and which engine's.
func AudioRefused(status int, body string) (string, bool) {
	if status != 400 {
		return "", false
	}
	for _, e := range table {
		for _, m := range e.Errors.AudioRefusals {
			if strings.Contains(body, m) {
				return e.Name, true
			}
		}
	}
	return "", false
}

// ModelNotFound is an engine's answer to a request for a model it does
// not serve (always 404, OpenAIError shape).
type ModelNotFound struct {
	Format string // fmt format of the message, %s the quoted model
	Quote  Quote
	Type   string
	Param  string // "" for null
	Code   string // "" for the status as a number
}

// Quote is how a model name is quoted in a message.
type Quote string

const (
	Backticks Quote = "backticks" // `X`
	PyRepr    Quote = "repr"      // Python's repr: 'X'
)

// Health is the engine's GET /health when serving.
type Health struct {
	JSON   bool // {"status":"healthy",...}; else an empty 200
	Source string
}

// Metrics is the engine's /metrics: the families benchseal reads.
type Metrics struct {
	// Prefix every family of the engine starts with ("vllm:").
	Prefix string
	// DefaultOff: /metrics answers 404 unless metrics are enabled.
	DefaultOff bool
	// Labels every family of the engine carries besides model_name.
	Labels []string
	// RouteLabel is the label naming the HTTP route on its request
	// counter and stage families ("" when they count the engine's
	// requests whatever the route): a run reads them filtered by its
	// task's Route (RequestCountersFor).
	RouteLabel string
	// CacheCounters are its cache counters, in order of preference of
	// their hits; empty (with Source saying so) when it exposes none.
	CacheCounters []CacheCounter
	// Requests is its counter of served requests and their latency
	// histogram; nil (with Source saying so) when it has none.
	Requests *RequestCounter
	// OtherRequests are the request counters of other metric designs of
	// the engine, which a release may expose instead of Requests (which
	// one ships may be unknown: SGLang-Omni's sglang_omni_http_* and its
	// prometheus_client sglang_omni:asr_*); a reader takes the first
	// present in a scrape, after Requests.
	OtherRequests []*RequestCounter
	// UncountedCaches are caches the engine keeps that no /metrics
	// family counts: only the active cache probe measures them.
	UncountedCaches []UncountedCache
	// Stages are its histograms of where a request's time goes, which
	// internal/claims reads into claims' server block (StageFamilies).
	Stages []StageFamily
	Source string
}

// Stage names of StageFamily.Stage: the same strings as schemas' Stage*
// constants (this package imports nothing of benchseal;
// internal/claims's tests hold the two lists equal).
const (
	StageQueue     = "queue"
	StagePrefill   = "prefill"
	StageDecode    = "decode"
	StageInference = "inference"
	StageTTFT      = "ttft"
	StageE2E       = "e2e"
	StageHTTP      = "http"
)

// StageFamily is one /metrics histogram of an engine that times one
// stage of a request, summed over its label sets (those matching Match).
type StageFamily struct {
	Stage  string // a Stage* constant
	Family string // the histogram family, as exposed (without _bucket)
	// Match are label values a series must carry to count (others are
	// summed over): SGLang-Omni times every route it serves.
	Match map[string]string
	// Task, when set, is the only task the family times (it has no
	// route label): read for that task's runs, without the route filter.
	Task string
	// Observed says when the engine observes it (at a request's finish,
	// at its first token, ...) and which requests: what its count is.
	Observed string
	// Buckets are the engine's upper bounds (seconds; +Inf implied): the
	// resolution of any quantile read from it.
	Buckets []float64
	Source  string
}

// UncountedCache is a cache of an engine that no counter reports.
type UncountedCache struct {
	Name string
	// Key is what an entry is keyed by.
	Key string
	// VariantMisses: a benchseal variant (one sample changed by one LSB)
	// has another key, so a perturbed run never hits it; VariantWhy says
	// why (or why not).
	VariantMisses bool
	VariantWhy    string
	Size          string // its default bound
	Knobs         string // the launch settings that size or disable it
	Source        string
}

// CacheCounter is a /metrics counter of an engine's cache.
type CacheCounter struct {
	Name string // as exposed, with _total
	// Hit: its growth is cache hits (query counters are not).
	Hit bool
	// Counts is what one unit of it is: a whole input answered from a
	// cache (CountsInputs), or a token reused (CountsTokens). verify,
	// internal/claims and the report word its growth from it alone:
	// token reuse is never "answered from its cache".
	Counts CacheUnit
	// Source is where the engine says what it counts (file@commit).
	Source string
	// LazilyCreated: the family appears only at its first increment, so
	// its absence next to other families of the engine means 0.
	LazilyCreated bool
	Deprecated    string // since when it is gone, "" while current
}

// CacheUnit is what one unit of a cache counter counts.
type CacheUnit string

const (
	// CountsInputs: a hit is a whole input (a request's audio) found in
	// the cache, so a request whose input the server did not compute
	// again. Every request of a perturbed run sends a variant no request
	// sent before: such a hit there means the premise is false.
	CountsInputs CacheUnit = "inputs"
	// CountsTokens: a hit is a prompt token whose KV the server reused
	// (prefix caching). Distinct audio shares the prompt template's
	// prefix, so it grows honestly; it says nothing of whole requests.
	CountsTokens CacheUnit = "tokens"
)

// OKStatus is the StatusLabel value of a request served: StatusOK,
// else "200".
func (r RequestCounter) OKStatus() string {
	if r.StatusOK != "" {
		return r.StatusOK
	}
	return "200"
}

// AnswersFromCache says its growth counts requests answered from a cache
// (CountsInputs), not tokens reused.
func (c CacheCounter) AnswersFromCache() bool { return c.Counts == CountsInputs }

// Noun is its unit in words, plural ("cached inputs", "reused prompt
// tokens").
func (c CacheCounter) Noun() string {
	if c.Counts == CountsTokens {
		return "reused prompt tokens"
	}
	return "cached inputs"
}

// CacheCounterOf is the table's row of a cache counter by its exposed
// name; false when the table has none of that name.
func CacheCounterOf(name string) (CacheCounter, bool) {
	for _, e := range table {
		for _, c := range e.Metrics.CacheCounters {
			if c.Name == name {
				return c, true
			}
		}
	}
	return CacheCounter{}, false
}

// RequestCounter is an engine's /metrics counter of the requests it
// served, and the histogram of their end-to-end latency. verify compares
// their growth over a step (servers/<t>/metrics/c<C>-r<R>-{before,after}.prom)
// with the step's records. A counter absent from a scrape is "not
// observed", never a pass.
type RequestCounter struct {
	Engine string
	Name   string // counter family, as exposed (with _total)
	// Match are label values a sample must carry to count (others are
	// summed over): in the lists RequestCountersFor gives, the task's
	// route on an engine with a RouteLabel (SGLang-Omni counts every
	// route it serves); nil in the table's rows.
	Match map[string]string
	// StatusLabel is the label holding the answer's status ("" when the
	// counter counts requests the engine finished, whatever the answer):
	// an HTTP status, or a terminal status word. StatusOK is its value
	// for a request served ("" read as "200"); StatusShed, StatusFailed
	// and StatusCancelled, where the engine has them, its values for a
	// request it refused to protect its latency (benchseal's shed
	// class), one that failed (an HTTP error), and one its client left:
	// what verify holds the step's records to.
	StatusLabel     string
	StatusOK        string
	StatusShed      string
	StatusFailed    string
	StatusCancelled string
	// Task, when set, is the only task whose requests the counter (and
	// its Histogram) counts: its families carry no route, so they are
	// read without the engine's route filter (Metrics.RouteLabel), and
	// for that task's runs only.
	Task string
	// Histogram is the e2e latency histogram family observed for the same
	// requests ("" when none), with the same Match.
	Histogram string
	Counts    string // what one increment is, in the engine's terms
	Source    string
}

// Knobs is where the engine keeps its server knobs.
type Knobs struct {
	// Served are the GET paths where it describes itself (knobs in JSON
	// or, for /metrics, in labels); empty when it has none.
	Served []string
	// Keys name each knob benchseal compares as the engine does: its key
	// in a served JSON self-description and its launch flag.
	Keys []KnobKey
	// Expose says how a user lets a verifier see the knobs ("" when the
	// engine serves them by default), naming no benchseal flag: verify
	// quotes it, and only the CLI names its flags (a knob-not-observed
	// finding gets them from cmd/benchseal/verify.go).
	Expose string
	// Outcome are settings that change what a request is answered
	// (admission, errors, caches, limits) without being one of
	// KnobNames: read from a launch command or its environment where it
	// shows them, and recorded with what they change.
	Outcome []OutcomeKnob
	Source  string
}

// OutcomeKnob is one engine setting that changes outcomes.
type OutcomeKnob struct {
	// Name is an environment variable (VLLM_...) or a launch flag
	// ("--enable-server-load-tracking"); a flag ending in "." is a prefix
	// (SGLang-Omni's --stages.asr.factory_args.<name>).
	Name string
	Env  bool // an environment variable, not a flag
	// Effect says what it changes, in a reader's terms.
	Effect string
	Source string
}

// The server knobs a fair comparison holds equal, by the name benchseal
// gives each (engines name them differently).
const (
	KnobMaxRunning    = "max running requests"
	KnobGPUMemory     = "GPU memory fraction"
	KnobDType         = "dtype"
	KnobPrefixCaching = "prefix caching"
)

// KnobNames are the knobs benchseal compares, in order.
var KnobNames = []string{KnobMaxRunning, KnobGPUMemory, KnobDType, KnobPrefixCaching}

// KnobInitialCodecChunkFrames is a speech knob: the codec frames of a
// stream's first chunk, which decide its time to first audio (1851 ms to
// 233 ms in vllm-project/vllm-omni #938). Both engines take it per
// request (vLLM-Omni's OpenAICreateSpeechRequest and session config:
// "overrides the deploy config", vraiti/vllm-omni
// vllm_omni/entrypoints/openai/protocol/audio.py@6a28291f; SGLang-Omni's
// INITIAL_CODEC_CHUNK_FRAMES_PARAM, 1 by default for raw PCM streams), so
// a tts run compares it from its targets' request fields
// (SpeechKnobKeys), or a launch command that sets it in a deploy config.
const KnobInitialCodecChunkFrames = "initial codec chunk frames"

// SpeechKnobKeys are the speech knobs a tts run compares: the knob and
// its key, as a request member and in a deploy config.
var SpeechKnobKeys = []KnobKey{{Knob: KnobInitialCodecChunkFrames, Path: "initial_codec_chunk_frames"}}

// requestKnobs are the knobs a run of a task compares per request, by
// task (a task absent compares none).
var requestKnobs = map[string][]KnobKey{TaskTTS: SpeechKnobKeys}

// RequestKnobsFor are the per-request knobs a run of task compares
// (verify's fairness check): tts's SpeechKnobKeys, none for the others.
func RequestKnobsFor(task string) []KnobKey { return requestKnobs[task] }

// KnobKey is one engine's name for a knob: where it sits in a served JSON
// (a dotted path for vLLM's nested config) and its launch flag.
type KnobKey struct {
	Knob   string // one of KnobNames
	Path   string // "" when no self-description says it
	Flag   string // "" when no launch flag sets it
	Negate bool   // a disable_* switch: true means the knob is off
	Bare   bool   // the flag is a switch without a value
}

// Flags returns the launch flags of the engine's knob keys, in order.
func (k Knobs) Flags() []string {
	var out []string
	for _, key := range k.Keys {
		if key.Flag != "" && !slices.Contains(out, key.Flag) {
			out = append(out, key.Flag)
		}
	}
	return out
}

// KnobKeys returns every engine's knob keys, each once, by knob (in
// KnobNames order) and then in table order: the order a reader tries
// them in.
func KnobKeys() []KnobKey {
	var out []KnobKey
	for _, name := range KnobNames {
		for _, e := range table {
			for _, k := range e.Knobs.Keys {
				if k.Knob == name && !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// Shedding is what the engine does when its queue is full.
type Shedding struct {
	// Bounded: the queue is bounded by default (else only with Flag).
	Bounded bool
	Flag    string // the launch flag that bounds it, "" if none
	// InFlight: Flag's bound counts the requests in flight, running and
	// waiting together (vLLM's --max-num-queued-reqs), so a server with
	// that bound at N holds N requests at most; else it counts the
	// waiters alone and the server holds running + N.
	InFlight bool
	// TokensFlag is a second bound, on the prompt tokens of the requests
	// still in prefill ("" if none), refused the same way.
	TokensFlag string
	Status     int // the HTTP status it refuses with
	Shape      ErrorShape
	Message    string
	// Older are messages older releases refused the same overload with
	// (read as shedding too: a run against an older server is not a run
	// of server failures).
	Older []string
	// AfterUpload: it refuses after reading the upload, not at once.
	AfterUpload bool
	// DefaultRunning is how many requests a default launch runs at once
	// (0: not read, or chosen at start from the GPU).
	DefaultRunning int
	// DefaultQueued is how many more a default launch queues before it
	// refuses (0: unbounded, or not read).
	DefaultQueued int
	Source        string
}

// Shed reports whether an answer is some engine's refusal of an overload
// (its Shedding status, or a task row's, with its message or an older one
// in the body), and
// which engine's: shedding is the server protecting its latency, which a
// reader counts apart from a server failure. A 500 with another message
// is a failure; a row without a message matches nothing (its refusal was
// not read).
func Shed(status int, body string) (string, bool) {
	for _, e := range table {
		shs := []*Shedding{&e.Shedding}
		for i := range e.Tasks {
			if e.Tasks[i].Shedding != nil {
				shs = append(shs, e.Tasks[i].Shedding)
			}
		}
		for _, sh := range shs {
			if sh.Status != status {
				continue
			}
			for _, m := range append([]string{sh.Message}, sh.Older...) {
				if m != "" && strings.Contains(body, m) {
					return e.Name, true
				}
			}
		}
	}
	return "", false
}

// All returns every engine of the table, in its fixed order (vLLM,
// vLLM-Omni, SGLang-Omni, SGLang): the order in which the counter lists
// below prefer their entries.
func All() []*Engine { return slices.Clone(table) }

// ByName returns the engine called name, and false when the table has
// none: a caller never falls back to another engine.
func ByName(name string) (*Engine, bool) {
	for _, e := range table {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// ByOwnedBy returns the engine whose /v1/models owned_by is ownedBy.
func ByOwnedBy(ownedBy string) (*Engine, bool) {
	for _, e := range table {
		if e.Models.OwnedBy == ownedBy {
			return e, true
		}
	}
	return nil, false
}

// ByModelsAnswer is the engine a GET /v1/models answer names: the first
// entry whose owned_by is one of the table's; false when none is, or the
// body is no model list.
func ByModelsAnswer(body []byte) (*Engine, bool) {
	var list struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil, false
	}
	for _, d := range list.Data {
		if e, ok := ByOwnedBy(d.OwnedBy); ok {
			return e, true
		}
	}
	return nil, false
}

// Names returns the engines' names, in table order.
func Names() []string {
	out := make([]string, len(table))
	for i, e := range table {
		out[i] = e.Name
	}
	return out
}

// HowToExpose is every engine's Knobs.Expose, in table order, each once:
// what lets a verifier see a knob it could not.
func HowToExpose() []string {
	var out []string
	for _, e := range table {
		if e.Knobs.Expose != "" && !slices.Contains(out, e.Knobs.Expose) {
			out = append(out, e.Knobs.Expose)
		}
	}
	return out
}
