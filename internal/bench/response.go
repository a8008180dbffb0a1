package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// responseText extracts the transcript from a non-streamed response body.
// response_format text, srt and vtt return the body itself; json and
// verbose_json (the default) an object with "text".
func responseText(format string, body []byte) (string, error) {
	switch format {
	case "text", "srt", "vtt":
		return string(body), nil
	}
	var v struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("response is not JSON: %w", err)
	}
	if v.Text == nil {
		return "", errors.New(`response has no "text" field`)
	}
	return *v.Text, nil
}

// sseChunk covers both streaming shapes: vLLM's chat-completion-like chunk
// {"choices":[{"delta":{"content":"..."}}]} and OpenAI's transcription
// events {"type":"transcript.text.delta","delta":"..."} /
// {"type":"transcript.text.done","text":"..."}.
type sseChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		Text string `json:"text"`
	} `json:"choices"`
	Type  string `json:"type"`
	Delta string `json:"delta"`
	Text  string `json:"text"`
}

// readSSE reads an event stream until [DONE] or its end and returns the
// concatenated deltas (or the final event's text). onText is called when
// the first event carrying text arrives, whatever its kind: a stream that
// sends its transcript only in transcript.text.done still has a first
// byte, and a request without one would be left out of ttfb_p50.
func readSSE(br *bufio.Reader, onText func()) (string, error) {
	var text strings.Builder
	var done string
	first := true
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// Longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
			if ok {
				data = bytes.TrimSpace(data)
				if string(data) == "[DONE]" {
					return pick(text.String(), done), nil
				}
				var c sseChunk
				if jerr := json.Unmarshal(data, &c); jerr != nil {
					return text.String(), fmt.Errorf("stream event is not JSON: %w", jerr)
				}
				d := c.Delta
				for _, ch := range c.Choices {
					d += ch.Delta.Content + ch.Text
				}
				if c.Type == "transcript.text.done" {
					done, d = c.Text, ""
				}
				if first && (d != "" || done != "") {
					onText()
					first = false
				}
				text.WriteString(d)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return pick(text.String(), done), nil
			}
			return text.String(), err
		}
	}
}

func pick(deltas, done string) string {
	if done != "" {
		return done
	}
	return deltas
}
