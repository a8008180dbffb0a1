package perturb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// decode reads sample i of a vector's file the long way: the container as a
// little-endian integer, sign-extended unless 8-bit, divided by 2^(C-V).
func decode(v vector, file []byte, i int64) float64 {
	cb := int64(v.format.BitsPerSample / 8)
	s := file[v.dataAt+i*cb : v.dataAt+(i+1)*cb]
	if v.format.Kind == KindFloat {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(s)))
	}
	var u int64
	for j := len(s) - 1; j >= 0; j-- {
		u = u<<8 | int64(s[j])
	}
	c := uint(v.format.BitsPerSample)
	if c > 8 && u >= 1<<(c-1) {
		u -= 1 << c
	}
	return math.Floor(float64(u) / float64(int64(1)<<uint(v.format.BitsPerSample-v.format.ValidBits)))
}

func materialise(t *testing.T, s Splice) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := s.WriteTo(&buf)
	if err != nil || n != s.Len() || int64(buf.Len()) != s.Len() {
		t.Fatalf("WriteTo = %d, %v; Len %d, wrote %d", n, err, s.Len(), buf.Len())
	}
	return buf.Bytes()
}

func TestParseVectors(t *testing.T) {
	for _, v := range goodVectors() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w, err := Parse(v.name, v.file)
			if err != nil {
				t.Fatal(err)
			}
			if w.Format != v.format {
				t.Errorf("format = %+v, want %+v", w.Format, v.format)
			}
			if w.DataOffset != v.dataAt {
				t.Errorf("data offset = %d, want %d", w.DataOffset, v.dataAt)
			}
			if w.Frames() != v.frames || w.Samples() != v.frames*int64(v.format.Channels) {
				t.Errorf("frames, samples = %d, %d, want %d frames", w.Frames(), w.Samples(), v.frames)
			}
			if w.DataSize != v.frames*int64(v.format.BlockAlign) {
				t.Errorf("data size = %d, want whole frames %d", w.DataSize, v.frames*int64(v.format.BlockAlign))
			}
			if got := w.Seconds(); got != float64(v.frames)/float64(v.format.SampleRate) {
				t.Errorf("seconds = %v", got)
			}
			var ids []string
			for _, c := range w.Chunks {
				ids = append(ids, c.ID)
				if c.Offset+8+c.Size > int64(len(v.file)) {
					t.Errorf("chunk %+v past the end", c)
				}
			}
			if !reflect.DeepEqual(ids, v.chunks) {
				t.Errorf("chunks = %q, want %q", ids, v.chunks)
			}
		})
	}
}

// TestVariantVectors checks every sample of every vector byte for byte: one
// byte differs, at the offset the format says, and the value moved by one
// LSB (one ULP for float).
func TestVariantVectors(t *testing.T) {
	for _, v := range goodVectors() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			orig := bytes.Clone(v.file)
			w, err := Parse(v.name, v.file)
			if err != nil {
				t.Fatal(err)
			}
			cb := int64(v.format.BitsPerSample / 8)
			lsbByte := int64(v.format.BitsPerSample-v.format.ValidBits) / 8
			for i := range w.Samples() {
				vr, err := w.Variant(i)
				if err != nil {
					t.Fatalf("Variant(%d): %v", i, err)
				}
				out := materialise(t, w.Splice(vr))
				if len(out) != len(orig) {
					t.Fatalf("variant %d has %d bytes, want %d", i, len(out), len(orig))
				}
				var diff []int
				for j := range out {
					if out[j] != orig[j] {
						diff = append(diff, j)
					}
				}
				want := v.dataAt + i*cb + lsbByte
				if len(diff) != 1 || int64(diff[0]) != want || vr.ByteOffset != want || vr.SampleIndex != i {
					t.Fatalf("sample %d: bytes differing %v, offset %d, want exactly [%d]", i, diff, vr.ByteOffset, want)
				}
				if bits.OnesCount8(out[want]^orig[want]) != 1 {
					t.Fatalf("sample %d: byte %02x -> %02x flips more than one bit", i, orig[want], out[want])
				}
				old, nw := decode(v, orig, i), decode(v, out, i)
				if old != vr.OldValue || nw != vr.NewValue {
					t.Fatalf("sample %d: values %v -> %v, decoded %v -> %v", i, vr.OldValue, vr.NewValue, old, nw)
				}
				if v.format.Kind == KindPCM {
					if math.Abs(nw-old) != 1 {
						t.Fatalf("sample %d: %v -> %v is not one LSB", i, old, nw)
					}
				} else {
					o, n := float32(old), float32(nw)
					if math.Nextafter32(o, n) != n && !(o == 0 && n == 0) {
						t.Fatalf("sample %d: %g -> %g is not one ULP", i, o, n)
					}
					if d := int64(math.Float32bits(n)) - int64(math.Float32bits(o)); d != 1 && d != -1 {
						t.Fatalf("sample %d: bits %08x -> %08x", i, math.Float32bits(o), math.Float32bits(n))
					}
				}
				if vr.SHA256 != sha256.Sum256(out) {
					t.Fatalf("sample %d: SHA-256 does not match the variant's bytes", i)
				}
				if err := iotest.TestReader(w.Splice(vr).Reader(), out); err != nil {
					t.Fatalf("sample %d: Reader: %v", i, err)
				}
				got, err := io.ReadAll(iotest.OneByteReader(w.Splice(vr).Reader()))
				if err != nil || !bytes.Equal(got, out) {
					t.Fatalf("sample %d: one-byte reads differ (%v)", i, err)
				}
				var viaCopy bytes.Buffer
				if n, err := io.Copy(&viaCopy, w.Splice(vr).Reader()); err != nil || n != int64(len(out)) || !bytes.Equal(viaCopy.Bytes(), out) {
					t.Fatalf("sample %d: io.Copy of Reader: %d, %v", i, n, err)
				}
			}
			if !bytes.Equal(v.file, orig) {
				t.Fatal("making variants changed the clip")
			}
		})
	}
}

