package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// ChatAudio is the audio chat task: POST /v1/chat/completions with the
// clip in the user message (Qwen3-Omni style) and a text prompt, the
// answer text only ("modalities": ["text"]). The clip is sent as base64
// (WAVBase64), so every request sends its own 1-LSB variant of it, as
// ASR's clips and tts's reference clips are. Where the clip goes is the
// target's field audio_part (internal/engine's chat-audio rows):
//
//   - input_audio (default): a content part {"type":"input_audio",
//     "input_audio":{"format":"wav","data":<base64>}} (vLLM's
//     chat_utils, which vLLM-Omni delegates to);
//   - audio_url: {"type":"audio_url","audio_url":{"url":
//     "data:audio/wav;base64,<base64>"}} (vLLM too);
//   - audios: SGLang-Omni's extension, the top-level
//     "audios":["data:audio/wav;base64,<base64>"] beside a text message.
//
// The prompt is the target's field prompt, DefaultChatPrompt without
// one: it asks for a transcript, so the answer is scored by WER against
// the clip's reference transcript (ASR's WER, the rule Metric names). A
// stream asks for usage (stream_options.include_usage): the answer's
// completion tokens, else its content chunks, count its output tokens.
// The record keeps the answer's facts (ChatAnswer, as JSON in its text);
// RTFx counts the seconds of the clip answered.
var ChatAudio Task = chatAudio{}

func init() { Register(ChatAudio) }

type chatAudio struct{}

// DefaultChatPrompt is the text part of a chat-audio request whose target
// names no prompt.
const DefaultChatPrompt = "Transcribe the audio."

// ChatSuccessRule is chat-audio's success rule: HTTP 200 with a decodable
// answer whose text is not empty.
const ChatSuccessRule = "chat_200_answer"

func (chatAudio) Name() string        { return engine.TaskChatAudio }
func (chatAudio) Path() string        { return engine.ChatPath }
func (chatAudio) SuccessRule() string { return ChatSuccessRule }

// ChatAnswer is what a chat-audio record keeps of an answer: its text,
// its output tokens and where they were counted ("usage": the server's
// completion_tokens; "chunks": its content chunks, when it sent no
// usage), its prompt tokens (0: not sent), and whether it came as a
// stream (only then is its first byte its first token).
type ChatAnswer struct {
	Answer       string `json:"answer"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	TokensFrom   string `json:"tokens_from,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	Stream       bool   `json:"stream,omitempty"`
}

func (a ChatAnswer) String() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// ParseChatAnswer reads a chat-audio record's text.
func ParseChatAnswer(text string) (ChatAnswer, error) {
	var a ChatAnswer
	if !strings.HasPrefix(text, "{") {
		return a, errors.New("not the chat-audio task's answer facts")
	}
	err := json.Unmarshal([]byte(text), &a)
	return a, err
}

