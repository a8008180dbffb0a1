package sim

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// SpeechRate is the simulated voice's sample rate: Qwen3-TTS's 24 kHz
// (vllm-project/vllm-omni docs/serving/speech_api.md@d6240742).
const SpeechRate = 24000

// SpeechSecondsPerChar is how long the simulated voice speaks per input
// character (about 14 characters a second, an English speaking rate).
const SpeechSecondsPerChar = 0.07

// speechRequest is the part of vLLM-Omni's OpenAICreateSpeechRequest the
// simulator reads (vllm_omni/entrypoints/openai/protocol/audio.py@d6240742);
// other members are accepted and ignored, as pydantic drops unknown ones.
type speechRequest struct {
	Model          string `json:"model"`
	Input          string `json:"input"`
	Voice          string `json:"voice"`
	ResponseFormat string `json:"response_format"`
	Stream         bool   `json:"stream"`
	StreamFormat   string `json:"stream_format"`
	RefAudio       string `json:"ref_audio"`
	RefText        string `json:"ref_text"`
}

// Speech synthesises the simulator's voice for text: a tone whose pitch
// follows the text's SHA-256 and whose duration is SpeechSecondsPerChar
// per character, at SpeechRate, 16-bit mono, half scale, with 10 ms
// fades: deterministic, so that the same text always sounds the same. It
// is not speech; benchseal's tts rule sees a voiced signal.
func Speech(text string) []int16 {
	n := int(float64(utf8.RuneCountInString(text)) * SpeechSecondsPerChar * SpeechRate)
	h := sha256.Sum256([]byte(text))
	f := 150 + float64(binary.LittleEndian.Uint16(h[:])%200) // 150-350 Hz, a voice's range
	out := make([]int16, n)
	fade := SpeechRate / 100
	for i := range out {
		g := 0.5
		if i < fade {
			g *= float64(i) / float64(fade)
		} else if n-i < fade {
			g *= float64(n-i) / float64(fade)
		}
		out[i] = int16(g * 32767 * math.Sin(2*math.Pi*f*float64(i)/SpeechRate))
	}
	return out
}