// TestVariantEdgeValues pins the values perturb/doc.go names: the flip never
// overflows.
func TestVariantEdgeValues(t *testing.T) {
	vs := map[string]vector{}
	for _, v := range goodVectors() {
		vs[v.name] = v
	}
	cases := []struct {
		vector   string
		index    int64
		old, new float64
	}{
		{"pcm16-mono", 0, 32767, 32766},
		{"pcm16-mono", 1, -32768, -32767},
		{"pcm16-mono", 2, 0, 1},
		{"pcm16-mono", 3, -1, -2},
		{"pcm8-mono", 0, 0, 1},
		{"pcm8-mono", 1, 255, 254},
		{"pcm24-mono", 0, 0x7FFFFF, 0x7FFFFE},
		{"pcm24-mono", 1, -0x800000, -0x7FFFFF},
		{"pcm32-stereo", 0, math.MaxInt32, math.MaxInt32 - 1},
		{"pcm32-stereo", 1, math.MinInt32, math.MinInt32 + 1},
		{"ext-pcm24in32", 0, 0x7FFFFF, 0x7FFFFE},
		{"ext-pcm24in32", 1, -0x800000, -0x7FFFFF},
		{"ext-pcm20in24", 1, -0x80000, -0x7FFFF},
		{"pcm12in16", 0, 2047, 2046},
		{"float32-mono", 0, 0, math.SmallestNonzeroFloat32},
		{"float32-mono", 4, math.MaxFloat32, float64(math.Nextafter32(math.MaxFloat32, 0))},
		{"float32-mono", 6, math.SmallestNonzeroFloat32, 0},
	}
	for _, c := range cases {
		w, err := Parse(c.vector, vs[c.vector].file)
		if err != nil {
			t.Fatal(err)
		}
		vr, err := w.Variant(c.index)
		if err != nil {
			t.Fatal(err)
		}
		if vr.OldValue != c.old || vr.NewValue != c.new {
			t.Errorf("%s[%d]: %v -> %v, want %v -> %v", c.vector, c.index, vr.OldValue, vr.NewValue, c.old, c.new)
		}
	}
	// 24-in-32 flips bit 8: byte 1 of the sample, bit 0.
	w, _ := Parse("x", vs["ext-pcm24in32"].file)
	vr, _ := w.Variant(2)
	if vr.ByteOffset != w.DataOffset+2*4+1 || vr.Byte != w.Bytes[vr.ByteOffset]^1 {
		t.Errorf("24-in-32: changed byte at %d (%02x), want bit 0 of byte %d", vr.ByteOffset, vr.Byte, w.DataOffset+9)
	}
}

