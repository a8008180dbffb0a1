package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/perturb"
)

func TestLoadCorpusFolder(t *testing.T) {
	dir := t.TempDir()
	a, b := makeWAV(t, 16000, 0.5, 0), makeWAV(t, 16000, 0.25, 1)
	os.WriteFile(filepath.Join(dir, "a.wav"), a, 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello there\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.WAV"), b, 0o644) // no reference: empty text
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("ignored"), 0o644)
	clips, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || !bytes.Equal(clips[0].Audio, a) || clips[0].Text != "hello there" || !bytes.Equal(clips[1].Audio, b) || clips[1].Text != "" {
		t.Errorf("loaded %d clips: %q %q", len(clips), clips[0].Text, clips[1].Text)
	}
}

func TestLoadCorpusManifest(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "wav"), 0o755)
	a := makeWAV(t, 8000, 0.5, 0)
	os.WriteFile(filepath.Join(dir, "wav", "a.wav"), a, 0o644)
	manifest := filepath.Join(dir, "m.jsonl")
	os.WriteFile(manifest, []byte(`{"id":"a","audio":"wav/a.wav","text":"one two"}`+"\n\n"), 0o644)
	clips, err := LoadCorpus(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 1 || clips[0].Text != "one two" || !bytes.Equal(clips[0].Audio, a) {
		t.Errorf("clips = %+v", clips)
	}
}

func TestLoadCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	cases := []struct {
		path string
		line int
		want string
	}{
		{write("bad.jsonl", "\n[1,2]\n"), 2, "not a JSON object"},
		{write("noaudio.jsonl", `{"id":"x","text":"t"}`), 1, `missing "audio"`},
		{write("blank.jsonl", "\n \n"), 0, "no clips found"},
		{write("missing.jsonl", `{"audio":"gone.wav"}`), 0, "no such file"},
		{filepath.Dir(write("notwav/x.wav", "plain text")), 0, "not a RIFF/WAVE file"},
		{filepath.Join(dir, "nothing-here"), 0, "no such file"},
	}
	for _, c := range cases {
		_, err := LoadCorpus(c.path)
		var ce *CorpusError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want *CorpusError", c.path, err)
			continue
		}
		if ce.Line != c.line || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v (line %d), want line %d and %q", c.path, err, ce.Line, c.line, c.want)
		}
	}
	if _, err := LoadCorpus(filepath.Join(dir, "blank.jsonl")); !errors.Is(err, ErrEmptyCorpus) {
		t.Errorf("empty manifest: %v, want ErrEmptyCorpus", err)
	}
}

func FuzzParseManifest(f *testing.F) {
	seeds := []string{
		`{"id":"a","audio":"a.wav","text":"one two"}` + "\n",
		"\n" + `{"audio":"x.wav"}` + "\n" + `{"id":"b","audio":"b.wav","text":"x","language":"en"}`,
		`{"id":"a"}`,
		"[1]",
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseManifest("m.jsonl", bytes.NewReader(b))
		if err != nil {
			var ce *CorpusError
			if !errors.As(err, &ce) || ce.Path != "m.jsonl" {
				t.Fatalf("error %v does not name the manifest", err)
			}
			return
		}
		if len(entries) == 0 {
			t.Fatal("no entries and no error")
		}
		for _, e := range entries {
			if e.Audio == "" {
				t.Fatal("entry without audio accepted")
			}
		}
	})
}

// FuzzTranscriptionRequest feeds arbitrary multipart bodies to the
// handler: it must answer 200 or a 4xx error JSON, never panic or 5xx.
func FuzzTranscriptionRequest(f *testing.F) {
	clip := makeWAV(f, 8000, 0.01, 0)
	srv, err := New(Config{Corpus: []Clip{{Audio: clip, Text: "hi"}}})
	if err != nil {
		f.Fatal(err)
	}
	seeds := [][]string{
		{"model", DefaultModel, "response_format", "verbose_json"},
		{"stream", "true"},
		{"response_format", "text", "language", "en", "temperature", "0.2"},
	}
	for _, fields := range seeds {
		body, ct := form(f, clip, fields...)
		b, _ := io.ReadAll(body)
		f.Add(b, strings.TrimPrefix(ct, "multipart/form-data; boundary="))
	}
	f.Add([]byte("--x\r\n\r\n--x--"), "x")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		req := httptest.NewRequest("POST", "/v1/audio/transcriptions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 200 && (rec.Code < 400 || rec.Code > 499) {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}

// TestRecognisesPerturbVariants cross-checks recognition with the variants
// the runner really sends: perturb's seeded plan and splices.
func TestRecognisesPerturbVariants(t *testing.T) {
	clips := testCorpus(t)
	if path, err := exec.LookPath("sox"); err == nil {
		// A 24-bit stereo clip made by sox, if it is installed.
		out := filepath.Join(t.TempDir(), "s.wav")
		if err := exec.Command(path, "-n", "-r", "22050", "-c", "2", "-b", "24", out, "synth", "0.3", "sine", "300").Run(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		clips = append(clips, Clip{Audio: b, Text: "sox made this"})
	}
	_, ts := newTestServer(t, Config{Corpus: clips, Cache: true})
	plan := perturb.Plan{Seed: 11}
	for _, c := range clips {
		w, err := perturb.Parse("clip", c.Audio)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(c.Audio)
		for n := range int64(4) {
			idx, err := plan.Index(sum, w.Samples(), n)
			if err != nil {
				t.Fatal(err)
			}
			v, err := w.Variant(idx)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w.Splice(v).WriteTo(&buf)
			_, body := post(t, context.Background(), ts.URL, buf.Bytes())
			if got := textOf(t, body); got != c.Text {
				t.Errorf("variant %d of %q answered %q", idx, c.Text, got)
			}
		}
	}
	if h := value(t, scrape(t, ts.URL), "vllm:mm_cache_hits_total"); h != 0 {
		t.Errorf("distinct variants hit the cache %v times", h)
	}
}

// A body with two files is refused, not read twice: each file read
// allocates the body's length.
func TestTwoFilesRefused(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	clip := makeWAV(t, 8000, 0.01, 0)
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for range 2 {
		fw, _ := mw.CreateFormFile("file", "a.wav")
		fw.Write(clip)
	}
	mw.Close()
	req := httptest.NewRequest("POST", "/v1/audio/transcriptions", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "more than one") {
		t.Errorf("two files: %d %s", rec.Code, rec.Body)
	}
}