// speechWAV is a 44-byte header 16-bit mono WAV of s at SpeechRate;
// streamed, its sizes are 0xFFFFFFFF as vLLM-Omni's streamed header
// (serving_speech.py _create_wav_header@d6240742).
func speechWAV(pcm []byte, streamed bool) []byte {
	b := make([]byte, 44, 44+len(pcm))
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(pcm)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], SpeechRate)
	binary.LittleEndian.PutUint32(b[28:], SpeechRate*2)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(pcm)))
	if streamed {
		binary.LittleEndian.PutUint32(b[4:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(b[40:], 0xFFFFFFFF)
	}
	return append(b, pcm...)
}

// parseRef reads a ref_audio: it must start with http(s)://, data: or
// file:// (vLLM-Omni, tts_adapters/qwen3_tts.py@d6240742; SGLang-Omni
// also takes a path, which the simulator does not read); the simulator
// decodes only data:audio/...;base64, WAVs, with refRange 1-30 s long
// (serving_speech.py _resolve_ref_audio@d6240742).
func parseRef(ref string, refRange bool) error {
	s, err := refSeconds(ref)
	if err != nil {
		return err
	}
	// vLLM-Omni's words (serving_speech.py _resolve_ref_audio@d6240742).
	switch {
	case refRange && s < 1:
		return fmt.Errorf("Reference audio too short (%.1fs). At least 1s of clear speech is required.", s)
	case refRange && s > 30:
		return fmt.Errorf("Reference audio too long (%.1fs). Maximum 30s supported — use a shorter clip.", s)
	}
	return nil
}

// refSeconds is a data: reference's seconds.
func refSeconds(ref string) (float64, error) {
	switch {
	case strings.HasPrefix(ref, "http://"), strings.HasPrefix(ref, "https://"), strings.HasPrefix(ref, "file://"):
		return 0, errors.New("the simulator decodes only data: reference audio")
	case !strings.HasPrefix(ref, "data:"):
		return 0, errors.New("ref_audio must be a URL (http(s)://), a base64 data URL (data:...), or a file URI (file://)")
	}
	_, b64, ok := strings.Cut(ref, ";base64,")
	if !ok {
		return 0, errors.New("ref_audio data URL is not base64")
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return 0, fmt.Errorf("ref_audio: %v", err)
	}
	info, err := parseWAV(raw)
	if err != nil {
		return 0, fmt.Errorf("ref_audio: %v", err)
	}
	return info.Seconds(), nil
}

// speechShape is how a persona's engine serves POST /v1/audio/speech,
// read by value (persona.speech; nil: the persona serves no speech).
type speechShape struct {
	// sse: stream:true without stream_format "audio" is vLLM-Omni's SSE
	// (serving_speech.py create_speech, protocol/audio.py is_sse_stream@d6240742);
	// without it stream:true is SGLang-Omni's raw PCM, pcm only
	// (sglang_omni/serve/speech_service.py _prepare_generation_updates@3f4286eb).
	sse bool
	// rateHeaders: a raw stream's headers wait for its first audio chunk
	// and carry X-Sample-Rate, X-Channels: 1, X-Bit-Depth: 16
	// (sglang_omni/serve/openai_api.py _speech_audio_response@3f4286eb);
	// else they go out at once, before any audio, with no rate
	// (serving_speech.py create_speech: StreamingResponse@d6240742).
	rateHeaders bool
	// checksModel: a request for another model is the engine's 404
	// (vLLM-Omni's _check_model); SGLang-Omni never reads model.
	checksModel bool
	// refRange: a reference outside 1-30 s is a 400
	// (serving_speech.py _resolve_ref_audio@d6240742); SGLang-Omni's
	// bound was not read, and the simulator sets none.
	refRange bool
	// refText: the reference cache's key holds ref_text besides the
	// reference (SGLang-Omni's ReferenceEncodeService: xxh3 of the data
	// URI plus {ref_text, x_vector_only_mode},
	// sglang_omni/preprocessing/cache_key.py,
	// scheduling/reference_encoder.py@3f4286eb); vLLM-Omni keys by sha1
	// of the ref_audio string alone (serving_speech.py
	// _resolve_ref_audio@d6240742). The simulator hashes the same bytes
	// with sha1 either way: what hits is what the engine's key makes hit.
	refText bool
	// typedErrors: errors are SGLang-Omni's {"error":{message, type,
	// param, code}}: 400 BadRequestError code 400, 500 and 503
	// server_error code null (sglang_omni/serve/speech_errors.py@3f4286eb);
	// else the persona's (vLLM-Omni: vLLM's ErrorResponse, 400 for
	// almost every generation failure).
	typedErrors bool
	// running, queued: the engine's own admission for speech (0: the
	// server's), from its tts row's Shedding: SGLang-Omni's Qwen3-TTS
	// runs 16 and queues 16, refusing the next with its row's 503 "The
	// request queue is full.".
	running, queued int
	// uncounted: speech requests are in none of /metrics' families
	// (SGLang-Omni's main serves no /metrics for TTS: TTS-ENGINES, not
	// found at 3f4286eb).
	uncounted bool
	// audioFamilies: /metrics has vLLM-Omni's vllm_omni:audio_* families
	// (metrics.go).
	audioFamilies bool
	// voices is GET /v1/audio/voices' "voices". With voicesComplete, a
	// request without a reference clip must name one of them (or none),
	// case folded, else 400 "Invalid voice ..." (vLLM-Omni's
	// tts_adapters/qwen3_tts.py validate@d6240742: the checkpoint's
	// speakers, lowercased); SGLang-Omni lists "default" and uploaded
	// voices only, not a checkpoint's speakers
	// (serve/speech_voices.py list_response@3f4286eb), and takes any.
	voices         []string
	voicesComplete bool
}

// simSpeakers are the simulator's speakers: its own names, in the shape
// of a CustomVoice checkpoint's spk_id, not a model's.
var simSpeakers = []string{"ryan", "serena", "vivian"}

// speechVoices serves GET /v1/audio/voices.
func (s *Server) speechVoices(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"voices": s.p().speech.voices, "uploaded_voices": []any{}})
}

