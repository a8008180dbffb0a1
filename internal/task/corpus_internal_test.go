package task

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/perturb"
)

// makeWAV is a real 16-bit mono PCM WAV of noise, distinct per seed.
func makeWAV(rate int, seconds float64, seed uint64) []byte {
	return testkit.PCM16(rate, testkit.Noise(seed, int(float64(rate)*seconds)))
}

func TestLoadCorpusSources(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "wavs"), 0o755)
	os.WriteFile(filepath.Join(dir, "wavs", "p1.wav"), makeWAV(16000, 0.1, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "wavs", "p2.wav"), makeWAV(16000, 0.1, 2), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.jsonl"), []byte(
		`{"id": "one", "audio": "wavs/p1.wav", "text": "hello there", "language": "en"}`+"\n\n"+
			`{"id": "two", "audio": "wavs/p2.wav"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "meta.lst"), []byte(
		"u1|prompt one text|wavs/p1|target text\nu2|prompt two|wavs/p2.wav|t2|extra\n"), 0o644)
	m, err := LoadWAVCorpus(filepath.Join(dir, "manifest.jsonl"))
	if err != nil || len(m) != 2 || m[0].ID != "one" || m[0].Text != "hello there" || m[0].Language != "en" || m[1].Text != "" {
		t.Errorf("manifest: %+v %v", m, err)
	}
	s, err := LoadWAVCorpus(filepath.Join(dir, "meta.lst"))
	// The fourth field, what a TTS run speaks, is kept (Speak), the
	// fifth and later are not SeedTTS's.
	if err != nil || len(s) != 2 || s[0].ID != "u1" || s[0].Text != "prompt one text" || s[0].Speak != "target text" || s[1].Speak != "t2" ||
		s[1].SHA256 != m[1].SHA256 || s[0].Item().Speak != "target text" {
		t.Errorf("seedtts: %+v %v", s, err)
	}
	f, err := LoadWAVCorpus(filepath.Join(dir, "wavs"))
	if err != nil || len(f) != 2 || f[0].ID != "p1" || f[1].ID != "p2" {
		t.Errorf("folder: %+v %v", f, err)
	}
}

func TestLoadCorpusErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.wav"), makeWAV(16000, 0.1, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.wav"), []byte("RIFF\x04\x00\x00\x00WAVE"), 0o644)
	for name, tc := range map[string]struct {
		file, body string
		line       int
		want       string
	}{
		"manifest json":  {"m.jsonl", `{"id": "a", "audio": "a.wav"}` + "\n{nope\n", 2, "not a manifest line"},
		"manifest field": {"m.jsonl", `{"id": "a", "audio": "a.wav", "extra": 1}` + "\n", 1, "unknown field"},
		"manifest audio": {"m.jsonl", `{"id": "a", "audio": "missing.wav"}` + "\n", 1, "missing.wav"},
		"manifest dup":   {"m.jsonl", `{"id": "a", "audio": "a.wav"}` + "\n" + `{"id": "a", "audio": "a.wav"}` + "\n", 0, "already used"},
		"seedtts fields": {"meta.lst", "u1|text|a.wav|t\nu2|only two\n", 2, "fields"},
		"not a wav":      {"m.jsonl", `{"id": "a", "audio": "bad.wav"}` + "\n", 1, "bad.wav"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			os.WriteFile(p, []byte(tc.body), 0o644)
			_, err := LoadWAVCorpus(p)
			var ce *CorpusError
			if !errors.As(err, &ce) || ce.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a *CorpusError at line %d mentioning %q", err, tc.line, tc.want)
			}
		})
	}
}

var manifestSeeds = []string{
	`{"id": "one", "audio": "wavs/p1.wav", "text": "hello there", "language": "en"}`,
	`{"id": "two", "audio": "wavs/p2.wav"}`, `{nope`, `{"id": "a", "audio": "a.wav", "extra": 1}`, `{"id":"a","audio":"b"} {}`,
}

func FuzzParseManifestLine(f *testing.F) {
	if len(manifestSeeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range manifestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifestLine(b)
		if err == nil && (m.ID == "" || m.Audio == "") {
			t.Fatalf("accepted %q without id or audio", b)
		}
	})
}

var seedTTSSeeds = []string{"u1|prompt one text|wavs/p1|target text", "u2|p|w.wav|t|extra", "u2|only two", "|a|b|c", "x|y|z|w\r"}

func FuzzParseSeedTTSLine(f *testing.F) {
	if len(seedTTSSeeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seedTTSSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l, err := parseSeedTTSLine(line)
		if err == nil && (l.id == "" || l.wav == "" || strings.Contains(l.id, "|") || strings.Contains(l.speak, "|")) {
			t.Fatalf("accepted %q as %+v", line, l)
		}
	})
}

// Every corpus error names each file once: perturb's and the os package's
// errors already carry the path, and repeating it reads as a bug.
func TestCorpusErrorsNameFileOnce(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "empty.wav")
	os.WriteFile(bad, nil, 0o644)
	os.WriteFile(filepath.Join(dir, "a.wav"), makeWAV(16000, 0.1, 1), 0o644)
	folder := filepath.Join(dir, "folder")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "empty.wav"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "m.jsonl"), []byte(`{"id": "a", "audio": "a.wav"}`+"\n"+`{"id": "e", "audio": "empty.wav"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "missing.jsonl"), []byte(`{"id": "m", "audio": "gone.wav"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "meta.lst"), []byte("u1|t|a.wav|x\nu2|t|empty|x\n"), 0o644)
	for name, tc := range map[string]struct {
		path, want string
		perturb    bool // the cause is a *perturb.Error
	}{
		"single wav":       {bad, bad + ": not a RIFF file: the file is empty", true},
		"folder":           {folder, filepath.Join(folder, "empty.wav") + ": not a RIFF file: the file is empty", true},
		"manifest":         {filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "m.jsonl") + ":2: " + bad + ": not a RIFF file: the file is empty", true},
		"manifest missing": {filepath.Join(dir, "missing.jsonl"), filepath.Join(dir, "missing.jsonl") + ":1: " + filepath.Join(dir, "gone.wav") + ": no such file", false},
		"meta.lst":         {filepath.Join(dir, "meta.lst"), filepath.Join(dir, "meta.lst") + ":2: " + bad + ": not a RIFF file: the file is empty", true},
		"no corpus":        {filepath.Join(dir, "nope"), filepath.Join(dir, "nope") + ": no such directory", false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadWAVCorpus(tc.path)
			var ce *CorpusError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *CorpusError", err)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q\nwant  %q", err, tc.want)
			}
			var pe *perturb.Error
			if errors.As(err, &pe) != tc.perturb {
				t.Errorf("errors.As(*perturb.Error) = %v, want %v", !tc.perturb, tc.perturb)
			}
			if tc.perturb && !errors.Is(err, perturb.ErrNotRIFF) {
				t.Errorf("err = %v, want it to wrap perturb.ErrNotRIFF", err)
			}
			if !tc.perturb && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("err = %v, want it to wrap os.ErrNotExist", err)
			}
		})
	}
}

// A corpus with several bad clips lists every one, each with its reason,
// and names another audio format under a .wav name as such.
func TestCorpusErrorsListEveryBadClip(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.wav"), makeWAV(16000, 0.1, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "b.wav"), []byte("fLaC\x00\x00\x00\x22 rest of a FLAC stream"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.wav"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "d.wav"), []byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x64"), 0o644)
	_, err := LoadWAVCorpus(dir)
	var ces *CorpusErrors
	if !errors.As(err, &ces) || len(ces.Errs) != 3 {
		t.Fatalf("err = %v, want *CorpusErrors of 3", err)
	}
	for i, want := range []string{"b.wav: a FLAC file, not a WAV", "c.wav: not a RIFF file", "d.wav: an MP3 file, not a WAV"} {
		if got := ces.Errs[i].Error(); !strings.Contains(got, want) {
			t.Errorf("clip %d: %q, want %q", i, got, want)
		}
	}
	var nw *NotWAVError
	if !errors.As(err, &nw) || nw.Format != "FLAC" || nw.Ext != "flac" {
		t.Errorf("errors.As(*NotWAVError) = %+v", nw)
	}
	if !strings.Contains(err.Error(), "3 clips cannot be used") {
		t.Errorf("err = %q", err)
	}
}

// TestIndexWAVs: every .wav under a folder, nested ones included, is found
// by its SHA-256; other files are not.
func TestIndexWAVs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	a, b := makeWAV(16000, 0.1, 1), makeWAV(16000, 0.1, 2)
	os.WriteFile(filepath.Join(dir, "a.wav"), a, 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.WAV"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "c.txt"), a, 0o644)
	idx, err := IndexWAVs(dir)
	sa, sb := sha256.Sum256(a), sha256.Sum256(b)
	if err != nil || len(idx) != 2 || idx[hex.EncodeToString(sa[:])] != filepath.Join(dir, "a.wav") || idx[hex.EncodeToString(sb[:])] != filepath.Join(dir, "sub", "b.WAV") {
		t.Errorf("IndexWAVs = %v, %v", idx, err)
	}
	if _, err := IndexWAVs(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing folder was indexed")
	}
}