// badVector is a damaged file and the reason Parse or Variant must give.
type badVector struct {
	name  string
	file  []byte
	index int64 // for Variant; -2: Parse must fail
	is    error // errors.Is target, or nil when as is set
	as    any   // errors.As target type
	msg   string
}

func badVectors() []badVector {
	le := binary.LittleEndian
	pcm16 := build(spec{tag: 1, channels: 1, container: 16, rate: 16000, samples: []uint64{1, 2, 3}})
	set32 := func(b []byte, off int64, v uint32) []byte {
		b = bytes.Clone(b)
		le.PutUint32(b[off:], v)
		return b
	}
	withFmt := func(p []byte) []byte {
		return build(spec{channels: 1, container: 16, rate: 8000, samples: []uint64{1}, fmtOverride: p}).file
	}
	fmtOf := func(s spec) []byte { return fmtPayload(s) }
	mp3 := fmtOf(spec{tag: 0x0055, channels: 1, container: 16, rate: 16000})
	float64fmt := fmtOf(spec{tag: 3, channels: 1, container: 64, rate: 16000})
	adpcmExt := fmtOf(spec{tag: tagExtensible, sub: 2, channels: 1, container: 16, valid: 16, rate: 16000})
	badAlign := fmtOf(spec{tag: 1, channels: 2, container: 16, rate: 16000})
	le.PutUint16(badAlign[12:], 3)
	nan := build(spec{tag: 3, channels: 1, container: 32, rate: 8000, samples: []uint64{f32(1), 0x7FC00000, 0x7F800000, 0xFF800000}})
	return []badVector{
		{name: "empty", file: nil, index: -2, is: ErrNotRIFF, msg: "empty"},
		{name: "text", file: []byte("hello, world\n"), index: -2, is: ErrNotRIFF, msg: `starts with "hell"`},
		{name: "ogg", file: []byte("OggS\x00\x02"), index: -2, is: ErrNotRIFF},
		{name: "rifx", file: append([]byte("RIFX"), pcm16.file[4:]...), index: -2, is: ErrBigEndian},
		{name: "avi", file: append([]byte("RIFF\x04\x00\x00\x00AVI "), pcm16.file[12:]...), index: -2, is: ErrNotWAVE},
		{name: "short-header", file: []byte("RIFF\x24\x00"), index: -2, is: ErrTruncated},
		{name: "riff-only", file: set32(pcm16.file[:12], 4, 4), index: -2, is: ErrMalformed, msg: "no fmt chunk"},
		{name: "cut-in-fmt", file: pcm16.file[:30], index: -2, is: ErrTruncated},
		{name: "cut-in-chunk-header", file: pcm16.file[:40], index: -2, is: ErrTruncated},
		{name: "cut-in-data", file: pcm16.file[:len(pcm16.file)-2], index: -2, is: ErrDataPastEnd},
		{name: "streamed-data-size", file: set32(pcm16.file, pcm16.dataAt-4, 0xFFFFFFFF), index: -2, is: ErrDataPastEnd},
		{name: "riff-size-past-end", file: set32(pcm16.file, 4, uint32(len(pcm16.file)+100)), index: -2, is: ErrTruncated, msg: "RIFF header declares"},
		{name: "list-past-end", file: build(spec{tag: 1, channels: 1, container: 16, rate: 8000, samples: []uint64{1},
			after: []rawChunk{{"LIST", []byte("INFO")}}}).file[:54], index: -2, is: ErrTruncated, msg: `"LIST"`},
		{name: "empty-data", file: build(spec{tag: 1, channels: 1, container: 16, rate: 8000}).file, index: -2, is: ErrEmptyData},
		{name: "partial-frame-only", file: build(spec{tag: 1, channels: 2, container: 16, rate: 8000, extraData: []byte{1, 2, 3}}).file, index: -2, is: ErrEmptyData},
		{name: "no-data", file: withoutData(pcm16.file), index: -2, is: ErrMalformed, msg: "no data chunk"},
		{name: "two-fmt", file: build(spec{tag: 1, channels: 1, container: 16, rate: 8000, samples: []uint64{1},
			before: []rawChunk{{"fmt ", fmtOf(spec{tag: 1, channels: 1, container: 16, rate: 8000})}}}).file, index: -2, is: ErrMalformed, msg: "second fmt"},
		{name: "mp3", file: withFmt(mp3), index: -2, as: new(*CompressedError), msg: "compressed format 0x0055 (MPEG Layer 3) is not supported"},
		{name: "ext-adpcm", file: withFmt(adpcmExt), index: -2, as: new(*CompressedError), msg: "0x0002 (Microsoft ADPCM)"},
		{name: "float64", file: withFmt(float64fmt), index: -2, is: ErrUnsupported, msg: "64-bit float"},
		{name: "short-fmt", file: withFmt([]byte{1, 0, 1, 0}), index: -2, is: ErrMalformed, msg: "fmt chunk has 4 bytes"},
		{name: "block-align", file: withFmt(badAlign), index: -2, is: ErrMalformed, msg: "block align 3"},
		{name: "zero-channels", file: withFmt(fmtOf(spec{tag: 1, channels: 0, container: 16, rate: 8000})), index: -2, is: ErrMalformed},
		{name: "index-negative", file: pcm16.file, index: -1, as: new(*IndexError), msg: "sample index -1 out of range [0, 3)"},
		{name: "index-past-end", file: pcm16.file, index: 3, as: new(*IndexError), msg: "sample index 3 out of range [0, 3)"},
		{name: "nan", file: nan.file, index: 1, is: ErrNotFinite, msg: "NaN"},
		{name: "inf", file: nan.file, index: 2, is: ErrNotFinite, msg: "+Inf"},
		{name: "minus-inf", file: nan.file, index: 3, is: ErrNotFinite, msg: "-Inf"},
	}
}