// The personas' shapes; the stream shape, whether speech is metered and
// SGLang-Omni's admission are their engine's tts row's, read by value.
var (
	vllmOmniSpeech = &speechShape{sse: speechRow(engine.VLLMOmni).Stream == engine.SpeechSSE,
		checksModel: true, refRange: true, audioFamilies: true, uncounted: speechRow(engine.VLLMOmni).Unmetered != "",
		voices: simSpeakers, voicesComplete: speechRow(engine.VLLMOmni).Voices.Complete}
	sglangOmniSpeech = &speechShape{sse: speechRow(engine.SGLangOmni).Stream == engine.SpeechSSE,
		rateHeaders: true, refText: true, typedErrors: true, uncounted: speechRow(engine.SGLangOmni).Unmetered != "",
		running: speechShedding(engine.SGLangOmni).DefaultRunning, queued: speechShedding(engine.SGLangOmni).DefaultQueued,
		voices: []string{"default"}, voicesComplete: speechRow(engine.SGLangOmni).Voices.Complete}
)

// speechRow is an engine's tts row; an engine without one cannot be a
// speech persona.
func speechRow(name string) engine.TaskRow {
	r, ok := mustEngine(name).Task(engine.TaskTTS)
	if !ok {
		panic("sim: engine " + name + " has no tts row")
	}
	return r
}

// speechShedding is an engine's refusal of speech past its queue: its tts
// row's Shedding (the engine table's, read by value).
func speechShedding(name string) *engine.Shedding {
	r := speechRow(name)
	if r.Shedding == nil {
		panic("sim: engine " + name + " has no speech shedding in its tts row")
	}
	return r.Shedding
}

// The simulator's voice: codec frames per second of audio (Qwen3-TTS's
// 12 Hz tokenizer: 12.5 frames a second), for its usage and metrics.
const speechFramesPerSecond = 12.5

