package task_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// TestASREnvelope: prefix + audio + suffix is a multipart form a server
// parses into the model, the fields, stream and the file, byte for byte.
func TestASREnvelope(t *testing.T) {
	e, err := task.ASR.Envelope("m", map[string]string{"language": "en", "response_format": "text"}, true)
	if err != nil {
		t.Fatal(err)
	}
	audio := []byte("RIFF....WAVEfmt fake")
	mt, params, err := mime.ParseMediaType(e.ContentType)
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q: %v", e.ContentType, err)
	}
	mr := multipart.NewReader(bytes.NewReader(append(append(append([]byte(nil), e.Prefix...), audio...), e.Suffix...)), params["boundary"])
	got := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got[p.FormName()] = string(b)
		if p.FormName() == "file" && (p.FileName() != "audio.wav" || p.Header.Get("Content-Type") != "audio/wav") {
			t.Errorf("file part %q %q", p.FileName(), p.Header.Get("Content-Type"))
		}
	}
	want := map[string]string{"model": "m", "language": "en", "response_format": "text", "stream": "true", "file": string(audio)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, err := task.ASR.Envelope("m", map[string]string{"file": "x"}, false); err == nil {
		t.Error("a field named file was accepted")
	}
}

// TestASRScore: the success rule fails an answer that is empty once the
// raw Qwen3-ASR prefix is dropped, and keeps a transcript.
func TestASRScore(t *testing.T) {
	if s, class, _ := task.ASR.Score("language English<asr_text>hello"); class != "" || s != "hello" {
		t.Errorf("Score(prefixed hello) = %q, %q", s, class)
	}
	for _, text := range []string{"", "  ", "language English<asr_text>"} {
		if _, class, _ := task.ASR.Score(text); class != schemas.ErrEmptyText {
			t.Errorf("Score(%q) class %q, want %s", text, class, schemas.ErrEmptyText)
		}
	}
}

func TestASRSeconds(t *testing.T) {
	if got := task.ASR.Seconds(24000, 16000); got != 1.5 {
		t.Errorf("Seconds = %v", got)
	}
	if task.ASR.Path() != "/v1/audio/transcriptions" || task.ASR.Name() != "asr" {
		t.Errorf("ASR is %s at %s", task.ASR.Name(), task.ASR.Path())
	}
}
