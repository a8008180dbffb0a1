package sim

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
)

// Limits on what a request may carry.
const (
	maxFileBytes  = 512 << 20
	maxFieldBytes = 64 << 10
)

// request is a parsed transcription request.
type request struct {
	file           []byte
	model          string
	language       string
	responseFormat string
	stream         bool
	includeUsage   bool // vLLM's stream_include_usage
	// headersSent: a stream's 200 and headers are out (startStream).
	headersSent bool
	// rawFormat is response_format as sent (responseFormat is it
	// normalized), for the engine's error text.
	rawFormat string
}

// errMissingFile is a form without its file part: vLLM answers 400,
// SGLang-Omni (FastAPI's File(...)) 422.
var errMissingFile = errors.New(`missing form field "file"`)

// parseRequest reads the multipart form without buffering it twice: the
// file part is read once into memory, the other fields are small.
func parseRequest(r *http.Request) (*request, error) {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return nil, errors.New("expected a multipart/form-data body")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, fmt.Errorf("malformed multipart body: %v", err)
	}
	req := &request{responseFormat: "json"}
	haveFile := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("malformed multipart body: %v", err)
		}
		name := part.FormName()
		if name == "file" {
			if haveFile {
				return nil, errors.New(`more than one form field "file"`)
			}
			// The body's length bounds the file's: one allocation, not a
			// doubling series.
			buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), maxFileBytes)+bytes.MinRead))
			if _, err := buf.ReadFrom(io.LimitReader(part, maxFileBytes+1)); err != nil {
				return nil, fmt.Errorf("reading file: %v", err)
			}
			req.file = buf.Bytes()
			if len(req.file) > maxFileBytes {
				return nil, fmt.Errorf("file exceeds %d bytes", maxFileBytes)
			}
			haveFile = true
			continue
		}
		v, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if err != nil {
			return nil, fmt.Errorf("reading field %q: %v", name, err)
		}
		if len(v) > maxFieldBytes {
			return nil, fmt.Errorf("field %q exceeds %d bytes", name, maxFieldBytes)
		}
		val := string(v)
		switch name {
		case "model":
			req.model = val
		case "language":
			req.language = val
		case "response_format":
			req.responseFormat = val
		case "stream":
			req.stream, err = strconv.ParseBool(val)
			if err != nil {
				return nil, fmt.Errorf("stream: %q is not a boolean", val)
			}
		case "stream_include_usage":
			req.includeUsage, _ = strconv.ParseBool(val)
		case "temperature":
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return nil, fmt.Errorf("temperature: %q is not a number", val)
			}
		}
	}
	if !haveFile {
		return nil, errMissingFile
	}
	// checkFormat says what the engine does with the format; the
	// answer's shape reads it normalized (SGLang-Omni:
	// response_format.strip().lower(); vLLM's pydantic takes it as sent).
	req.rawFormat = req.responseFormat
	req.responseFormat = strings.ToLower(strings.TrimSpace(req.responseFormat))
	if req.responseFormat == "" {
		req.responseFormat = "json"
	}
	return req, nil
}

// badForm answers a form parseRequest refused, as the persona does.
func (s *Server) badForm(w http.ResponseWriter, err error) {
	if errors.Is(err, errMissingFile) && s.p().eng.Transcription.MissingFileStatus == http.StatusUnprocessableEntity {
		s.metrics.done(false, timing{}, 0)
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{
			"type": "missing", "loc": []string{"body", "file"}, "msg": "Field required", "input": nil}}})
		return
	}
	s.fail(w, http.StatusBadRequest, err.Error())
}

