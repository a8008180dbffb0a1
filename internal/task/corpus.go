package task

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/perturb"
)

// Loader reads a task's corpus.
type Loader interface {
	// LoadCorpus reads the corpus at path (a folder, a manifest, one
	// input): its items in run order, or every problem found.
	LoadCorpus(path string) ([]Clip, error)
}

// IndexWAVs hashes every regular .wav, .flac and .mp3 file under dir:
// the file of each SHA-256 (hex). It is the one index by which a replay
// and verify find a run's clips in a folder of audio: a WAV clip by its
// sha256, a decoded clip by its source_sha256 (its .flac or .mp3 file,
// which ReadIndexed decodes again).
func IndexWAVs(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() || !isAudioFile(p) {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[hex.EncodeToString(h.Sum(nil))] = p
		return nil
	})
	return out, err
}

// ReadIndexed reads a file IndexWAVs found: a .wav as it is, a .flac or
// .mp3 decoded to the WAV the corpus loader made of it (the bytes whose
// SHA-256 a decoded clip's sha256 is).
func ReadIndexed(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil || strings.EqualFold(filepath.Ext(p), ".wav") {
		return b, err
	}
	wav, _, err := decodeSource(p, b)
	return wav, err
}

// Clip is one item of a WAV corpus (ASR's, and any task's whose input is
// a clip): the original bytes (parsed, never copied), their SHA-256, the
// reference, and the text a speech request speaks. A tts item without a
// reference clip (a named voice) has no WAV and a zero SHA256: NoInput.
type Clip struct {
	ID       string
	Source   string // where it was read from, as given
	Text     string // reference transcript, "" if none
	Language string
	Speak    string       // the text to speak (SeedTTS meta.lst's target text), "" if none
	Voice    string       // the voice to speak it in (a tts text corpus's), "" if none
	WAV      *perturb.WAV // nil when the item has no input (NoInput)
	SHA256   [32]byte     // of WAV's bytes: what is sent, sealed and perturbed
	// SourceFormat and SourceSHA256 say what a decoded clip was decoded
	// from (SourceFLAC, SourceMP3) and the SHA-256 (hex) of those source
	// bytes (the .flac or .mp3 file, a Parquet cell's audio bytes); both
	// empty for a WAV, which is sent as it is.
	SourceFormat string
	SourceSHA256 string
}

// NoInput says the item has no input to send, so nothing to perturb: a
// tts item without a reference clip, spoken in a named voice. Its
// requests send the same body every time.
func (c *Clip) NoInput() bool { return c.WAV == nil }

// Item is what the task's envelope may say of the clip.
func (c *Clip) Item() Item {
	return Item{ID: c.ID, Text: c.Text, Language: c.Language, Speak: c.Speak, Voice: c.Voice, NoInput: c.NoInput(), Source: c.Source}
}

// CorpusError says which corpus file (and line) is wrong and why.
type CorpusError struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Err  error
}

func (e *CorpusError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, reason(e.Err, e.File))
	}
	return fmt.Sprintf("%s: %s", e.File, reason(e.Err, e.File))
}

// reason is err's message without the file name when err already leads
// with it (perturb's errors, the os package's), so that the message names
// the file once. Only the text changes: Unwrap still returns err itself.
func reason(err error, file string) string {
	switch x := err.(type) {
	case *perturb.Error:
		if x.File == file {
			return x.Err.Error()
		}
	case *fs.PathError:
		if x.Path == file {
			return x.Err.Error()
		}
	}
	return err.Error()
}

func (e *CorpusError) Unwrap() error { return e.Err }

// notExist is fs.ErrNotExist worded for what was expected there ("no such
// directory" for a corpus folder).
type notExist string

func (e notExist) Error() string { return string(e) }
func (e notExist) Unwrap() error { return fs.ErrNotExist }

// CorpusErrors lists every file of a corpus that cannot be used, so that
// one attempt names them all instead of the first.
type CorpusErrors struct {
	Corpus string
	Errs   []*CorpusError
}

func (e *CorpusErrors) Error() string {
	lines := make([]string, len(e.Errs))
	for i, ce := range e.Errs {
		lines[i] = "\n  " + ce.Error()
	}
	return fmt.Sprintf("%s: %d clips cannot be used:%s", e.Corpus, len(e.Errs), strings.Join(lines, ""))
}

func (e *CorpusErrors) Unwrap() []error {
	errs := make([]error, len(e.Errs))
	for i, ce := range e.Errs {
		errs[i] = ce
	}
	return errs
}

// collect gathers the problems of a corpus's clips: nil, the one
// *CorpusError, or *CorpusErrors.
type collect struct {
	corpus string
	errs   []*CorpusError
}

