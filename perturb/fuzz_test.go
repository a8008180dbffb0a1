package perturb

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"
)

// FuzzParse feeds the chunk walker damaged files. It must never panic or
// read out of bounds, and whatever it accepts must make exact variants.
func FuzzParse(f *testing.F) {
	var seeds int
	for _, v := range goodVectors() {
		f.Add(v.file)
		seeds++
	}
	for _, v := range badVectors() {
		f.Add(v.file)
		seeds++
	}
	if seeds == 0 {
		f.Fatal("no seed vectors")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		w, err := Parse("fuzz.wav", b)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.File != "fuzz.wav" {
				t.Fatalf("error %v is not an *Error naming the file", err)
			}
			return
		}
		n := int64(len(b))
		if w.DataOffset < 12 || w.DataSize <= 0 || w.DataOffset+w.DataSize > n || w.DataSize%int64(w.Format.BlockAlign) != 0 {
			t.Fatalf("data [%d, +%d) in a %d-byte file, block align %d", w.DataOffset, w.DataSize, n, w.Format.BlockAlign)
		}
		for _, c := range w.Chunks {
			if c.Offset < 12 || c.Offset+8+c.Size > n {
				t.Fatalf("chunk %+v outside the file", c)
			}
		}
		for _, i := range []int64{0, w.Samples() / 2, w.Samples() - 1} {
			v, err := w.Variant(i)
			if errors.Is(err, ErrNotFinite) {
				continue
			}
			if err != nil {
				t.Fatalf("Variant(%d): %v", i, err)
			}
			var buf bytes.Buffer
			if _, err := w.Splice(v).WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			out := buf.Bytes()
			diff := 0
			for j := range out {
				if out[j] != orig[j] {
					diff++
				}
			}
			if len(out) != len(orig) || diff != 1 || out[v.ByteOffset] == orig[v.ByteOffset] || v.SHA256 != sha256.Sum256(out) {
				t.Fatalf("Variant(%d) is not a one-byte change: %d bytes differ", i, diff)
			}
		}
		if !bytes.Equal(b, orig) {
			t.Fatal("Parse or Variant changed the input")
		}
	})
}