// checkFormat refuses what the persona's Qwen3-ASR refuses, at once, or
// with after, once the request has been transcribed (its admission and
// service time spent, then 400). vLLM, at once: any verbose_json
// (supports_segment_timestamp=False, speech_to_text.py @024e0772),
// diarized_json (supports_diarized_transcription=False), srt, vtt and any
// other value (not in its allow-list: "Currently only support
// response_format: ..."; base/serving.py @055e47c2). SGLang-Omni: a
// stream in any format but json or text at once; not streamed, text and
// json and verbose_json are served and anything else is refused after
// the transcription, inside assemble_speech_to_text_response (the model
// has run): srt and vtt because Qwen3-ASR has no segment timestamps
// (speech_to_text.py @f9f24e5a), any other value "Unsupported
// response_format for /v1/audio/transcriptions: 'x'" (its repr of the
// value sent; charliechenye/sglang-omni speech_to_text.py@3f4286eb).
func (s *Server) checkFormat(req *request) (msg string, after bool) {
	p := s.p()
	vllm := p.eng.Transcription.TextAsJSON
	f := req.responseFormat
	if vllm && req.rawFormat != "" {
		f = req.rawFormat // taken as sent
	}
	subtitle := f == "srt" || f == "vtt"
	known := f == "json" || f == "text" || f == "verbose_json"
	switch {
	case vllm && f == "diarized_json":
		return fmt.Sprintf("Currently do not support diarized_json for %s", s.cfg.Model), false
	case vllm && !known:
		return "Currently only support response_format: `text`, `json`, `verbose_json` or `diarized_json`", false
	case f == "verbose_json" && !p.eng.Transcription.VerboseJSON:
		return fmt.Sprintf("Currently do not support verbose_json for %s", s.cfg.Model), false
	case !vllm && req.stream && f != "json" && f != "text":
		return fmt.Sprintf("stream=true supports only response_format 'json' or 'text', got '%s'", req.rawFormat), false
	case !vllm && subtitle:
		return fmt.Sprintf("response_format '%s' requires a segment-timestamp capability", f), true
	case !vllm && !known:
		return "Unsupported response_format for /v1/audio/transcriptions: " + pyRepr(req.rawFormat), true
	}
	return "", false
}

// requestID is the id the server gives a request: vLLM takes the
// request's X-Request-Id (transcribe-<id>), SGLang-Omni makes its own,
// transcription-<uuid4> (serve/transcriptions.py @0ac0a86e
// `f"transcription-{uuid4()}"`): random, never repeated across the
// server's runs, not derived from the seed.
func (s *Server) requestID(r *http.Request) string {
	p := s.p()
	if h := r.Header.Get("X-Request-Id"); p.eng.Stream.TakesRequestID && h != "" {
		return p.eng.Stream.IDPrefix + h
	}
	return p.eng.Stream.IDPrefix + uuid4()
}

