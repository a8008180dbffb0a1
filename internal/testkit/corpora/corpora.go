// Package corpora makes small corpora of the layouts people keep, for
// tests: a LibriSpeech folder (FLAC clips with a per-chapter
// *.trans.txt), a Common Voice TSV with MP3 clips, and a Hugging Face
// style Parquet file (an audio struct of bytes and path, a text column).
// FLAC is encoded with github.com/mewkiz/flac's encoder (no tool
// needed); MP3 with the lame command (Debian's lame package, which
// .ci/run installs): without it, MP3 asks the test to skip.
//
// # Imports
//
// It owns the corpus-layout fixtures. Must never import: internal/bench,
// internal/sim, internal/task, verify. Why: the loaders it feeds are
// tested with it and must not be what makes their own inputs.
package corpora

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
	"github.com/parquet-go/parquet-go"
)

// Utterance is one clip of a fixture: its id, reference and samples
// (16-bit mono).
type Utterance struct {
	ID      string
	Text    string
	Rate    int
	Samples []int16
}

// Utterances are n utterances of distinct noise, 0.5 s at 16 kHz, with
// ids prefix-0000, prefix-0001, ... and short references.
func Utterances(prefix string, n int) []Utterance {
	words := []string{"the cat sat on the mat", "a dog ran in the park", "she sells sea shells", "it was a bright cold day"}
	out := make([]Utterance, n)
	for i := range out {
		out[i] = Utterance{ID: fmt.Sprintf("%s-%04d", prefix, i), Text: words[i%len(words)], Rate: 16000,
			Samples: testkit.Noise(uint64(1000+i*7+len(prefix)), 8000)}
	}
	return out
}

// PCM is u's samples as little-endian bytes.
func (u Utterance) PCM() []byte {
	b := make([]byte, 0, 2*len(u.Samples))
	for _, s := range u.Samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// WAV is u as a 16-bit mono WAV.
func (u Utterance) WAV() []byte { return testkit.PCM16(u.Rate, u.Samples) }

// FLAC encodes 16-bit mono samples with mewkiz/flac's encoder (verbatim
// subframes, 4096-sample blocks, STREAMINFO's MD5 and count filled in).
func FLAC(tb testing.TB, rate int, samples []int16) []byte {
	tb.Helper()
	info := &meta.StreamInfo{BlockSizeMin: 4096, BlockSizeMax: 4096, SampleRate: uint32(rate), NChannels: 1, BitsPerSample: 16, NSamples: uint64(len(samples))}
	var buf seekBuffer
	enc, err := flac.NewEncoder(&buf, info)
	if err != nil {
		tb.Fatal(err)
	}
	for off := 0; off < len(samples); off += 4096 {
		n := min(4096, len(samples)-off)
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(samples[off+i])
		}
		f := &frame.Frame{
			Header:    frame.Header{HasFixedBlockSize: true, BlockSize: uint16(n), SampleRate: uint32(rate), Channels: frame.ChannelsMono, BitsPerSample: 16, Num: uint64(off / 4096)},
			Subframes: []*frame.Subframe{{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: s, NSamples: n}},
		}
		if err := enc.WriteFrame(f); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.b
}

// seekBuffer is an in-memory io.WriteSeeker, so that the encoder fills
// in STREAMINFO when it closes.
type seekBuffer struct {
	b   []byte
	off int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if need := s.off + len(p); need > len(s.b) {
		s.b = append(s.b, make([]byte, need-len(s.b))...)
	}
	copy(s.b[s.off:], p)
	s.off += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		s.off = int(off)
	case 1:
		s.off += int(off)
	case 2:
		s.off = len(s.b) + int(off)
	}
	return int64(s.off), nil
}

// Close lets the encoder close its writer.
func (s *seekBuffer) Close() error { return nil }