func (c *collect) add(err error) {
	var ce *CorpusError
	if !errors.As(err, &ce) {
		ce = &CorpusError{File: c.corpus, Err: err}
	}
	c.errs = append(c.errs, ce)
}

func (c *collect) err() error {
	switch len(c.errs) {
	case 0:
		return nil
	case 1:
		return c.errs[0]
	}
	return &CorpusErrors{Corpus: c.corpus, Errs: c.errs}
}

// LoadClip reads one WAV file (the one clip loader: every corpus form
// reads its clips through it or readClip). Its reference, if any, is the same-named
// .txt next to it (clip.wav -> clip.txt).
func LoadClip(path string) (Clip, error) {
	c, err := readClip(path, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err != nil {
		return c, err
	}
	c.Text, err = readRef(strings.TrimSuffix(path, filepath.Ext(path)) + ".txt")
	return c, err
}

// LoadWAVCorpus reads a corpus of clips (LoadWAVCorpusWith, the default
// columns).
func LoadWAVCorpus(path string) ([]Clip, error) { return LoadWAVCorpusWith(path, CorpusOptions{}) }

// LoadWAVCorpusWith reads a corpus of clips: a folder of clips (WAV, FLAC
// or MP3, sorted by name, references in same-named .txt files), a
// LibriSpeech folder (any folder with *.trans.txt under it: each line
// "<id> <TRANSCRIPT>", the clip <id>.flac beside it), a JSONL manifest
// (*.jsonl: {"id", "audio" relative to the manifest, "text", "language"}
// per line), a Common Voice TSV (*.tsv with columns path and sentence, the
// clips in clips/ beside it), a Parquet file (*.parquet: o's audio and
// text columns), a SeedTTS meta.lst (*.lst: id|prompt text|prompt
// wav|target text[|...]: the ASR input is the prompt wav, the reference
// its prompt text, Speak its target text) or one WAV. A FLAC is decoded
// losslessly and an MP3 once to the WAV that is sent, sealed and
// perturbed (corpus_decode.go); the clip keeps its source's SHA-256.
func LoadWAVCorpusWith(path string, o CorpusOptions) ([]Clip, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		what := "no such directory"
		switch strings.ToLower(filepath.Ext(path)) {
		case ".jsonl", ".lst", ".wav", ".tsv", ".parquet", ".flac", ".mp3":
			what = "no such file"
		}
		return nil, &CorpusError{File: path, Err: notExist(what)}
	}
	if err != nil {
		return nil, &CorpusError{File: path, Err: err}
	}
	ext := strings.ToLower(filepath.Ext(path))
	if (o.AudioColumn != "" || o.TextColumn != "") && ext != ".parquet" {
		return nil, &CorpusError{File: path, Err: errors.New("--audio-column and --text-column name a Parquet corpus's columns: this is not a .parquet file")}
	}
	var clips []Clip
	switch {
	case st.IsDir():
		var trans []string
		if trans, err = transFiles(path); err != nil {
			return nil, &CorpusError{File: path, Err: err}
		}
		if len(trans) > 0 {
			clips, err = loadLibriSpeech(path, trans)
		} else {
			clips, err = loadFolder(path)
		}
	case ext == ".jsonl":
		clips, err = loadManifest(path)
	case ext == ".lst":
		clips, err = loadSeedTTS(path)
	case ext == ".tsv":
		clips, err = loadCommonVoice(path)
	case ext == ".parquet":
		clips, err = loadParquet(path, o)
	case ext == ".wav" || ext == ".flac" || ext == ".mp3":
		var c Clip
		if c, err = readSourceClip(path, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))); err == nil {
			c.Text, err = readRef(strings.TrimSuffix(path, filepath.Ext(path)) + ".txt")
		}
		clips = []Clip{c}
	default:
		return nil, &CorpusError{File: path, Err: errors.New("not a corpus: want a folder of clips (WAV, FLAC, MP3) or a LibriSpeech folder, a .jsonl manifest, a Common Voice .tsv, a .parquet file, a SeedTTS meta.lst or a .wav file")}
	}
	if err != nil {
		return nil, err
	}
	if len(clips) == 0 {
		return nil, &CorpusError{File: path, Err: errors.New("no clips in the corpus")}
	}
	ids := map[string]string{}
	for _, c := range clips {
		if prev, ok := ids[c.ID]; ok {
			return nil, &CorpusError{File: c.Source, Err: fmt.Errorf("clip id %q is already used by %s", c.ID, prev)}
		}
		ids[c.ID] = c.Source
	}
	return clips, nil
}