// uuid4 is a random RFC 4122 version 4 UUID, as Python's uuid.uuid4().
func uuid4() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// answer is what the server will say about one request's audio.
type answer struct {
	text     string
	seconds  float64
	tokens   int64 // prompt tokens, what the cache counters move by
	cacheKey digest
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	n := s.seq.Add(1)
	req, err := parseRequest(r)
	if err != nil {
		s.badForm(w, err)
		return
	}
	// SGLang-Omni no longer checks the model (form.model or default_model):
	// a request for another one is served by its own.
	if req.model != "" && req.model != s.cfg.Model && !s.p().eng.Transcription.IgnoresModel {
		s.metrics.done(false, timing{}, 0)
		s.writeModelNotFound(w, req.model)
		return
	}
	badFormat, formatAfter := s.checkFormat(req)
	if badFormat != "" && !formatAfter {
		s.fail(w, http.StatusBadRequest, badFormat)
		return
	}
	if len(req.file) == 0 && !s.p().eng.Transcription.TextAsJSON {
		// SGLang-Omni's read_and_validate_speech_to_text_audio.
		s.fail(w, http.StatusBadRequest, "Uploaded audio file is empty")
		return
	}
	info, err := parseWAV(req.file)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if c := s.p().eng.Transcription.Chunking; req.stream && !c.Streams && c.StreamLimitS > 0 && info.Seconds() > c.StreamLimitS {
		// SGLang-Omni cannot split a stream (transcriptions.py).
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("stream=true does not support audio longer than %s seconds; use stream=false, which transcribes long audio in chunks",
			strconv.FormatFloat(c.StreamLimitS, 'g', -1, 64)))
		return
	}
	a := answer{seconds: info.Seconds(), cacheKey: digestOf(req.file)}
	a.tokens = promptTokens(a.seconds)
	id := s.requestID(r)
	ids := s.engineIDs(id, req, a.seconds)

	// The cache is consulted before admission: a hit skips the queue and
	// the model, which is exactly why unperturbed runs flatter an engine.
	if s.cfg.Cache {
		s.cacheMu.RLock()
		text, hit := s.cache[a.cacheKey]
		s.cacheMu.RUnlock()
		s.metrics.cacheQuery(a.tokens, hit)
		if hit && badFormat != "" {
			s.fail(w, http.StatusBadRequest, badFormat) // nothing to run: refused at once
			return
		}
		if hit {
			a.text = text
			s.respond(w, r, req, a, id, ids, start, n, start, 0)
			return
		}
	} else {
		s.metrics.cacheQuery(a.tokens, false)
	}

	// Service starts when the request arrived, or when it left the queue:
	// the time spent reading and hashing the body is part of it, as it is
	// in a real engine, so latency is what was configured.
	// Where the engine answers 200 once it has accepted a request
	// (vLLM: "we return a success status before we actually start
	// generating"), a stream's headers leave at acceptance, before it
	// waits in the queue; SGLang-Omni's wait for its first event.
	var accepted func()
	if req.stream && !s.p().eng.Stream.HeadersAtFirstChunk {
		accepted = func() { s.startStream(w, req, id) }
	}
	tk, begin, ok := s.admit(w, r, start, ask{slots: len(ids), tokens: int(a.tokens)}, accepted)
	if !ok {
		return
	}
	defer tk.release()

	a.text = s.recognise(req.file, a.cacheKey)
	service := s.cfg.BaseLatency + time.Duration(a.seconds*float64(s.cfg.PerAudioSecond))
	// The prompt's tokens leave the engine's prefill count at the first
	// token (vLLM's --max-num-queued-tokens counts requests in prefill).
	prefillEnd := time.AfterFunc(time.Until(begin.Add(time.Duration(float64(service)*PrefillShare))), tk.prefilled)
	defer prefillEnd.Stop()
	if s.cfg.FailRate > 0 && s.draw(n) < s.cfg.FailRate {
		if sleepUntil(r, begin.Add(service)) {
			if req.headersSent {
				// The 200 is out: the failure is the stream's error event.
				s.metrics.done(false, timing{}, 0)
				s.streamError(w, r)
				return
			}
			s.fail(w, http.StatusInternalServerError, "Internal server error (simulated failure).")
		}
		return
	}
	if s.cfg.Cache {
		s.cacheMu.Lock()
		s.cache[a.cacheKey] = a.text
		s.cacheMu.Unlock()
	}
	if badFormat != "" {
		// Refused once transcribed: the whole service time is spent.
		if sleepUntil(r, begin.Add(service)) {
			s.fail(w, http.StatusBadRequest, badFormat)
		}
		return
	}
	s.respond(w, r, req, a, id, ids, start, n, begin, service)
}

// recognise returns the transcript for audio: the corpus reference (with
// WordErrorRate applied) or, for unknown audio, a pseudo-sentence.
func (s *Server) recognise(audio []byte, d digest) string {
	var text string
	var key [32]byte
	if i := s.index.lookup(audio, d); i >= 0 {
		text, key = s.cfg.Corpus[i].Text, s.index.keys[i]
	} else {
		text = unknownText(s.cfg.Seed, len(audio))
		binary.LittleEndian.PutUint64(key[:], uint64(len(audio)))
	}
	return withErrors(text, s.cfg.WordErrorRate, s.cfg.Seed, key)
}

// admit waits for a running slot (the engine's admission queue): ok with
// the time service begins (start, or when the request left the queue),
// the caller then releasing the slot; a shed request answered as the
// engine sheds, or a client that left while queued counted, !ok.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, start time.Time, q ask, accepted func()) (*ticket, time.Time, bool) {
	tk, queued, err := s.admission.admit(r.Context(), q, accepted)
	if err != nil {
		if errors.Is(err, errShed) {
			markShed(r)
			s.fail(w, s.p().eng.Shedding.Status, s.p().eng.Shedding.Message)
		} else {
			s.metrics.done(false, timing{}, 0) // the client left while queued
		}
		return nil, time.Time{}, false
	}
	if queued {
		return tk, time.Now(), true
	}
	return tk, start, true
}

