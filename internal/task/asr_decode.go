package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"regexp"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// responseText extracts the transcript from a non-streamed 200 body by
// what the server said, not by what was asked: a body the server labels
// JSON (Content-Type application/json), or one that parses as an object
// with a "text" string, yields that "text" whatever response_format was
// requested. vLLM answers response_format=text with
// {"text":...,"usage":{"type":"duration","seconds":N}} and Content-Type
// application/json (vllm entrypoints/openai/speech_to_text/api_router.py
// @029329a8 returns a JSONResponse for every non-streamed variant), so
// taking the body as the transcript would score JSON; note is then
// schemas.NoteJSONBody. SGLang-Omni answers text with text/plain
// (PlainTextResponse, serve/speech_to_text.py @070fc3b5), which is kept
// as it is. json and verbose_json (the default) must be an object with
// "text".
// ResponseFormats are the response_format values decodeText reads a
// transcript from: json, verbose_json and diarized_json (vLLM's, whose
// "text" is the segments' text joined) carry {"text"}; text is the body
// itself; srt and vtt are subtitles, whose cue text is the transcript:
// never the body whole, whose numbers and timings would be scored as
// words (subtitleText).
var ResponseFormats = []string{"json", "verbose_json", "diarized_json", "text", "srt", "vtt"}

// subtitleText is the text of an SRT or WebVTT body's cues, in order,
// joined by spaces: the WEBVTT header, NOTE, STYLE and REGION blocks,
// cue numbers and identifiers and the timing lines ("00:00:01,000 -->
// ...") are dropped, and tags (<i>, <v Speaker>, <00:01.000>) removed. ok
// is false when the body has no timing line: it is not a subtitle (a
// server that ignored the format), and is kept whole.
func subtitleText(body []byte) (text string, ok bool) {
	var words []string
	blocks := strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n"), "\n\n")
	for _, b := range blocks {
		lines := strings.Split(strings.Trim(b, "\n"), "\n")
		timing := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "-->") })
		if timing < 0 {
			continue // header, NOTE, STYLE, REGION, or an empty block
		}
		ok = true
		for _, l := range lines[timing+1:] {
			if t := strings.TrimSpace(cueTag.ReplaceAllString(l, "")); t != "" {
				words = append(words, t)
			}
		}
	}
	return strings.Join(words, " "), ok
}

// cueTag is a WebVTT or SRT markup tag in cue text.
var cueTag = regexp.MustCompile(`<[^>]*>`)

func decodeText(format, contentType string, body []byte) (text, note string, err error) {
	plain := false
	switch format {
	case "text", "srt", "vtt":
		plain = true
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	labelledJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if plain && !labelledJSON {
		// A plain body is taken whole unless it is, unmistakably, the
		// JSON object of a server that ignored the format.
		if t, ok := jsonText(body); ok {
			return t, schemas.NoteJSONBody, nil
		}
		if format == "srt" || format == "vtt" {
			if t, ok := subtitleText(body); ok {
				return t, schemas.NoteSubtitleCues, nil
			}
		}
		return string(body), "", nil
	}
	var v struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", "", fmt.Errorf("response is not JSON: %w", err)
	}
	if v.Text == nil {
		return "", "", errors.New(`response has no "text" field`)
	}
	if plain {
		note = schemas.NoteJSONBody
	}
	return *v.Text, note, nil
}

// jsonText reports whether body is a JSON object with a string "text", and
// that text.
func jsonText(body []byte) (string, bool) {
	b := bytes.TrimSpace(body)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return "", false
	}
	var v struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(b, &v) != nil || v.Text == nil {
		return "", false
	}
	return *v.Text, true
}

// StreamError is a stream that did not end as its engine ends a good one.
// Class is schemas.ErrStreamError (the server sent an error event; Msg is
// its message) or schemas.ErrStreamTruncated (no final event or no
// [DONE]).
type StreamError struct {
	Class string
	Msg   string
}

func (e *StreamError) Error() string { return e.Msg }

