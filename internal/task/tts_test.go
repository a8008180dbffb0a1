package task_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// tone is n samples of a sine of amplitude amp (0..1) at 440 Hz.
func tone(rate int, seconds, amp float64) []int16 {
	n := int(seconds * float64(rate))
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * 32767 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return s
}

func pcmBytes(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func facts(t *testing.T, text string) task.Audio {
	t.Helper()
	a, err := task.ParseAudio(text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return a
}

func TestTTSRegistered(t *testing.T) {
	tk, err := task.Named("tts")
	if err != nil || tk != task.TTS || tk.Path() != "/v1/audio/speech" || tk.SuccessRule() != task.TTSSuccessRule {
		t.Fatalf("Named(tts) = %v, %v", tk, err)
	}
}

// TestTTSDecodeWAV decodes real WAV bytes: a 1 s tone at half scale is
// 1 s at 24 kHz from its header, RMS -9.03 dBFS, no silence, and a
// success; its SHA-256 is its PCM's.
func TestTTSDecodeWAV(t *testing.T) {
	s := append(tone(24000, 1, 0.5), make([]int16, 12000)...) // then 0.5 s of silence
	wav := testkit.PCM16(24000, s)
	text, note, err := task.TTS.Decode(nil, "audio/wav", wav)
	if err != nil || note != "" {
		t.Fatal(err, note)
	}
	a := facts(t, text)
	sum := sha256.Sum256(pcmBytes(s))
	if a.Format != "wav" || a.SampleRate != 24000 || a.RateFrom != "wav header" || a.Channels != 1 || a.Seconds != 1.5 || a.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("facts %+v", a)
	}
	// RMS of a half-scale sine over 1.5 s, 1 s of it sounding: 0.5/sqrt(2)*sqrt(1/1.5).
	want := 20 * math.Log10(0.5/math.Sqrt2*math.Sqrt(1/1.5))
	if math.Abs(a.RMSDBFS-want) > 0.05 || math.Abs(a.LongestSilence-0.5) > 0.011 {
		t.Fatalf("rms %v dBFS (want %v), longest silence %v (want 0.5)", a.RMSDBFS, want, a.LongestSilence)
	}
	if _, class, msg := task.TTS.Score(text); class != "" {
		t.Fatalf("a 1.5 s tone is no success: %s %s", class, msg)
	}
	if got := task.TTS.RecordSeconds(7, text); got != 1.5 {
		t.Fatalf("RecordSeconds %v, want the produced 1.5 (not the input's 7)", got)
	}
	if got := task.TTS.RecordSeconds(7, ""); got != 0 {
		t.Fatalf("RecordSeconds of no output %v, want 0", got)
	}
}

// TestTTSFailureClasses: silence, too short, undecodable, each its class.
func TestTTSFailureClasses(t *testing.T) {
	streamed := testkit.PCM16(24000, tone(24000, 0.5, 0.3))
	binary.LittleEndian.PutUint32(streamed[4:], 0xFFFFFFFF) // vLLM-Omni's streamed header sizes
	binary.LittleEndian.PutUint32(streamed[40:], 0xFFFFFFFF)
	for _, c := range []struct {
		name, ct string
		body     []byte
		class    string
		seconds  float64
	}{
		{"silent", "audio/wav", testkit.PCM16(24000, make([]int16, 24000)), task.ErrSilent, 1},
		{"quiet noise", "audio/wav", testkit.PCM16(24000, scale(testkit.Noise(1, 24000), 0.001)), task.ErrSilent, 1},
		{"too short", "audio/wav", testkit.PCM16(24000, tone(24000, 0.2, 0.5)), task.ErrTooShort, 0.2},
		{"header only", "audio/wav", testkit.PCM16(24000, nil), task.ErrTooShort, 0},
		{"mp3", "audio/mpeg", []byte("ID3\x03\x00\x00\x00\x00\x00\x00 not decoded"), task.ErrUndecodable, 0},
		{"json error", "application/json", []byte(`{"error":"x"}`), task.ErrUndecodable, 0},
		{"8-bit wav", "audio/wav", testkit.WAV(8000, 1, 8, make([]byte, 8000)), task.ErrUndecodable, 0},
		{"streamed wav header", "audio/wav", streamed, "", 0.5},
		{"pcm, rate from content type", "audio/pcm; rate=16000", pcmBytes(tone(16000, 1, 0.5)), "", 1},
		{"pcm, engine default rate", "audio/pcm", pcmBytes(tone(24000, 1, 0.5)), "", 1},
	} {
		text, _, err := task.TTS.Decode(nil, c.ct, c.body)
		if err != nil {
			t.Fatal(err)
		}
		_, class, msg := task.TTS.Score(text)
		a := facts(t, text)
		if class != c.class || a.Seconds != c.seconds {
			t.Errorf("%s: class %q (%s), %v s; want %q, %v s; facts %s", c.name, class, msg, a.Seconds, c.class, c.seconds, text)
		}
	}
	text, _, _ := task.TTS.Decode(nil, "audio/pcm", pcmBytes(tone(24000, 1, 0.5)))
	if a := facts(t, text); !strings.Contains(a.RateFrom, "engine default") || a.SampleRate != task.DefaultPCMRate {
		t.Errorf("raw PCM without a rate: %+v, want the engine default said so", a)
	}
	// A record's text that is not the facts is undecodable, not a success.
	if _, class, _ := task.TTS.Score("hello"); class != task.ErrUndecodable {
		t.Errorf("Score(hello) class %q", class)
	}
}

func scale(s []int16, f float64) []int16 {
	for i := range s {
		s[i] = int16(float64(s[i]) * f)
	}
	return s
}

type cutReader struct {
	b   []byte
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, c.err
	}
	n := copy(p, c.b)
	c.b = c.b[n:]
	return n, nil
}