func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	s.metrics.done(false, timing{}, 0)
	s.writeError(w, status, msg)
}

// sleepUntil waits until t, or until the client leaves; it reports whether
// t was reached.
func sleepUntil(r *http.Request, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return r.Context().Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// respond serves the answer after service time, in the requested shape as
// the persona's engine writes it.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req *request, a answer, id string, ids []string, start time.Time, n uint64, begin time.Time, service time.Duration) {
	defer s.observeRequest(ids, start, begin, service)()
	// Where the engine counts engine requests (vLLM), each chunk and the
	// language detection is counted and observed, with the request's
	// times (its chunks run side by side).
	counted := 1
	if s.p().eng.Transcription.Chunking.Counted {
		counted = len(ids)
	}
	text := a.text
	if s.cfg.RawPrefix {
		text = RawPrefix + text
	}
	completion := int64(len(strings.Fields(a.text))) + 1
	// Where the time went (doc.go, "Server-side stages"): the queue is
	// what the request waited for admission, the service time splits
	// into prefill and decode.
	prefill := time.Duration(float64(service) * PrefillShare)
	took := func() timing {
		return timing{queue: begin.Sub(start).Seconds(), prefill: prefill.Seconds(), decode: (service - prefill).Seconds(),
			e2e: time.Since(start).Seconds()}
	}
	if req.stream {
		// A good stream counts itself before its [DONE] (finished): the
		// client ends the request on [DONE] and may scrape /metrics before
		// this handler returns, and a counter one short then reads as a
		// record the server never served (check 7 FAILed run_server_events
		// so under load). vLLM counts a request when it finishes, before
		// its last chunk is sent.
		finished := false
		s.stream(w, r, req, a, text, id, n, begin, service, func() {
			finished = true
			markOK(r, took(), a.seconds, true)
			for range counted {
				s.metrics.done(true, took(), completion)
			}
		})
		if !finished {
			s.metrics.done(false, timing{}, 0)
		}
		return
	}
	if !sleepUntil(r, begin.Add(service)) {
		s.metrics.done(false, timing{}, 0)
		return
	}
	markOK(r, took(), a.seconds, false)
	for range counted {
		s.metrics.done(true, took(), completion)
	}
	usage := s.usage(a.seconds)
	switch req.responseFormat {
	case "text":
		if s.p().eng.Transcription.TextAsJSON {
			// vLLM: every non-streamed answer is a JSONResponse of
			// TranscriptionResponse, whatever response_format asked.
			writeJSON(w, http.StatusOK, transcription{text, usage})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, text)
	case "verbose_json":
		lang := req.language
		if lang == "" {
			lang = "en"
		}
		type segment struct {
			ID               int     `json:"id"`
			Seek             int     `json:"seek"`
			Start            float64 `json:"start"`
			End              float64 `json:"end"`
			Text             string  `json:"text"`
			Tokens           []int   `json:"tokens"`
			Temperature      float64 `json:"temperature"`
			AvgLogprob       float64 `json:"avg_logprob"`
			CompressionRatio float64 `json:"compression_ratio"`
			NoSpeechProb     float64 `json:"no_speech_prob"`
		}
		writeJSON(w, http.StatusOK, struct {
			Task     string         `json:"task"`
			Language string         `json:"language"`
			Duration float64        `json:"duration"`
			Text     string         `json:"text"`
			Segments []segment      `json:"segments"`
			Usage    *usageDuration `json:"usage,omitempty"`
		}{"transcribe", lang, a.seconds, text, []segment{{End: a.seconds, Text: text, Tokens: []int{}, CompressionRatio: 1}}, usage})
	default:
		writeJSON(w, http.StatusOK, transcription{text, usage})
	}
}