// MP3 encodes u with lame (mono, 64 kbit/s); the test is skipped without
// lame.
func MP3(tb testing.TB, u Utterance) []byte {
	tb.Helper()
	lame, err := exec.LookPath("lame")
	if err != nil {
		tb.Skip("lame is not installed (apt-get install lame): no MP3 fixture")
	}
	dir := tb.TempDir()
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.mp3")
	if err := os.WriteFile(in, u.WAV(), 0o644); err != nil {
		tb.Fatal(err)
	}
	if b, err := exec.Command(lame, "--quiet", "-m", "m", "-b", "64", in, out).CombinedOutput(); err != nil {
		tb.Fatalf("lame: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func write(tb testing.TB, p string, b []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// LibriSpeech writes utts as LibriSpeech keeps them under dir:
// <speaker>/<chapter>/<id>.flac and <speaker>-<chapter>.trans.txt, ids
// <speaker>-<chapter>-<n> (the utterances' own ids are replaced: the
// first half in chapter 84/121123, the rest in 174/50561). It returns the
// utterances with their LibriSpeech ids and upper-case references, in the
// order a loader reads them.
func LibriSpeech(tb testing.TB, dir string, utts []Utterance) []Utterance {
	tb.Helper()
	chapters := [][2]string{{"174", "50561"}, {"84", "121123"}} // path order: 174 < 84
	var out []Utterance
	for c, ch := range chapters {
		var trans strings.Builder
		for i, u := range utts {
			if (i < len(utts)/2) != (c == 1) {
				continue
			}
			u.ID = fmt.Sprintf("%s-%s-%04d", ch[0], ch[1], i)
			u.Text = strings.ToUpper(u.Text)
			write(tb, filepath.Join(dir, ch[0], ch[1], u.ID+".flac"), FLAC(tb, u.Rate, u.Samples))
			fmt.Fprintf(&trans, "%s %s\n", u.ID, u.Text)
			out = append(out, u)
		}
		write(tb, filepath.Join(dir, ch[0], ch[1], ch[0]+"-"+ch[1]+".trans.txt"), []byte(trans.String()))
	}
	return out
}

// CommonVoice writes utts as a Common Voice release keeps them: dir/
// test.tsv (client_id, path, sentence, up_votes, down_votes, age,
// gender, accents, locale, segment) and dir/clips/<id>.mp3. It returns
// the TSV's path. Skipped without lame.
func CommonVoice(tb testing.TB, dir string, utts []Utterance) string {
	tb.Helper()
	var tsv strings.Builder
	tsv.WriteString("client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccents\tlocale\tsegment\n")
	for _, u := range utts {
		name := "common_voice_en_" + u.ID + ".mp3"
		write(tb, filepath.Join(dir, "clips", name), MP3(tb, u))
		fmt.Fprintf(&tsv, "c0ffee\t%s\t%s\t2\t0\t\t\t\ten\t\n", name, u.Text)
	}
	p := filepath.Join(dir, "test.tsv")
	write(tb, p, []byte(tsv.String()))
	return p
}

// Parquet writes utts as a Hugging Face dataset's Parquet shard: an id
// column, audioCol a struct {bytes, path} holding audio(u) (the file's
// bytes: a FLAC, an MP3, a WAV) and textCol the reference.
func Parquet(tb testing.TB, file, audioCol, textCol string, utts []Utterance, audio func(Utterance) (data []byte, ext string)) {
	tb.Helper()
	audioType := reflect.StructOf([]reflect.StructField{
		{Name: "Bytes", Type: reflect.TypeFor[[]byte](), Tag: `parquet:"bytes"`},
		{Name: "Path", Type: reflect.TypeFor[string](), Tag: `parquet:"path"`},
	})
	rowType := reflect.StructOf([]reflect.StructField{
		{Name: "ID", Type: reflect.TypeFor[string](), Tag: `parquet:"id"`},
		{Name: "Audio", Type: audioType, Tag: reflect.StructTag(`parquet:"` + audioCol + `"`)},
		{Name: "Text", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`parquet:"` + textCol + `"`)},
	})
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(rowType).Interface()))
	for _, u := range utts {
		data, ext := audio(u)
		row := reflect.New(rowType).Elem()
		row.Field(0).SetString(u.ID)
		row.Field(1).Field(0).SetBytes(data)
		row.Field(1).Field(1).SetString(u.ID + "." + ext)
		row.Field(2).SetString(u.Text)
		if err := w.Write(row.Interface()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	write(tb, file, buf.Bytes())
}