// TestTTSStream: the first output is the first non-empty bytes, a whole
// stream is measured as raw PCM at the default rate, and a cut one is a
// stream_truncated failure with no output.
func TestTTSStream(t *testing.T) {
	if !task.TTS.IsStream("audio/pcm") || task.TTS.IsStream("audio/mpeg") {
		t.Fatal("IsStream")
	}
	pcm := pcmBytes(tone(24000, 0.5, 0.5))
	calls := 0
	text, _, err := task.TTS.DecodeStream(bufio.NewReader(bytes.NewReader(pcm)), func() { calls++ })
	if err != nil || calls != 1 {
		t.Fatal(err, calls)
	}
	if a := facts(t, text); a.Seconds != 0.5 || a.Format != "pcm" || a.Stream != task.StreamRaw {
		t.Fatalf("%+v", a)
	}
	calls = 0
	text, _, err = task.TTS.DecodeStream(bufio.NewReader(bytes.NewReader(nil)), func() { calls++ })
	if _, class, _ := task.TTS.Score(text); err != nil || calls != 0 || class != task.ErrTooShort {
		t.Fatalf("empty stream: %v, %d first outputs, class %q", err, calls, class)
	}
	text, _, err = task.TTS.DecodeStream(bufio.NewReader(&cutReader{pcm, io.ErrUnexpectedEOF}), func() {})
	var se *task.StreamError
	if !errors.As(err, &se) || se.Class != schemas.ErrStreamTruncated || text != "" {
		t.Fatalf("cut stream: %q, %v", text, err)
	}
}

