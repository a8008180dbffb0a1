package sim

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CorpusError reports a corpus the server cannot load: which file and why.
type CorpusError struct {
	Path string
	Line int // 1-based line of a JSONL manifest; 0 otherwise
	Err  error
}

func (e *CorpusError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *CorpusError) Unwrap() error { return e.Err }

// ErrEmptyCorpus is wrapped by a CorpusError for a folder or manifest
// without a single clip.
var ErrEmptyCorpus = errors.New("no clips found")

// LoadCorpus reads the clips a server should recognise from path: either a
// folder of *.wav files, each with its reference in a same-named .txt (a WAV
// without one is recognised and answered with the empty string), or a JSONL
// manifest with one {"id", "audio", "text"} object per line, audio relative
// to the manifest's folder. The runner has its own, richer loader; this one
// only feeds the simulator.
func LoadCorpus(path string) ([]Clip, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &CorpusError{Path: path, Err: err}
	}
	if fi.IsDir() {
		return loadFolder(path)
	}
	return loadManifest(path)
}

func loadFolder(dir string) ([]Clip, error) {
	wavs, err := filepath.Glob(filepath.Join(dir, "*.[wW][aA][vV]"))
	if err != nil {
		return nil, &CorpusError{Path: dir, Err: err}
	}
	sort.Strings(wavs)
	if len(wavs) == 0 {
		return nil, &CorpusError{Path: dir, Err: ErrEmptyCorpus}
	}
	clips := make([]Clip, 0, len(wavs))
	for _, w := range wavs {
		audio, err := readClipAudio(w)
		if err != nil {
			return nil, err
		}
		txt := strings.TrimSuffix(w, filepath.Ext(w)) + ".txt"
		ref, err := os.ReadFile(txt)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, &CorpusError{Path: txt, Err: err}
		}
		clips = append(clips, Clip{Audio: audio, Text: strings.TrimSpace(string(ref))})
	}
	return clips, nil
}

func loadManifest(path string) ([]Clip, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &CorpusError{Path: path, Err: err}
	}
	defer f.Close()
	entries, err := parseManifest(path, f)
	if err != nil {
		return nil, err
	}
	clips := make([]Clip, 0, len(entries))
	for _, e := range entries {
		audioPath := e.Audio
		if !filepath.IsAbs(audioPath) {
			audioPath = filepath.Join(filepath.Dir(path), audioPath)
		}
		audio, err := readClipAudio(audioPath)
		if err != nil {
			return nil, err
		}
		clips = append(clips, Clip{Audio: audio, Text: e.Text})
	}
	return clips, nil
}

// manifestEntry is one line of a JSONL manifest.
type manifestEntry struct {
	ID    string `json:"id"`
	Audio string `json:"audio"`
	Text  string `json:"text"`
}

// parseManifest reads the JSONL manifest called name; blank lines are
// skipped, every other line must be an object with "audio".
func parseManifest(name string, r io.Reader) ([]manifestEntry, error) {
	var entries []manifestEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e manifestEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, &CorpusError{Path: name, Line: line, Err: fmt.Errorf("not a JSON object: %w", err)}
		}
		if e.Audio == "" {
			return nil, &CorpusError{Path: name, Line: line, Err: errors.New(`missing "audio"`)}
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &CorpusError{Path: name, Line: line + 1, Err: err}
	}
	if len(entries) == 0 {
		return nil, &CorpusError{Path: name, Err: ErrEmptyCorpus}
	}
	return entries, nil
}

func readClipAudio(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &CorpusError{Path: path, Err: err}
	}
	if _, err := parseWAV(b); err != nil {
		return nil, &CorpusError{Path: path, Err: err}
	}
	return b, nil
}

// index recognises a clip from the bytes of a request, even when one byte
// differs (a benchseal variant). A variant has the original's length and
// leaves at least one of the two halves untouched, so each clip is filed
// under the SHA-256 of either half; a candidate is confirmed by counting
// differing bytes.
type index struct {
	byHalf map[halfKey][]int
	clips  []Clip
	keys   [][32]byte // SHA-256 of each clip's original bytes
}

type halfKey struct {
	n    int // length of the whole file
	half int // 0 first, 1 second
	sum  [32]byte
}

// digest is the two half hashes of a body; together with the length they
// identify the bytes, so they double as the cache key.
type digest struct {
	n      int
	h0, h1 [32]byte
}

func digestOf(b []byte) digest {
	m := len(b) / 2
	return digest{n: len(b), h0: sha256.Sum256(b[:m]), h1: sha256.Sum256(b[m:])}
}

func newIndex(clips []Clip) *index {
	ix := &index{byHalf: make(map[halfKey][]int), clips: clips, keys: make([][32]byte, len(clips))}
	for i, c := range clips {
		ix.keys[i] = sha256.Sum256(c.Audio)
		d := digestOf(c.Audio)
		ix.add(halfKey{d.n, 0, d.h0}, i)
		ix.add(halfKey{d.n, 1, d.h1}, i)
	}
	return ix
}

func (ix *index) add(k halfKey, i int) {
	for _, j := range ix.byHalf[k] {
		if j == i {
			return
		}
	}
	ix.byHalf[k] = append(ix.byHalf[k], i)
}

// lookup returns the position of the clip b is, or is a one-byte variant
// of, or -1.
func (ix *index) lookup(b []byte, d digest) int {
	for h, sum := range [2][32]byte{d.h0, d.h1} {
		for _, i := range ix.byHalf[halfKey{d.n, h, sum}] {
			if differAtMostOne(ix.clips[i].Audio, b) {
				return i
			}
		}
	}
	return -1
}

func differAtMostOne(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	// Compare in blocks with bytes.Equal (vectorised); only a block that
	// differs is walked byte by byte.
	const block = 4096
	diff := 0
	for off := 0; off < len(a); off += block {
		end := min(off+block, len(a))
		if bytes.Equal(a[off:end], b[off:end]) {
			continue
		}
		for i := off; i < end; i++ {
			if a[i] != b[i] {
				diff++
				if diff > 1 {
					return false
				}
			}
		}
	}
	return true
}