// engineIDs are the engine requests one transcription becomes (the
// engine row's Chunking): id alone, or id+"-<i>" (vLLM) / id+"-chunk-<i>"
// (SGLang-Omni, not streamed) for each chunk of audio longer than ClipS,
// and vLLM's id+"-lang_detect" first when the request names no language
// and the served model detects it (a Whisper, by its name). The sim cuts where vLLM's search for a quiet window
// starts on even audio: every chunk but the last is ClipS-OverlapS long.
func (s *Server) engineIDs(id string, req *request, seconds float64) []string {
	c := s.p().eng.Transcription.Chunking
	var ids []string
	if c.DetectsLanguage(s.cfg.Model, req.language != "") {
		ids = append(ids, id+c.LangDetectSuffix)
	}
	clip := s.chunkSeconds()
	if clip <= 0 || seconds <= clip || (req.stream && !c.Streams) {
		return append(ids, id)
	}
	step := clip - c.OverlapS
	if step <= 0 {
		step = clip // a clip no longer than the overlap: cut at the clip
	}
	n := 1 + int(math.Ceil((seconds-clip)/step))
	for i := range n {
		ids = append(ids, id+fmt.Sprintf(c.IDSuffix, i))
	}
	return ids
}

// chunkSeconds is the clip length the persona splits at: ChunkSeconds, or
// the engine row's ClipS.
func (s *Server) chunkSeconds() float64 {
	if s.cfg.ChunkSeconds != 0 {
		return s.cfg.ChunkSeconds
	}
	return s.p().eng.Transcription.Chunking.ClipS
}

// usage is the usage of an answer of seconds of audio; SGLang-Omni
// leaves it out when its duration probe says 0 (exclude_none).
func (s *Server) usage(seconds float64) *usageDuration {
	if seconds <= 0 && s.p().eng.Transcription.NoUsageAtZero {
		return nil
	}
	return &usageDuration{Type: "duration", Seconds: int64(math.Ceil(seconds))}
}

// usageDuration is the usage both engines put in a transcription:
// {"type":"duration","seconds":ceil(audio seconds)}.
type usageDuration struct {
	Type    string `json:"type"`
	Seconds int64  `json:"seconds"`
}

type transcription struct {
	Text  string         `json:"text"`
	Usage *usageDuration `json:"usage,omitempty"`
}

// streamFault is what a stream does midway: nothing, fail with the
// persona's error event, or end cut short.
type streamFault int

const (
	faultNone streamFault = iota
	faultError
	faultCut
)

func (s *Server) streamFault(n uint64) streamFault {
	x := s.draw(n ^ 0x73747265616d) // its own draw, apart from FailRate's
	switch {
	case x < s.cfg.StreamFailRate:
		return faultError
	case x < s.cfg.StreamFailRate+s.cfg.StreamCutRate:
		return faultCut
	}
	return faultNone
}