// Score: an answer that does not decode, or whose text is empty, is no
// success.
func (chatAudio) Score(text string) (string, string, string) {
	a, err := ParseChatAnswer(text)
	if err != nil {
		return "", schemas.ErrDecode, "HTTP 200 whose answer is not a chat completion"
	}
	scored := strings.TrimSpace(a.Answer)
	if scored == "" {
		return "", schemas.ErrEmptyText, "HTTP 200 with an empty answer"
	}
	return scored, "", ""
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Decode reads a whole chat.completion: choices[0].message.content and
// usage.
func (chatAudio) Decode(_ map[string]string, _ string, body []byte) (string, string, error) {
	var doc struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage *chatUsage `json:"usage"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Choices) == 0 {
		return "", "", fmt.Errorf("not a chat completion (no choices): %.200s", body)
	}
	a := ChatAnswer{Answer: doc.Choices[0].Message.Content}
	if u := doc.Usage; u != nil && u.CompletionTokens > 0 {
		a.OutputTokens, a.TokensFrom, a.PromptTokens = u.CompletionTokens, "usage", u.PromptTokens
	}
	return a.String(), "", nil
}

// DecodeStream reads chat.completion.chunk events as ASR's streams are
// read (readSSE: a final chunk with finish_reason, then [DONE]; an error
// event fails it), counting its content chunks and keeping the last usage
// it carried.
func (chatAudio) DecodeStream(br *bufio.Reader, onText func()) (string, string, error) {
	var u *chatUsage
	chunks := 0
	text, id, err := readSSEChunks(br, onText, func(data []byte, d string) {
		if d != "" {
			chunks++
		}
		if bytes.Contains(data, []byte(`"usage"`)) {
			var c struct {
				Usage *chatUsage `json:"usage"`
			}
			if json.Unmarshal(data, &c) == nil && c.Usage != nil {
				u = c.Usage
			}
		}
	})
	a := ChatAnswer{Answer: text, Stream: true, OutputTokens: chunks, TokensFrom: "chunks"}
	if u != nil && u.CompletionTokens > 0 {
		a.OutputTokens, a.TokensFrom, a.PromptTokens = u.CompletionTokens, "usage", u.PromptTokens
	}
	if chunks == 0 && a.TokensFrom == "chunks" {
		a.OutputTokens, a.TokensFrom = 0, ""
	}
	return a.String(), id, err
}

// IsStream: a chat stream is text/event-stream.
func (chatAudio) IsStream(contentType string) bool {
	return strings.HasPrefix(contentType, "text/event-stream")
}

// RecordSeconds is the clip's seconds: RTFx counts the audio answered.
func (chatAudio) RecordSeconds(input float64, _ string) float64 { return input }

// Seconds is the clip's seconds (run.json's corpus entry).
func (chatAudio) Seconds(frames int64, rate int) float64 { return float64(frames) / float64(rate) }

// LoadCorpus reads a WAV corpus (LoadWAVCorpus): each clip's transcript
// is the reference its answer is scored against.
func (chatAudio) LoadCorpus(path string) ([]Clip, error) { return LoadWAVCorpus(path) }

// Positions is the clip's samples.
func (chatAudio) Positions(c schemas.Clip) int64 { return c.Frames * int64(c.Channels) }

// Input is the clip sent as base64 (WAVBase64).
func (chatAudio) Input(name string, b []byte) (Input, error) { return WAVBase64(name, b) }

// Quality is WER of the answers against the clips' reference transcripts:
// the default prompt asks for a transcript.
func (chatAudio) Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	return WER(measured, refs, sc)
}

// Metric is ASR's name of the figure (WER, or CER by characters).
func (chatAudio) Metric(sc schemas.Scoring) string { return ASR.Metric(sc) }

// The audio_part values (ChatAudio's doc).
const (
	ChatInputAudio = "input_audio"
	ChatAudioURL   = "audio_url"
	ChatAudios     = "audios"
)

// chatReserved are the members benchseal writes itself.
var chatReserved = []string{"model", "messages", "modalities", "stream", "stream_options", "audios"}

// Envelope is one body for every item of the target: {"model", the
// target's fields sorted (JSON strings; prompt and audio_part are
// benchseal's), "modalities":["text"], "stream":true and
// "stream_options":{"include_usage":true} when it streams, the message
// with the prompt, then the clip's base64 last, so that the suffix
// closes the body.
func (chatAudio) Envelope(t Target) (Envelopes, error) {
	part := t.Fields["audio_part"]
	if part == "" {
		part = ChatInputAudio
	}
	prompt := t.Fields["prompt"]
	if prompt == "" {
		prompt = DefaultChatPrompt
	}
	var b bytes.Buffer
	b.WriteByte('{')
	putMember(&b, "model", t.Model)
	keys := make([]string, 0, len(t.Fields))
	for k := range t.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case k == "prompt" || k == "audio_part":
		case slices.Contains(chatReserved, k):
			return nil, fmt.Errorf("field %q is set by benchseal", k)
		default:
			putMember(&b, k, t.Fields[k])
		}
	}
	b.WriteString(`"modalities":["text"],`)
	if t.Stream {
		b.WriteString(`"stream":true,"stream_options":{"include_usage":true},`)
	}
	pj, _ := json.Marshal(prompt)
	var suffix string
	switch part {
	case ChatInputAudio:
		fmt.Fprintf(&b, `"messages":[{"role":"user","content":[{"type":"text","text":%s},{"type":"input_audio","input_audio":{"format":"wav","data":"`, pj)
		suffix = `"}}]}]}`
	case ChatAudioURL:
		fmt.Fprintf(&b, `"messages":[{"role":"user","content":[{"type":"text","text":%s},{"type":"audio_url","audio_url":{"url":"data:audio/wav;base64,`, pj)
		suffix = `"}}]}]}`
	case ChatAudios:
		fmt.Fprintf(&b, `"messages":[{"role":"user","content":%s}],"audios":["data:audio/wav;base64,`, pj)
		suffix = `"]}`
	default:
		return nil, fmt.Errorf("audio_part %q: want %s, %s or %s", part, ChatInputAudio, ChatAudioURL, ChatAudios)
	}
	return Shared(Envelope{ContentType: "application/json", Prefix: b.Bytes(), Suffix: []byte(suffix)}), nil
}