// loadSourceClip is LoadClip for any clip file of a folder (WAV, FLAC,
// MP3): the clip, and its reference from the same-named .txt.
func loadSourceClip(path string) (Clip, error) {
	c, err := readSourceClip(path, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err != nil {
		return c, err
	}
	c.Text, err = readRef(strings.TrimSuffix(path, filepath.Ext(path)) + ".txt")
	return c, err
}

func readClip(path, id string) (Clip, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Clip{}, &CorpusError{File: path, Err: notExist("no such file")}
	}
	if err != nil {
		return Clip{}, &CorpusError{File: path, Err: err}
	}
	w, err := perturb.Parse(path, b)
	if err != nil {
		if format, ext := sniffAudio(b); format != "" && errors.Is(err, perturb.ErrNotRIFF) {
			err = &NotWAVError{File: path, Format: format, Ext: ext}
		}
		return Clip{}, &CorpusError{File: path, Err: err}
	}
	if w.Samples() < 1 {
		return Clip{}, &CorpusError{File: path, Err: errors.New("no samples: nothing to send")}
	}
	if id == "" {
		return Clip{}, &CorpusError{File: path, Err: errors.New("empty clip id")}
	}
	return Clip{ID: id, Source: path, WAV: w, SHA256: sha256.Sum256(b)}, nil
}

func readRef(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &CorpusError{File: path, Err: err}
	}
	return strings.TrimSpace(string(b)), nil
}

func loadFolder(dir string) ([]Clip, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &CorpusError{File: dir, Err: err}
	}
	var clips []Clip
	bad := collect{corpus: dir}
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || !isAudioFile(e.Name()) {
			continue
		}
		c, err := loadSourceClip(filepath.Join(dir, e.Name()))
		if err != nil {
			bad.add(err)
			continue
		}
		clips = append(clips, c)
	}
	return clips, bad.err()
}

type manifestLine struct {
	ID       string `json:"id"`
	Audio    string `json:"audio"`
	Text     string `json:"text"`
	Language string `json:"language"`
}

func loadManifest(path string) ([]Clip, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var clips []Clip
	bad := collect{corpus: path}
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m, err := parseManifestLine(line)
		if err != nil {
			bad.add(&CorpusError{File: path, Line: i + 1, Err: err})
			continue
		}
		c, err := readSourceClip(relTo(path, m.Audio), m.ID)
		if err != nil {
			bad.add(&CorpusError{File: path, Line: i + 1, Err: err})
			continue
		}
		c.Text, c.Language = strings.TrimSpace(m.Text), m.Language
		clips = append(clips, c)
	}
	return clips, bad.err()
}

func parseManifestLine(line []byte) (manifestLine, error) {
	var m manifestLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a manifest line {id, audio, text, language}: %w", err)
	}
	if dec.More() {
		return m, errors.New("more than one JSON value on the line")
	}
	if m.ID == "" || m.Audio == "" {
		return m, errors.New(`"id" and "audio" are required`)
	}
	return m, nil
}

// seedTTSLine is one line of a SeedTTS meta.lst.
type seedTTSLine struct {
	id, text, wav string // the prompt: its id, text and wav
	speak         string // the target text, what a TTS run speaks
}

// parseSeedTTSLine splits id|prompt text|prompt wav|target text[|...].
func parseSeedTTSLine(line string) (seedTTSLine, error) {
	f := strings.Split(strings.TrimRight(line, "\r"), "|")
	if len(f) < 4 {
		return seedTTSLine{}, fmt.Errorf("%d fields, want id|prompt text|prompt wav|target text", len(f))
	}
	l := seedTTSLine{strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2]), strings.TrimSpace(f[3])}
	if l.id == "" || l.wav == "" {
		return seedTTSLine{}, errors.New("empty id or prompt wav")
	}
	return l, nil
}

func loadSeedTTS(path string) ([]Clip, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var clips []Clip
	bad := collect{corpus: path}
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := parseSeedTTSLine(string(line))
		if err != nil {
			bad.add(&CorpusError{File: path, Line: i + 1, Err: err})
			continue
		}
		if filepath.Ext(l.wav) == "" {
			l.wav += ".wav"
		}
		c, err := readClip(relTo(path, l.wav), l.id)
		if err != nil {
			bad.add(&CorpusError{File: path, Line: i + 1, Err: err})
			continue
		}
		c.Text, c.Speak = l.text, l.speak
		clips = append(clips, c)
	}
	return clips, bad.err()
}

func readLines(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &CorpusError{File: path, Err: err}
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, slices.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		return nil, &CorpusError{File: path, Line: len(lines) + 1, Err: err}
	}
	return lines, nil
}

// relTo resolves a path named in a manifest relative to the manifest.
func relTo(manifest, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(manifest), p)
}
