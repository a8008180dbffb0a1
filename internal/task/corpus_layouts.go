package task

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/perturb"
	"github.com/parquet-go/parquet-go"
)

// CorpusOptions are what a corpus layout may need beyond its path: the
// columns of a Parquet corpus (run --audio-column, --text-column).
type CorpusOptions struct {
	// AudioColumn is the Parquet column of the audio: a struct of bytes
	// (the audio file) and path, as Hugging Face datasets' Audio feature
	// stores it, or the bytes alone. Default DefaultAudioColumn.
	AudioColumn string
	// TextColumn is the Parquet column of the reference text. Default
	// DefaultTextColumn.
	TextColumn string
}

// The default columns of a Parquet corpus (Hugging Face datasets' names).
const (
	DefaultAudioColumn = "audio"
	DefaultTextColumn  = "text"
)

// decodedClip is a clip whose source bytes (b, read from name) are
// decoded to the WAV benchseal sends (decodeSource): its WAV, SHA256 is
// the WAV's, and SourceSHA256 and SourceFormat say what it was decoded
// from. A WAV source is the clip itself.
func decodedClip(name, id string, b []byte) (Clip, error) {
	wav, format, err := decodeSource(name, b)
	if err != nil {
		return Clip{}, &CorpusError{File: name, Err: err}
	}
	w, err := perturb.Parse(name, wav)
	if err != nil {
		return Clip{}, &CorpusError{File: name, Err: err}
	}
	if w.Samples() < 1 {
		return Clip{}, &CorpusError{File: name, Err: errors.New("no samples: nothing to send")}
	}
	if id == "" {
		return Clip{}, &CorpusError{File: name, Err: errors.New("empty clip id")}
	}
	c := Clip{ID: id, Source: name, WAV: w, SHA256: sha256.Sum256(wav)}
	if format != "" {
		c.SourceFormat, c.SourceSHA256 = format, hexSum(b)
	}
	return c, nil
}

// readSourceClip reads a clip file of any layout: a .wav as readClip does
// (never decoded: a FLAC named .wav is refused, naming its format), a
// .flac or .mp3 decoded (decodedClip).
func readSourceClip(p, id string) (Clip, error) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".flac", ".mp3":
	default:
		return readClip(p, id)
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Clip{}, &CorpusError{File: p, Err: notExist("no such file")}
	}
	if err != nil {
		return Clip{}, &CorpusError{File: p, Err: err}
	}
	return decodedClip(p, id, b)
}

// isAudioFile says a folder's file is a clip: .wav, .flac or .mp3.
func isAudioFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav", ".flac", ".mp3":
		return true
	}
	return false
}