// sseChunk covers both streaming shapes: vLLM's chat-completion-like chunk
// {"id":"transcribe-...","object":"transcription.chunk","choices":[{"delta":
// {"content":"..."},"finish_reason":...}]} and OpenAI's transcription
// events {"type":"transcript.text.delta","delta":"..."} /
// {"type":"transcript.text.done","text":"..."} (SGLang-Omni), plus the
// error events of each: vLLM {"error":{"message",...}} (older vLLM:
// {"object":"error","message"}), SGLang-Omni
// {"type":"error","error":{"message"}}.
type sseChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Type    string          `json:"type"`
	Delta   string          `json:"delta"`
	Text    string          `json:"text"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// errorMessage returns the message of an error event, and whether c is one.
func (c *sseChunk) errorMessage() (string, bool) {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(c.Error, &e) == nil && e.Message != "" {
			return e.Message, true
		}
		var s string
		if json.Unmarshal(c.Error, &s) == nil && s != "" {
			return s, true
		}
		return string(c.Error), true
	}
	if c.Type == "error" || c.Object == "error" {
		if c.Message != "" {
			return c.Message, true
		}
		return "error event without a message", true
	}
	return "", false
}

// readSSE reads an event stream and returns the concatenated deltas (or
// the final event's text) and the first chunk id the server gave (vLLM's
// "transcribe-<request id>"). A stream succeeds only when it ends as its
// engine ends a good one: a final event (a choice with finish_reason, or
// transcript.text.done), then data: [DONE]. An error event fails it at once
// (*StreamError, schemas.ErrStreamError, with the server's message: vLLM
// follows it with [DONE], SGLang-Omni closes without one), and so does a
// stream that ends without a final event or without [DONE]
// (schemas.ErrStreamTruncated); the text read so far is returned with the
// error. onText is called when the first event carrying text arrives,
// whatever its kind: a stream that sends its transcript only in
// transcript.text.done still has a first byte, and a request without one
// would be left out of ttfb_p50.
func readSSE(br *bufio.Reader, onText func()) (text, id string, err error) {
	return readSSEChunks(br, onText, nil)
}

// readSSEChunks is readSSE calling each (when not nil) with every event
// that is no error: its data and the text it added. (A task reads what
// else it needs of an event from its data: sseChunk stays ASR's size,
// which every streamed event of an ASR run allocates.)
func readSSEChunks(br *bufio.Reader, onText func(), each func(data []byte, text string)) (text, id string, err error) {
	var deltas strings.Builder
	var done string
	first, final := true, false
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			// Longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for rerr == bufio.ErrBufferFull {
				line, rerr = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
			if ok {
				data = bytes.TrimSpace(data)
				if string(data) == "[DONE]" {
					if !final {
						return pick(deltas.String(), done), id, &StreamError{schemas.ErrStreamTruncated,
							"stream ended with [DONE] but without its final event (finish_reason or transcript.text.done)"}
					}
					return pick(deltas.String(), done), id, nil
				}
				var c sseChunk
				if jerr := json.Unmarshal(data, &c); jerr != nil {
					return deltas.String(), id, fmt.Errorf("stream event is not JSON: %w", jerr)
				}
				if id == "" {
					id = c.ID
				}
				if msg, isErr := c.errorMessage(); isErr {
					return pick(deltas.String(), done), id, &StreamError{schemas.ErrStreamError, "stream error event: " + msg}
				}
				d := c.Delta
				for _, ch := range c.Choices {
					d += ch.Delta.Content + ch.Text
					if ch.FinishReason != nil {
						final = true
					}
				}
				if c.Type == "transcript.text.done" {
					done, d, final = c.Text, "", true
				}
				if first && (d != "" || done != "") {
					onText()
					first = false
				}
				deltas.WriteString(d)
				if each != nil {
					each(data, d)
				}
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return pick(deltas.String(), done), id, &StreamError{schemas.ErrStreamTruncated, "stream ended without data: [DONE]"}
			}
			return deltas.String(), id, rerr
		}
	}
}

func pick(deltas, done string) string {
	if done != "" {
		return done
	}
	return deltas
}
