package sim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// chatShape is how a persona serves POST /v1/chat/completions with an
// audio clip (internal/engine's chat-audio rows), nil when it serves no
// chat: the simulator's audio chat answers each clip with its transcript
// (recognise), one word a content chunk.
type chatShape struct {
	// parts: the clip comes as a content part (input_audio or audio_url,
	// vLLM's); else as SGLang-Omni's top-level "audios" data URLs.
	parts bool
	// streamNeedsModalities: a stream without "modalities" is refused
	// (vLLM-Omni's assert, answered 400 here).
	streamNeedsModalities bool
	// usageNeedsOption: a stream carries usage only with
	// stream_options.include_usage (vLLM); else always, in the finish
	// chunk (SGLang-Omni).
	usageNeedsOption bool
}

var (
	vllmOmniChat   = &chatShape{parts: true, streamNeedsModalities: true, usageNeedsOption: true}
	sglangOmniChat = &chatShape{}
)

// ChatTokenInterval is the simulator's time between two content chunks of
// a streamed chat answer (one word each).
const ChatTokenInterval = 2 * time.Millisecond

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Modalities    []string `json:"modalities"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Audios []string `json:"audios"`
}

// clip is the request's audio as the persona takes it: a content part's
// base64 (input_audio data, audio_url data URL), or the first "audios"
// data URL.
func (sh *chatShape) clip(req *chatRequest) ([]byte, error) {
	var b64 string
	if sh.parts {
		for _, m := range req.Messages {
			var parts []struct {
				Type       string `json:"type"`
				InputAudio struct {
					Data string `json:"data"`
				} `json:"input_audio"`
				AudioURL struct {
					URL string `json:"url"`
				} `json:"audio_url"`
			}
			if json.Unmarshal(m.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				switch p.Type {
				case "input_audio":
					b64 = p.InputAudio.Data
				case "audio_url":
					_, b64, _ = strings.Cut(p.AudioURL.URL, ",")
				}
			}
		}
	} else if len(req.Audios) > 0 {
		_, b64, _ = strings.Cut(req.Audios[0], ",")
	}
	if b64 == "" {
		return nil, fmt.Errorf("no audio in the request")
	}
	return base64.StdEncoding.DecodeString(b64)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sh := s.p().chat
	var req chatRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil {
		s.fail(w, http.StatusBadRequest, "chat request body must be valid JSON")
		return
	}
	if req.Stream && sh.streamNeedsModalities && len(req.Modalities) == 0 {
		s.fail(w, http.StatusBadRequest, "Streaming request must specify output modalities")
		return
	}
	wav, err := sh.clip(&req)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	info, err := parseWAV(wav)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	seconds := info.Seconds()
	tk, begin, ok := s.admit(w, r, start, ask{slots: 1, tokens: int(promptTokens(seconds))}, nil)
	if !ok {
		return
	}
	defer tk.release()
	words := strings.Fields(s.recognise(wav, digestOf(wav)))
	prefill := s.cfg.BaseLatency + time.Duration(seconds*float64(s.cfg.PerAudioSecond))
	decode := ChatTokenInterval * time.Duration(max(len(words)-1, 0))
	if !sleepUntil(r, begin.Add(prefill)) {
		s.metrics.done(false, timing{}, 0)
		return
	}
	tk.prefilled()
	id := "chatcmpl-" + s.requestID(r)
	usage := map[string]int{"prompt_tokens": int(promptTokens(seconds)), "completion_tokens": len(words), "total_tokens": int(promptTokens(seconds)) + len(words)}
	count := func() {
		s.metrics.done(true, timing{queue: begin.Sub(start).Seconds(), prefill: prefill.Seconds(), decode: decode.Seconds(), e2e: time.Since(start).Seconds()}, int64(len(words)))
	}
	if !req.Stream {
		if !sleepUntil(r, begin.Add(prefill+decode)) {
			s.metrics.done(false, timing{}, 0)
			return
		}
		count()
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": start.Unix(), "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": strings.Join(words, " ")}, "finish_reason": "stop"}},
			"usage":   usage})
		return
	}
	s.chatStream(w, r, &req, chatAnswer{id: id, words: words, begin: begin, prefill: prefill, usage: usage, start: start}, count)
}

// chatAnswer is what a chat stream sends: its words from begin+prefill,
// ChatTokenInterval apart, then the usage.
type chatAnswer struct {
	id           string
	words        []string
	start, begin time.Time
	prefill      time.Duration
	usage        map[string]int
}

// chatStream writes a as the persona streams an answer: the first chunk
// (vLLM's role with empty content; SGLang-Omni's role with the first
// word), one word a chunk, the finish chunk and usage as the persona
// sends them, then [DONE]; count counts it before its last event.
func (s *Server) chatStream(w http.ResponseWriter, r *http.Request, req *chatRequest, a chatAnswer, count func()) {
	sh := s.p().chat
	id, words, start, begin, prefill, usage := a.id, a.words, a.start, a.begin, a.prefill, a.usage
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(delta map[string]any, finish any, u any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": start.Unix(), "model": s.cfg.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if u != nil {
			c["usage"] = u
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	if sh.parts {
		event(map[string]any{"role": "assistant", "content": ""}, nil, nil) // vLLM's first chunk
	}
	for i, word := range words {
		if i > 0 && !sleepUntil(r, begin.Add(prefill+ChatTokenInterval*time.Duration(i))) {
			s.metrics.done(false, timing{}, 0)
			return
		}
		if i > 0 {
			word = " " + word
		}
		delta := map[string]any{"content": word}
		if i == 0 && !sh.parts {
			delta["role"] = "assistant" // SGLang-Omni's first chunk carries both
		}
		event(delta, nil, nil)
	}
	count()
	countNow(r)
	switch {
	case !sh.usageNeedsOption:
		event(map[string]any{}, "stop", usage) // SGLang-Omni's finish chunk
	case req.StreamOptions != nil && req.StreamOptions.IncludeUsage:
		event(map[string]any{}, "stop", nil)
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": start.Unix(), "model": s.cfg.Model, "choices": []any{}, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	default:
		event(map[string]any{}, "stop", nil)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
