package task_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// TestASREnvelope: prefix + audio + suffix is a multipart form a server
// parses into the model, the fields, stream and the file, byte for byte.
func TestASREnvelope(t *testing.T) {
	es, err := task.ASR.Envelope(task.Target{Model: "m", Fields: map[string]string{"language": "en", "response_format": "text"}, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := es.For(task.Item{ID: "a", Text: "ref"})
	if err != nil {
		t.Fatal(err)
	}
	// Every item of a target shares the one form: ASR's body says
	// nothing of the item, and the runner then keeps one prefix per target.
	if e2, _ := es.For(task.Item{ID: "b"}); &e2.Prefix[0] != &e.Prefix[0] || &e2.Suffix[0] != &e.Suffix[0] {
		t.Error("two items of one target got envelopes of their own")
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
	if _, err := task.ASR.Envelope(task.Target{Model: "m", Fields: map[string]string{"file": "x"}}); err == nil {
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

// The positions run.json's entry allows are the positions of the clip's
// bytes (check 5 relies on it when the audio is not sealed), and a
// variant's splice is its bytes.
func TestASRInputPositions(t *testing.T) {
	b := testkit.WAV(8000, 2, 16, make([]byte, 4*100)) // 100 stereo frames
	in, err := task.ASR.Input("s.wav", b)
	if err != nil {
		t.Fatal(err)
	}
	entry := schemas.Clip{Frames: 100, Channels: 2, SampleRate: 8000}
	if got, want := task.ASR.Positions(entry), in.Positions(); got != want || got != 200 {
		t.Fatalf("Positions(entry) = %d, Input.Positions = %d, want 200", got, want)
	}
	if err := in.Check(entry); err != nil {
		t.Fatal(err)
	}
	if err := in.Check(schemas.Clip{Frames: 100, Channels: 2, SampleRate: 16000}); err == nil {
		t.Error("Check accepted another sample rate")
	}
	v, err := in.Variant(7)
	if err != nil {
		t.Fatal(err)
	}
	s := in.Splice(v)
	sent := append(append(slices.Clone(s.Head), s.Mid...), s.Tail...)
	if sha256.Sum256(sent) != v.SHA256 || bytes.Equal(sent, b) || len(sent) != len(b) {
		t.Error("the splice is not the variant's bytes")
	}
}

// TestSubtitleBodies: an srt or vtt answer is scored by its cues' text,
// never whole (numbers and timings would be words); a plain body under a
// subtitle format is kept; diarized_json decodes its "text".
func TestSubtitleBodies(t *testing.T) {
	for _, tc := range []struct {
		format, ct, body, text, note string
	}{
		{"srt", "text/plain", "1\r\n00:00:00,000 --> 00:00:02,500\r\nthe quick brown\r\n\r\n2\r\n00:00:02,500 --> 00:00:04,000\r\n<i>fox</i> jumps\r\n", "the quick brown fox jumps", schemas.NoteSubtitleCues},
		{"vtt", "text/vtt", "WEBVTT\n\nNOTE made by a model\n\ncue-1\n00:00.000 --> 00:02.500\n<v Speaker 1>the quick\nbrown fox\n\n00:02.500 --> 00:04.000 align:start\njumps <00:03.000>over\n", "the quick brown fox jumps over", schemas.NoteSubtitleCues},
		{"srt", "text/plain", "the quick brown fox", "the quick brown fox", ""},
		{"diarized_json", "application/json", `{"task":"transcribe","duration":4.0,"text":"the quick brown fox","segments":[{"type":"transcript.text.segment","id":"seg_0","start":0,"end":4,"text":"the quick brown fox","speaker":"A"}],"usage":{"type":"duration","seconds":4}}`, "the quick brown fox", ""},
	} {
		text, note, err := task.ASR.Decode(map[string]string{"response_format": tc.format}, tc.ct, []byte(tc.body))
		if err != nil || text != tc.text || note != tc.note {
			t.Errorf("%s %q: %q note %q err %v; want %q note %q", tc.format, tc.body, text, note, err, tc.text, tc.note)
		}
	}
}

// TestStreamDoneWithoutUsage: SGLang-Omni leaves usage out of
// transcript.text.done when its duration probe returns 0
// (speech_to_text.py@f9f24e5a, exclude_none): the stream still succeeds.
func TestStreamDoneWithoutUsage(t *testing.T) {
	body := "data: {\"type\":\"transcript.text.delta\",\"delta\":\"hello\"}\n\n" +
		"data: {\"type\":\"transcript.text.done\",\"text\":\"hello world\"}\n\ndata: [DONE]\n\n"
	text, _, err := task.ASR.DecodeStream(bufio.NewReader(strings.NewReader(body)), func() {})
	if err != nil || text != "hello world" {
		t.Errorf("%q, %v", text, err)
	}
}