// stream answers stream=true as the persona's engine does, one event per
// word, the service time spread evenly so that the last word arrives when
// a plain answer would. vLLM: transcription.chunk chunks with the request
// id, a last chunk with finish_reason "stop", a usage chunk (choices [])
// only with stream_include_usage, then [DONE]; a failure midway is
// data: {"error":{...}} then [DONE]. SGLang-Omni: X-Request-Id header,
// transcript.text.delta events, transcript.text.done with the text and
// usage, then [DONE]; a failure midway is data: {"type":"error",...} and
// the end of the stream. It calls finished once a good stream has sent
// its final event, before [DONE], and reports whether the whole stream
// was written as a success.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req *request, a answer, text, id string, n uint64, begin time.Time, service time.Duration, finished func()) bool {
	p := s.p()
	events := p.eng.Stream.Events
	words := strings.SplitAfter(text, " ")
	if text == "" {
		words = nil
	}
	fault := s.streamFault(n)
	created := time.Now().Unix()
	type delta struct {
		Content string `json:"content"`
	}
	type choice struct {
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason,omitempty"`
		StopReason   *string `json:"stop_reason,omitempty"`
	}
	type usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
	type chunk struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   *usage   `json:"usage,omitempty"`
	}
	type event struct {
		Type  string         `json:"type"`
		Delta string         `json:"delta,omitempty"`
		Text  *string        `json:"text,omitempty"`
		Usage *usageDuration `json:"usage,omitempty"`
		Error any            `json:"error,omitempty"`
	}
	flusher, _ := w.(http.Flusher)
	if !p.eng.Stream.HeadersAtFirstChunk {
		// vLLM answers 200 before it generates (at acceptance, when the
		// request went through admission: startStream is idempotent);
		// SGLang-Omni's headers leave with its first event (the first
		// write).
		s.startStream(w, req, id)
	} else {
		s.streamHeaders(w, id)
	}
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	done := func() bool {
		countNow(r) // before the last event, as the engine's middleware
		_, err := io.WriteString(w, "data: [DONE]\n\n")
		if flusher != nil {
			flusher.Flush()
		}
		return err == nil
	}
	// A fault strikes after half the words (at least one when there are
	// any), so that some text has arrived.
	faultAt := (len(words) + 1) / 2
	// The first word comes after the prefill share of the service time
	// (the encoder and the prompt's forward, PrefillShare, as the sim's
	// own stage histograms and spans book it), the others spread over
	// the decode: a client's first text is never before the sim's own
	// first token.
	prefill := time.Duration(float64(service) * PrefillShare)
	for i, word := range words {
		if fault != faultNone && i == faultAt {
			break
		}
		at := begin.Add(prefill + (service-prefill)*time.Duration(i+1)/time.Duration(len(words)))
		if !sleepUntil(r, at) {
			return false
		}
		var ok bool
		if events == engine.TranscriptEvents {
			ok = send(event{Type: "transcript.text.delta", Delta: word})
		} else {
			ok = send(chunk{id, "transcription.chunk", created, s.cfg.Model, []choice{{Delta: delta{word}}}, nil})
		}
		if !ok {
			return false
		}
	}
	switch fault {
	case faultCut:
		if len(words) == 0 && !sleepUntil(r, begin.Add(service)) {
			return false
		}
		if flusher != nil {
			flusher.Flush() // headers out, then the stream just ends
		}
		return false
	case faultError:
		if len(words) == 0 && !sleepUntil(r, begin.Add(service)) {
			return false
		}
		s.streamError(w, r)
		return false
	}
	if len(words) == 0 && !sleepUntil(r, begin.Add(service)) {
		return false
	}
	usageDur := s.usage(a.seconds)
	if events == engine.TranscriptEvents {
		if !send(event{Type: "transcript.text.done", Text: &text, Usage: usageDur}) {
			return false
		}
		finished()
		return done()
	}
	stop := "stop"
	if !send(chunk{id, "transcription.chunk", created, s.cfg.Model, []choice{{Delta: delta{""}, FinishReason: &stop}}, nil}) {
		return false
	}
	if req.includeUsage {
		completion := int64(len(words)) + 1
		if !send(chunk{id, "transcription.chunk", created, s.cfg.Model, []choice{}, &usage{a.tokens, completion, a.tokens + completion}}) {
			return false
		}
	}
	finished()
	return done()
}

// streamHeaders sets a stream's headers (not yet sent).
func (s *Server) streamHeaders(w http.ResponseWriter, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if s.p().eng.Stream.IDHeader {
		w.Header().Set("X-Request-Id", id)
	}
}

// startStream sends a stream's 200 and headers now, once.
func (s *Server) startStream(w http.ResponseWriter, req *request, id string) {
	if req.headersSent {
		return
	}
	req.headersSent = true
	s.streamHeaders(w, id)
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// streamError sends the persona's mid-stream error event: vLLM's
// data: {"error":{...}} then [DONE]; SGLang-Omni's
// data: {"type":"error","error":{"message"}} and the end of the stream.
func (s *Server) streamError(w http.ResponseWriter, r *http.Request) {
	p := s.p()
	const msg = "Internal server error (simulated failure mid-stream)."
	var v any = map[string]any{"error": openAIError{Message: msg, Type: "InternalServerError", Code: http.StatusInternalServerError}}
	if p.eng.Stream.ErrorEvent == engine.TypedError {
		v = struct {
			Type  string            `json:"type"`
			Error map[string]string `json:"error"`
		}{"error", map[string]string{"message": msg}}
	}
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if p.eng.Stream.DoneAfterError { // vLLM; SGLang-Omni closes without [DONE]
		countNow(r)
		io.WriteString(w, "data: [DONE]\n\n")
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