// TestTTSEnvelope: the body of each variant is valid JSON whose
// ref_audio is a data URL of that variant's WAV (its SHA-256 the
// variant's), every variant's differs, and the item's text, voice and
// reference text are members.
func TestTTSEnvelope(t *testing.T) {
	wav := testkit.NoiseWAV(1, 4)
	in, err := task.TTS.Input("ref.wav", wav)
	if err != nil {
		t.Fatal(err)
	}
	es, err := task.TTS.Envelope(task.Target{Model: "m", Fields: map[string]string{"response_format": "wav", "task_type": "Base"}})
	if err != nil {
		t.Fatal(err)
	}
	env, err := es.For(task.Item{ID: "a", Speak: `say "hi"`, Text: "ref words", Voice: "vivian"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, i := range []int64{0, 1, 4000, in.Positions() - 1} {
		v, err := in.Variant(i)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.Write(env.Prefix)
		in.Splice(v).WriteTo(&b)
		b.Write(env.Suffix)
		var body map[string]string
		if err := json.Unmarshal(b.Bytes(), &body); err != nil {
			t.Fatalf("body %q: %v", b.String()[:200], err)
		}
		if body["model"] != "m" || body["input"] != `say "hi"` || body["voice"] != "vivian" || body["ref_text"] != "ref words" || body["task_type"] != "Base" {
			t.Fatalf("body members %v", body)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(body["ref_audio"], "data:audio/wav;base64,"))
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(raw) != v.SHA256 || bytes.Equal(raw, wav) || seen[body["ref_audio"]] {
			t.Fatalf("variant %d: the reference sent is not the variant's, or is the clip's, or repeats", i)
		}
		seen[body["ref_audio"]] = true
	}
	if _, err := task.TTS.Envelope(task.Target{Fields: map[string]string{"ref_audio": "x"}}); err == nil {
		t.Fatal("a target field ref_audio was accepted")
	}
	if _, err := es.For(task.Item{ID: "b"}); err == nil {
		t.Fatal("an item without text was accepted")
	}
}

// TestTTSCorpus reads the three text corpus forms, refuses an empty line
// naming it, and takes an item without a reference clip as a named-voice
// item without input (TestTTSNoReference), refusing one with a ref_text.
func TestTTSCorpus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("ref.wav", string(testkit.NoiseWAV(1.5, 2)))
	jl := write("c.jsonl", `{"id":"a","text":"Hello there.","language":"English","voice":"vivian","ref_audio":"ref.wav","ref_text":"noise"}`+"\n"+`{"id":"b","text":"Second."}`+"\n")
	items, err := task.LoadTextCorpus(jl)
	if err != nil || len(items) != 2 || items[0].RefAudio != filepath.Join(dir, "ref.wav") || items[0].Voice != "vivian" || items[1].Line != 2 {
		t.Fatalf("%+v %v", items, err)
	}
	clips, err := task.TTS.LoadCorpus(jl)
	if err != nil || len(clips) != 2 || clips[0].NoInput() || !clips[1].NoInput() || clips[1].Source != jl+":2" || clips[1].Speak != "Second." {
		t.Fatalf("an item without a reference: %+v %v", clips, err)
	}
	_, err = task.TTS.LoadCorpus(write("reftext.jsonl", `{"id":"r","text":"x","voice":"vivian","ref_text":"n"}`+"\n"))
	if err == nil || !strings.Contains(err.Error(), "reftext.jsonl:1: ref_text without ref_audio") {
		t.Fatalf("a ref_text without its clip: %v", err)
	}
	// Bad references, each refused naming its line and file, all at once.
	write("short.wav", string(testkit.NoiseWAV(0.5, 2)))
	write("long.wav", string(testkit.NoiseWAV(31, 2)))
	write("ref.mp3", "ID3\x03\x00\x00\x00\x00\x00\x00 not a wav")
	bad := write("bad.jsonl", `{"id":"s","text":"x","ref_audio":"short.wav","ref_text":"n"}`+"\n"+
		`{"id":"l","text":"x","ref_audio":"long.wav","ref_text":"n"}`+"\n"+`{"id":"m","text":"x","ref_audio":"ref.mp3","ref_text":"n"}`+"\n")
	_, err = task.TTS.LoadCorpus(bad)
	for _, want := range []string{"bad.jsonl:1: reference clip " + filepath.Join(dir, "short.wav") + " is 0.50 s", "bad.jsonl:2: reference clip " + filepath.Join(dir, "long.wav") + " is 31.00 s", "outside 1-30 s", "bad.jsonl:3", "ref.mp3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad references: %v; want %q", err, want)
		}
	}
	lst := write("meta.lst", "u1|noise words|ref.wav|Speak this text.\n")
	clips, err = task.TTS.LoadCorpus(lst)
	if err != nil || len(clips) != 1 || clips[0].Speak != "Speak this text." || clips[0].Text != "noise words" || clips[0].WAV == nil {
		t.Fatalf("%+v %v", clips, err)
	}
	txt := write("lines.txt", "One.\nTwo.\n\nFour.\n")
	_, err = task.LoadTextCorpus(txt)
	if err == nil || !strings.Contains(err.Error(), "lines.txt:3: empty line") {
		t.Fatalf("empty line: %v", err)
	}
	items, err = task.LoadTextCorpus(write("ok.txt", "One.\nTwo.\n"))
	if err != nil || len(items) != 2 || items[1].ID != "2" || items[1].Text != "Two." {
		t.Fatalf("%+v %v", items, err)
	}
}
