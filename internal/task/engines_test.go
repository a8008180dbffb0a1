package task_test

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// streamOf writes a good stream and a failing one in an engine's shapes
// (internal/engine's Stream); an engine whose shape this test does not
// know fails here, so a new engine row brings its decoding with it.
func streamOf(t *testing.T, s engine.Stream) (good, failing string) {
	t.Helper()
	var deltas, done, errEvent string
	switch s.Events {
	case engine.ChunkEvents:
		deltas = `data: {"id":"x","object":"transcription.chunk","choices":[{"delta":{"content":"hello "}}]}` + "\n\n"
		done = `data: {"id":"x","object":"transcription.chunk","choices":[{"delta":{"content":"world"},"finish_reason":"stop"}]}` + "\n\n"
	case engine.TranscriptEvents:
		deltas = `data: {"type":"transcript.text.delta","delta":"hello "}` + "\n\n"
		done = `data: {"type":"transcript.text.done","text":"hello world","usage":{"type":"duration","seconds":1}}` + "\n\n"
	default:
		t.Fatalf("stream events %q: the ASR task does not know them", s.Events)
	}
	switch s.ErrorEvent {
	case engine.OpenAIError:
		errEvent = `data: {"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}` + "\n\n"
	case engine.OpenAIErrorObject:
		errEvent = `data: {"object":"error","message":"boom"}` + "\n\n"
	case engine.TypedError:
		errEvent = `data: {"type":"error","error":{"message":"boom"}}` + "\n\n"
	default:
		t.Fatalf("stream error event %q: the ASR task does not know it", s.ErrorEvent)
	}
	failing = deltas + errEvent
	if s.DoneAfterError {
		failing += "data: [DONE]\n\n"
	}
	return deltas + done + "data: [DONE]\n\n", failing
}

// TestEveryEngineDecodes: the ASR task reads every engine's answers, as
// the table says each engine gives them.
func TestEveryEngineDecodes(t *testing.T) {
	for _, e := range engine.All() {
		t.Run(e.Name, func(t *testing.T) {
			good, failing := streamOf(t, e.Stream)
			text, _, err := task.ASR.DecodeStream(bufio.NewReader(strings.NewReader(good)), func() {})
			if err != nil || text != "hello world" {
				t.Errorf("good stream: %q, %v", text, err)
			}
			_, _, err = task.ASR.DecodeStream(bufio.NewReader(strings.NewReader(failing)), func() {})
			var se *task.StreamError
			if !errors.As(err, &se) || se.Class != schemas.ErrStreamError || !strings.Contains(se.Msg, "boom") {
				t.Errorf("failing stream: %v", err)
			}
			fields := map[string]string{"response_format": "text"}
			body, ct, wantNote := "hello world", "text/plain; charset=utf-8", ""
			if e.Transcription.TextAsJSON {
				body, ct, wantNote = `{"text":"hello world","usage":{"type":"duration","seconds":1}}`, "application/json", schemas.NoteJSONBody
			}
			text, note, err := task.ASR.Decode(fields, ct, []byte(body))
			if err != nil || text != "hello world" || note != wantNote {
				t.Errorf("text answer: %q %q %v", text, note, err)
			}
		})
	}
}
