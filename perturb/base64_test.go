package perturb

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// TestBase64Splice: the base64 view of every variant of a few WAVs is the
// base64 of the whole variant, and shares all of Text but the changed group.
func TestBase64Splice(t *testing.T) {
	for _, v := range goodVectors() {
		w, err := Parse(v.name, v.file)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBase64(w.Bytes)
		if want := base64.StdEncoding.EncodeToString(w.Bytes); string(b.Text) != want {
			t.Fatalf("%s: Text is not the file's base64", v.name)
		}
		for i := range min(w.Samples(), 40) {
			vr, err := w.Variant(i)
			if err != nil {
				t.Fatal(err)
			}
			s := w.Splice(vr)
			got := materialise(t, b.Splice(s))
			if want := base64.StdEncoding.EncodeToString(materialise(t, s)); string(got) != want {
				t.Fatalf("%s sample %d: base64 splice differs from base64 of the variant", v.name, i)
			}
			bs := b.Splice(s)
			if len(bs.Mid) != 4 || int64(len(bs.Head)) != vr.ByteOffset/3*4 {
				t.Errorf("%s sample %d: %d characters re-encoded from %d, want 4 from %d", v.name, i, len(bs.Mid), len(bs.Head), vr.ByteOffset/3*4)
			}
		}
	}
}

// TestBase64SpliceWidths: a change of any width, at every offset of files
// of every length mod 3, re-encodes only the groups it touches.
func TestBase64SpliceWidths(t *testing.T) {
	for n := 1; n <= 11; n++ {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*37 + 1)
		}
		b := NewBase64(src)
		for off := range n {
			for w := 0; off+w <= n; w++ {
				mid := bytes.Repeat([]byte{0xA5}, w)
				s := Splice{Head: src[:off:off], Mid: mid, Tail: src[off+w:]}
				checkBase64(t, b, s)
			}
		}
	}
}

func checkBase64(t *testing.T, b *Base64, s Splice) {
	t.Helper()
	var whole bytes.Buffer
	s.WriteTo(&whole)
	bs := b.Splice(s)
	var got bytes.Buffer
	bs.WriteTo(&got)
	if want := base64.StdEncoding.EncodeToString(whole.Bytes()); got.String() != want {
		t.Fatalf("change of %d at %d in %d bytes: %q, want %q", len(s.Mid), len(s.Head), s.Len(), got.String(), want)
	}
	if len(s.Mid) > 0 {
		if g := (len(s.Head)+len(s.Mid)+2)/3 - len(s.Head)/3; len(bs.Mid) != 4*g {
			t.Fatalf("change of %d at %d: %d characters re-encoded, want %d", len(s.Mid), len(s.Head), len(bs.Mid), 4*g)
		}
	}
}

// FuzzBase64Splice: for any file and any one-sample variant, the base64
// splice equals the base64 of the whole perturbed WAV.
func FuzzBase64Splice(f *testing.F) {
	for _, v := range goodVectors() {
		f.Add(v.file, uint32(0))
		f.Add(v.file, uint32(7))
	}
	f.Fuzz(func(t *testing.T, file []byte, idx uint32) {
		w, err := Parse("f.wav", file)
		if err != nil || w.Samples() == 0 {
			return
		}
		vr, err := w.Variant(int64(idx) % w.Samples())
		if err != nil {
			return
		}
		checkBase64(t, NewBase64(w.Bytes), w.Splice(vr))
	})
}

// TestBase64SpliceForeign: a splice of another file is refused.
func TestBase64SpliceForeign(t *testing.T) {
	b := NewBase64([]byte("abcdef"))
	other := []byte("abcdef")
	defer func() {
		if recover() == nil {
			t.Error("a splice of another file was accepted")
		}
	}()
	b.Splice(Splice{Head: other[:2], Mid: []byte{'x'}, Tail: other[3:]})
}