// transFiles are the LibriSpeech transcripts under dir
// (<speaker>/<chapter>/<speaker>-<chapter>.trans.txt), sorted.
func transFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".trans.txt") {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// loadLibriSpeech reads a LibriSpeech folder: every *.trans.txt under it,
// in path order, each line "<utterance id> <TRANSCRIPT>", the clip
// <utterance id>.flac beside it (or .wav), decoded losslessly.
func loadLibriSpeech(dir string, trans []string) ([]Clip, error) {
	var clips []Clip
	bad := collect{corpus: dir}
	for _, tf := range trans {
		lines, err := readLines(tf)
		if err != nil {
			bad.add(err)
			continue
		}
		for i, line := range lines {
			s := strings.TrimSpace(string(line))
			if s == "" {
				continue
			}
			id, text, _ := strings.Cut(s, " ")
			audio := filepath.Join(filepath.Dir(tf), id+".flac")
			if _, err := os.Stat(audio); errors.Is(err, fs.ErrNotExist) {
				if _, werr := os.Stat(filepath.Join(filepath.Dir(tf), id+".wav")); werr == nil {
					audio = filepath.Join(filepath.Dir(tf), id+".wav")
				}
			}
			c, err := readSourceClip(audio, id)
			if err != nil {
				bad.add(&CorpusError{File: tf, Line: i + 1, Err: err})
				continue
			}
			c.Text = strings.TrimSpace(text)
			clips = append(clips, c)
		}
	}
	return clips, bad.err()
}

// loadCommonVoice reads a Common Voice TSV (test.tsv, validated.tsv, ...):
// a header naming at least the columns path and sentence (locale, when
// present, is the clip's language), one clip a line; the clip is
// clips/<path> beside the TSV (Common Voice's layout), else <path>
// beside it. Fields are split on tabs with no quoting, as Common Voice
// writes them (a sentence may hold a quote).
func loadCommonVoice(file string) ([]Clip, error) {
	lines, err := readLines(file)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, &CorpusError{File: file, Err: errors.New("empty TSV")}
	}
	head := strings.Split(strings.TrimRight(string(lines[0]), "\r"), "\t")
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	pathCol, ok1 := col["path"]
	sentCol, ok2 := col["sentence"]
	if !ok1 || !ok2 {
		return nil, &CorpusError{File: file, Line: 1, Err: fmt.Errorf("not a Common Voice TSV: want columns path and sentence, the header has %s", strings.Join(head, ", "))}
	}
	locCol, hasLoc := col["locale"]
	var clips []Clip
	bad := collect{corpus: file}
	for i, line := range lines[1:] {
		s := strings.TrimRight(string(line), "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		f := strings.Split(s, "\t")
		if len(f) <= max(pathCol, sentCol) {
			bad.add(&CorpusError{File: file, Line: i + 2, Err: fmt.Errorf("%d fields, the header has %d", len(f), len(head))})
			continue
		}
		rel := strings.TrimSpace(f[pathCol])
		if rel == "" {
			bad.add(&CorpusError{File: file, Line: i + 2, Err: errors.New("empty path")})
			continue
		}
		audio := relTo(file, filepath.Join("clips", rel))
		if _, err := os.Stat(audio); err != nil {
			if _, err2 := os.Stat(relTo(file, rel)); err2 == nil {
				audio = relTo(file, rel)
			}
		}
		c, err := readSourceClip(audio, strings.TrimSuffix(path.Base(filepath.ToSlash(rel)), filepath.Ext(rel)))
		if err != nil {
			bad.add(&CorpusError{File: file, Line: i + 2, Err: err})
			continue
		}
		c.Text = strings.TrimSpace(f[sentCol])
		if hasLoc && locCol < len(f) {
			c.Language = strings.TrimSpace(f[locCol])
		}
		clips = append(clips, c)
	}
	return clips, bad.err()
}

// loadParquet reads a Parquet file of clips, a Hugging Face dataset's
// shard: the audio column (o.AudioColumn) a struct of bytes, the audio
// file (WAV, FLAC or MP3, decoded as a file of that format is), and
// path, or the bytes alone; the text column (o.TextColumn) the
// reference. A clip's id is the row's id column when the file has one,
// else its audio path without the extension, else row<N>; its source is
// FILE#<row> (0-based) and its source SHA-256 that of the audio bytes.
func loadParquet(file string, o CorpusOptions) ([]Clip, error) {
	audioCol, textCol := o.AudioColumn, o.TextColumn
	if audioCol == "" {
		audioCol = DefaultAudioColumn
	}
	if textCol == "" {
		textCol = DefaultTextColumn
	}
	fh, err := os.Open(file)
	if err != nil {
		return nil, &CorpusError{File: file, Err: err}
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, &CorpusError{File: file, Err: err}
	}
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		return nil, &CorpusError{File: file, Err: fmt.Errorf("not a Parquet file: %w", err)}
	}
	schema := pf.Schema()
	var names []string
	for _, f := range schema.Fields() {
		names = append(names, f.Name())
	}
	columns := strings.Join(names, ", ")
	leaf := func(p ...string) (int, bool) {
		lc, ok := schema.Lookup(p...)
		if !ok || lc.Node == nil || !lc.Node.Leaf() || lc.Node.Repeated() {
			return -1, false
		}
		return lc.ColumnIndex, true
	}
	bytesIx, ok := leaf(audioCol, "bytes")
	pathIx := -1
	if ok {
		if ix, ok := leaf(audioCol, "path"); ok {
			pathIx = ix
		}
	} else if bytesIx, ok = leaf(audioCol); !ok {
		return nil, &CorpusError{File: file, Err: fmt.Errorf("no audio column %q (a struct of bytes and path, or bytes): its columns are %s; name it with --audio-column", audioCol, columns)}
	}
	textIx, ok := leaf(textCol)
	if !ok {
		return nil, &CorpusError{File: file, Err: fmt.Errorf("no text column %q: its columns are %s; name it with --text-column", textCol, columns)}
	}
	idIx, _ := leaf("id")
	r := parquet.NewReader(pf)
	defer r.Close()
	var clips []Clip
	bad := collect{corpus: file}
	buf := make([]parquet.Row, 16)
	for n := 0; ; {
		k, rerr := r.ReadRows(buf)
		for _, row := range buf[:k] {
			var audio []byte
			var apath, text, id string
			hasAudio := false
			for _, v := range row {
				switch v.Column() {
				case bytesIx:
					if !v.IsNull() {
						audio, hasAudio = bytes.Clone(v.ByteArray()), true
					}
				case pathIx:
					if !v.IsNull() {
						apath = string(v.ByteArray())
					}
				case textIx:
					if !v.IsNull() {
						text = string(v.ByteArray())
					}
				case idIx:
					if !v.IsNull() {
						id = valueText(v)
					}
				}
			}
			src := file + "#" + strconv.Itoa(n)
			if id == "" && apath != "" {
				id = strings.TrimSuffix(path.Base(filepath.ToSlash(apath)), path.Ext(apath))
			}
			if id == "" {
				id = fmt.Sprintf("row%d", n)
			}
			n++
			if !hasAudio || len(audio) == 0 {
				bad.add(&CorpusError{File: src, Err: fmt.Errorf("no audio bytes in column %s", audioCol)})
				continue
			}
			c, err := decodedClip(src, id, audio)
			if err != nil {
				bad.add(err)
				continue
			}
			c.Text = strings.TrimSpace(text)
			clips = append(clips, c)
		}
		if rerr != nil {
			break
		}
	}
	return clips, bad.err()
}

// valueText is a Parquet value as an id: a string as it is, a number in
// decimal.
func valueText(v parquet.Value) string {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	case parquet.Int32, parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	}
	return v.String()
}