// withoutData renames the data chunk so that the file has none.
func withoutData(b []byte) []byte {
	b = bytes.Clone(b)
	i := bytes.Index(b, []byte("data"))
	copy(b[i:], "DATA")
	return b
}

func TestErrors(t *testing.T) {
	for _, c := range badVectors() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := c.name + ".wav"
			w, err := Parse(file, c.file)
			if c.index != -2 {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				_, err = w.Variant(c.index)
			}
			if err == nil {
				t.Fatal("no error")
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.File != file || !strings.HasPrefix(err.Error(), file+": ") {
				t.Errorf("error %q does not start with the file name", err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q is not %q", err, c.is)
			}
			if c.as != nil && !errors.As(err, c.as) {
				t.Errorf("error %q is not a %T", err, c.as)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

func TestErrorData(t *testing.T) {
	for _, c := range badVectors() {
		switch c.name {
		case "mp3":
			_, err := Parse("a.wav", c.file)
			var ce *CompressedError
			if !errors.As(err, &ce) || ce.Tag != 0x55 || ce.Name != "MPEG Layer 3" {
				t.Errorf("mp3: %#v", ce)
			}
		case "index-past-end":
			w, _ := Parse("a.wav", c.file)
			_, err := w.Variant(3)
			var ie *IndexError
			if !errors.As(err, &ie) || ie.Index != 3 || ie.Samples != 3 {
				t.Errorf("index: %#v", ie)
			}
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	v := goodVectors()[1]
	path := filepath.Join(dir, "a.wav")
	if err := os.WriteFile(path, v.file, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := ReadFile(path)
	if err != nil || w.Name != path || !bytes.Equal(w.Bytes, v.file) {
		t.Fatalf("ReadFile: %v", err)
	}
	missing := filepath.Join(dir, "missing.wav")
	_, err = ReadFile(missing)
	if !errors.Is(err, os.ErrNotExist) || err.Error() != missing+": open: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

func TestSpliceWriteToErrors(t *testing.T) {
	w, _ := Parse("a", goodVectors()[1].file)
	vr, _ := w.Variant(2)
	s := w.Splice(vr)
	for limit := int64(0); limit < s.Len(); limit += 7 {
		lw := &limitWriter{n: limit}
		n, err := s.WriteTo(lw)
		if err == nil || n != limit {
			t.Fatalf("limit %d: WriteTo = %d, %v", limit, n, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Splice of a foreign variant did not panic")
		}
	}()
	w.Splice(Variant{ByteOffset: 3})
}

type limitWriter struct{ n int64 }

func (w *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > w.n {
		n := w.n
		w.n = 0
		return int(n), io.ErrShortWrite
	}
	w.n -= int64(len(p))
	return len(p), nil
}