// speechError answers an error as the persona's engine does.
func (s *Server) speechError(w http.ResponseWriter, status int, msg, param string) {
	if !s.p().speech.uncounted {
		s.metrics.done(false, timing{}, 0)
	}
	if !s.p().speech.typedErrors {
		s.writeError(w, status, msg)
		return
	}
	e := openAIError{Message: msg, Type: "server_error", Param: nil, Code: nil}
	if param != "" {
		e.Param = param
	}
	if status == http.StatusBadRequest {
		e.Type, e.Code = "BadRequestError", 400
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// speech serves POST /v1/audio/speech in the persona's engine's shapes
// (speechShape): a whole body (wav: audio/wav, pcm: audio/pcm); a raw
// stream (vLLM-Omni: stream_format "audio", pcm or wav, headers before
// any audio; SGLang-Omni: stream:true, pcm, headers with the rate after
// the first chunk); vLLM-Omni's SSE (stream:true otherwise). The audio
// comes in 0.2 s chunks spread over the service time: BaseLatency plus
// PerAudioSecond per second produced. Admission, shedding and FailRate
// are the server's (SGLang-Omni: its own 16 + 16, 503 beyond);
// StreamFailRate and StreamCutRate break a stream halfway: a raw stream
// is aborted with no in-band marker in both engines, an SSE stream
// fails with speech.audio.error (StreamFailRate) or is cut without
// speech.audio.done (StreamCutRate). With Cache, a reference seen
// before (by the engine's key, speechShape.refText) takes half the base
// latency less.
func (s *Server) speech(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	n := s.seq.Add(1)
	sh := s.p().speech
	var req speechRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil {
		s.speechError(w, http.StatusBadRequest, "speech request body must be valid JSON", "")
		return
	}
	if sh.checksModel && req.Model != "" && req.Model != s.cfg.Model {
		s.writeModelNotFound(w, req.Model)
		return
	}
	if strings.TrimSpace(req.Input) == "" {
		msg := "Input text cannot be empty"
		if sh.typedErrors {
			msg = "input must be a non-empty string"
		}
		s.speechError(w, http.StatusBadRequest, msg, "input")
		return
	}
	format := req.ResponseFormat
	if format == "" {
		format = "wav"
	}
	if sh.sse && (req.StreamFormat == "audio" || req.Stream || req.StreamFormat == "sse") && format != "pcm" && format != "wav" {
		// vLLM-Omni's OpenAICreateSpeechRequest.validate_streaming_constraints
		// (protocol/audio.py, vraiti/vllm-omni@6a28291f): its own refusal,
		// before any encoder is needed.
		s.speechError(w, http.StatusBadRequest, fmt.Sprintf("Streaming (stream=true, stream_format='audio', or stream_format='sse') requires response_format='pcm' or 'wav'. Got response_format='%s'.", format), "response_format")
		return
	}
	if format != "wav" && format != "pcm" && format != "flac" {
		// Both engines encode mp3 and opus too; the simulator has no
		// encoder for them (a gap its engine rows say).
		s.speechError(w, http.StatusBadRequest, fmt.Sprintf("the simulator produces wav, pcm and flac, not %q", format), "response_format")
		return
	}
	mode := "body"
	switch {
	case req.StreamFormat == "audio" && sh.sse:
		mode = "raw"
	case (req.Stream || req.StreamFormat == "sse") && sh.sse:
		mode = "sse"
	case req.Stream:
		if format != "pcm" {
			s.speechError(w, http.StatusBadRequest, "stream=true requires response_format='pcm'", "response_format")
			return
		}
		mode = "raw"
	}
	if req.RefAudio == "" && req.RefText != "" {
		// No reference clip: a named voice (CustomVoice), which neither
		// engine takes with a ref_text. vLLM-Omni makes the ref_text a Base
		// request, which needs ref_audio (tts_adapters/qwen3_tts.py
		// validate@d6240742: 400); SGLang-Omni's CustomVoice refuses it in
		// the pipeline (models/qwen3_tts/request_builders.py
		// build_qwen3_tts_state@3f4286eb), answered 500 server_error.
		if sh.typedErrors {
			s.speechError(w, http.StatusInternalServerError, "Qwen3-TTS CustomVoice does not accept ref_text", "")
		} else {
			s.speechError(w, http.StatusBadRequest, "Base task requires 'ref_audio' or 'speaker_embedding' for voice cloning", "ref_audio")
		}
		return
	}
	if req.RefAudio == "" && req.Voice != "" && sh.voicesComplete && !slices.Contains(sh.voices, strings.ToLower(req.Voice)) {
		s.speechError(w, http.StatusBadRequest, fmt.Sprintf("Invalid voice '%s'. Supported: %s", strings.ToLower(req.Voice), strings.Join(sh.voices, ", ")), "voice")
		return
	}
	refHit := false
	if req.RefAudio != "" {
		if err := parseRef(req.RefAudio, sh.refRange); err != nil {
			s.speechError(w, http.StatusBadRequest, err.Error(), "ref_audio")
			return
		}
		if s.cfg.Cache {
			key := req.RefAudio
			if sh.refText {
				key += "\x00" + req.RefText
			}
			k := sha1.Sum([]byte(key))
			s.cacheMu.Lock()
			if s.refs == nil {
				s.refs = map[[20]byte]bool{}
			}
			refHit, s.refs[k] = s.refs[k], true
			s.cacheMu.Unlock()
		}
	}
	tk, begin, ok := s.admitSpeech(w, r, start)
	if !ok {
		return
	}
	defer tk.release()
	samples := Speech(req.Input)
	pcm := make([]byte, 2*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	seconds := float64(len(samples)) / SpeechRate
	service := s.cfg.BaseLatency + time.Duration(seconds*float64(s.cfg.PerAudioSecond))
	if refHit {
		service -= s.cfg.BaseLatency / 2 // the simulator's choice: half the base latency is the reference's
	}
	chunk := SpeechRate / 5 * 2 // 0.2 s of s16le
	parts := max(1, (len(pcm)+chunk-1)/chunk)
	if s.cfg.FailRate > 0 && s.draw(n) < s.cfg.FailRate {
		if sleepUntil(r, begin.Add(service)) {
			s.speechError(w, http.StatusInternalServerError, "Internal server error (simulated failure).", "")
		}
		return
	}
	// Counted in the vLLM families as a transcription is (the engine
	// runs it; 12.5 codec frames a second as its completion tokens),
	// before the last audio goes out.
	prefill := time.Duration(float64(service) * PrefillShare)
	tokens := int64(seconds*speechFramesPerSecond) + 1
	done := func() {
		if !sh.uncounted {
			s.metrics.done(true, timing{queue: begin.Sub(start).Seconds(), prefill: prefill.Seconds(), decode: (service - prefill).Seconds(),
				e2e: time.Since(start).Seconds()}, tokens)
			s.metrics.audio(seconds, (service - prefill).Seconds(), int64(len(samples)))
		}
	}
	broke := func() {
		if !sh.uncounted {
			s.metrics.done(false, timing{}, 0)
		}
	}
	ct := "audio/" + format
	if mode == "body" {
		if !sleepUntil(r, begin.Add(service)) {
			broke()
			return
		}
		done()
		body := pcm
		switch format {
		case "wav":
			body = speechWAV(pcm, false)
		case "flac":
			var err error
			if body, err = speechFLAC(samples); err != nil {
				s.speechError(w, http.StatusInternalServerError, "flac: "+err.Error(), "")
				return
			}
		}
		w.Header().Set("Content-Type", ct)
		if sh.typedErrors {
			// SGLang-Omni's whole-body headers (openai_api.py
			// create_speech@3f4286eb): the usage's prompt and completion
			// tokens and engine_time_s (str of a float), then the finish
			// reason.
			w.Header().Set("Content-Disposition", `attachment; filename="speech.`+format+`"`)
			w.Header().Set("X-Prompt-Tokens", strconv.Itoa(speechPromptTokens(req)))
			w.Header().Set("X-Completion-Tokens", strconv.FormatInt(tokens, 10))
			w.Header().Set("X-Engine-Time", pyStr(service.Seconds()))
			w.Header().Set("X-Finish-Reason", "stop")
		}
		w.Write(body)
		return
	}
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	// The first audio after the prefill share the sim books (its stage
	// histograms' prefill), the rest spread over the decode.
	at := func(i int) time.Time {
		return begin.Add(prefill + (service-prefill)*time.Duration(i+1)/time.Duration(parts))
	}
	if mode == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", ct)
	}
	if !sh.rateHeaders {
		w.WriteHeader(http.StatusOK) // at once, before any audio
		flush()
	}
	fault := s.streamFault(n)
	for i := 0; i < parts; i++ {
		if fault != faultNone && i == parts/2 && i > 0 {
			broke()
			if mode == "sse" && fault == faultError {
				// vLLM-Omni's SSE generator catches the error and sends
				// speech.audio.error in place of done
				// (_generate_audio_sse_events@d6240742).
				writeSpeechEvent(w, "speech.audio.error", struct {
					Type  string      `json:"type"`
					Error openAIError `json:"error"`
				}{"speech.audio.error", openAIError{Message: "simulated mid-stream failure", Type: "server_error", Param: nil, Code: 500}})
				flush()
				return
			}
			// A raw stream re-raises in its generator: aborted with no
			// in-band marker, in both engines; an SSE stream cut so has
			// no speech.audio.done.
			panic(http.ErrAbortHandler)
		}
		if !sleepUntil(r, at(i)) {
			broke()
			return
		}
		if i == parts-1 {
			done()
			countNow(r)
		}
		p := pcm[i*chunk : min(len(pcm), (i+1)*chunk)]
		if i == 0 && sh.rateHeaders {
			w.Header().Set("X-Sample-Rate", strconv.Itoa(SpeechRate))
			w.Header().Set("X-Channels", "1")
			w.Header().Set("X-Bit-Depth", "16")
			w.WriteHeader(http.StatusOK)
		}
		if mode == "sse" {
			if i == 0 && format == "wav" {
				// The first delta of a WAV stream is the header alone.
				writeSpeechEvent(w, "speech.audio.delta", speechDelta{"speech.audio.delta", base64.StdEncoding.EncodeToString(speechWAV(nil, true)), format})
			}
			writeSpeechEvent(w, "speech.audio.delta", speechDelta{"speech.audio.delta", base64.StdEncoding.EncodeToString(p), format})
			if i == parts-1 {
				in := utf8.RuneCountInString(req.Input)
				audioTokens := speechPromptTokens(req) - in
				writeSpeechEvent(w, "speech.audio.done", speechDone{"speech.audio.done", speechUsage{
					int64(in + audioTokens), tokens, int64(in+audioTokens) + tokens, speechTokenDetails{in, audioTokens}}})
			}
		} else {
			if i == 0 && format == "wav" {
				w.Write(speechWAV(nil, true)) // the header just before the first PCM chunk
			}
			w.Write(p)
		}
		flush()
	}
}

// speechDelta is vLLM-Omni's speech.audio.delta, its members in the
// engine's order.
type speechDelta struct {
	Type           string `json:"type"`
	Audio          string `json:"audio"`
	ResponseFormat string `json:"response_format"`
}

// speechDone is vLLM-Omni's speech.audio.done: its usage is
// SpeechTokenUsage (protocol/audio.py@d6240742); the simulator counts
// the input's characters as its text tokens, 12.5 frames a second of
// the reference (when ref_text makes it in-context cloning) as its
// audio tokens, and 12.5 frames a second produced as its output tokens.
type speechDone struct {
	Type  string      `json:"type"`
	Usage speechUsage `json:"usage"`
}

type speechUsage struct {
	InputTokens  int64              `json:"input_tokens"`
	OutputTokens int64              `json:"output_tokens"`
	TotalTokens  int64              `json:"total_tokens"`
	Details      speechTokenDetails `json:"input_token_details"`
}

type speechTokenDetails struct {
	TextTokens  int `json:"text_tokens"`
	AudioTokens int `json:"audio_tokens"`
}

// writeSpeechEvent writes one SSE event as vLLM-Omni frames it:
// "event: <name>\ndata: <compact JSON>\n\n".
func writeSpeechEvent(w http.ResponseWriter, name string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}

// admitSpeech admits a speech request: through the persona's own speech
// admission when its engine has one (speechShape.running), refusing past
// it with 503 "The request queue is full.", else through the server's.
func (s *Server) admitSpeech(w http.ResponseWriter, r *http.Request, start time.Time) (*ticket, time.Time, bool) {
	if s.p().speech.running == 0 {
		return s.admit(w, r, start, ask{slots: 1}, nil)
	}
	tk, queued, err := s.speechAdmission.admit(r.Context(), ask{slots: 1}, nil)
	switch {
	case errors.Is(err, errShed):
		sh := speechShedding(s.p().eng.Name)
		s.speechError(w, sh.Status, sh.Message, "")
		return nil, time.Time{}, false
	case err != nil:
		return nil, time.Time{}, false
	case queued:
		return tk, time.Now(), true
	}
	return tk, start, true
}

// speechPromptTokens is what the simulator counts as a speech request's
// prompt: one token a character of its input, and 12.5 a second of its
// reference when ref_text makes it in-context cloning.
func speechPromptTokens(req speechRequest) int {
	n := utf8.RuneCountInString(req.Input)
	if req.RefAudio != "" && req.RefText != "" {
		refS, _ := refSeconds(req.RefAudio)
		n += int(refS * speechFramesPerSecond)
	}
	return n
}

// pyStr writes a float as Python's str does ("1.25", "2.0").
func pyStr(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// speechFLAC encodes the simulator's voice as FLAC (response_format
// flac, both engines; audio/flac) with github.com/mewkiz/flac's encoder,
// the library benchseal decodes FLAC with: 24 kHz, 16-bit mono, blocks
// of 4096 samples, its STREAMINFO carrying the sample count and the MD5
// of the samples (s16le, what a decoder checks).
func speechFLAC(samples []int16) ([]byte, error) {
	const block = 4096
	pcm := make([]byte, 2*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	info := &meta.StreamInfo{BlockSizeMin: block, BlockSizeMax: block, SampleRate: SpeechRate, NChannels: 1, BitsPerSample: 16,
		NSamples: uint64(len(samples)), MD5sum: md5.Sum(pcm)}
	var buf bytes.Buffer
	enc, err := flac.NewEncoder(&buf, info)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(samples); i += block {
		part := samples[i:min(len(samples), i+block)]
		sub := &frame.Subframe{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: make([]int32, len(part)), NSamples: len(part)}
		for j, v := range part {
			sub.Samples[j] = int32(v)
		}
		f := &frame.Frame{Header: frame.Header{HasFixedBlockSize: true, BlockSize: uint16(len(part)), SampleRate: SpeechRate,
			Channels: frame.ChannelsMono, BitsPerSample: 16}, Subframes: []*frame.Subframe{sub}}
		if err := enc.WriteFrame(f); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
