package perturb

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// oneByte[b:b+1] is a one-byte slice holding b that costs no allocation:
// writers must not modify what they are given (io.Writer's contract).
var oneByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	return t
}()

// lsb locates the least significant valid bit of a sample within its
// container: valid bits are left-justified, so the LSB sits at bit
// container-valid, counted from bit 0 of the first (little-endian) byte.
func (f Format) lsb() (byteInSample int64, mask byte) {
	pos := f.BitsPerSample - f.ValidBits
	return int64(pos / 8), 1 << (pos % 8)
}

// Variant flips the least significant valid bit of sample index and
// returns the variant with its SHA-256, computed without copying the file.
func (w *WAV) Variant(index int64) (Variant, error) {
	v, err := w.locate(index)
	if err != nil {
		return Variant{}, err
	}
	h := sha256.New()
	s := w.Splice(v)
	h.Write(s.Head)
	h.Write(s.Mid)
	h.Write(s.Tail)
	h.Sum(v.SHA256[:0])
	return v, nil
}

// locate is Variant without the SHA-256: which byte changes, to what, and
// the sample's values.
func (w *WAV) locate(index int64) (Variant, error) {
	if n := w.Samples(); index < 0 || index >= n {
		return Variant{}, &Error{File: w.Name, Err: &IndexError{Index: index, Samples: n}}
	}
	f := w.Format
	size := int64(f.BitsPerSample / 8)
	start := w.DataOffset + index*size
	sample := w.Bytes[start : start+size]
	at, mask := f.lsb()
	v := Variant{SampleIndex: index, ByteOffset: start + at, Byte: sample[at] ^ mask}

	var changed [4]byte
	copy(changed[:], sample)
	changed[at] = v.Byte
	var err error
	if v.OldValue, err = f.value(sample); err != nil {
		return Variant{}, &Error{File: w.Name, Err: fmt.Errorf("sample %d at offset %d: %w", index, start, err)}
	}
	v.NewValue, _ = f.value(changed[:size])
	return v, nil
}

// value decodes one sample: PCM as an integer in valid-bit units (unsigned
// for 8-bit containers, as WAV stores them; signed otherwise), float32 as is.
func (f Format) value(s []byte) (float64, error) {
	if f.Kind == KindFloat {
		x := math.Float32frombits(binary.LittleEndian.Uint32(s))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0, fmt.Errorf("%w: %v", ErrNotFinite, x)
		}
		return float64(x), nil
	}
	shift := uint(f.BitsPerSample - f.ValidBits)
	if len(s) == 1 {
		return float64(s[0] >> shift), nil
	}
	var u uint32
	for i := len(s) - 1; i >= 0; i-- {
		u = u<<8 | uint32(s[i])
	}
	// Move the container's sign bit to bit 31, then shift back arithmetically.
	x := int32(u<<(32-uint(len(s))*8)) >> (32 - uint(len(s))*8 + shift)
	return float64(x), nil
}

// Splice returns the variant's bytes as shared slices around the one byte
// (Mid, a slice of a static table: it allocates nothing).
// It panics if v's byte offset is not inside w, a variant of another file.
func (w *WAV) Splice(v Variant) Splice {
	if v.ByteOffset < w.DataOffset || v.ByteOffset >= w.DataOffset+w.DataSize {
		panic(fmt.Sprintf("perturb: variant byte offset %d is outside the data of %s", v.ByteOffset, w.Name))
	}
	// The full slice expression keeps an append to Head from overwriting
	// the original byte.
	return Splice{Head: w.Bytes[:v.ByteOffset:v.ByteOffset], Mid: oneByte[v.Byte : int(v.Byte)+1 : int(v.Byte)+1], Tail: w.Bytes[v.ByteOffset+1:]}
}

// WriteTo writes the variant's bytes to dst.
func (s Splice) WriteTo(dst io.Writer) (int64, error) {
	var total int64
	for _, p := range [3][]byte{s.Head, s.Mid, s.Tail} {
		n, err := dst.Write(p)
		total += int64(n)
		if err != nil {
			return total, err
		}
		if n != len(p) {
			return total, io.ErrShortWrite
		}
	}
	return total, nil
}

// Reader returns a reader of the variant's bytes that shares them (an HTTP
// request body, say; call Reader again for a retry). It also implements
// io.WriterTo, so io.Copy does not go through a buffer.
func (s Splice) Reader() io.Reader { return &spliceReader{s: s} }

type spliceReader struct {
	s   Splice
	off int64
}

func (r *spliceReader) Read(p []byte) (int, error) {
	var n int
	for len(p) > 0 {
		part, at := r.part()
		if part == nil {
			break
		}
		c := copy(p, part[at:])
		p, n, r.off = p[c:], n+c, r.off+int64(c)
	}
	if n == 0 && r.off >= r.s.Len() {
		return 0, io.EOF
	}
	return n, nil
}

// part returns the part the reader is in and the offset within it, or nil
// at the end.
func (r *spliceReader) part() ([]byte, int64) {
	h, m := int64(len(r.s.Head)), int64(len(r.s.Mid))
	switch {
	case r.off < h:
		return r.s.Head, r.off
	case r.off < h+m:
		return r.s.Mid, r.off - h
	case r.off < r.s.Len():
		return r.s.Tail, r.off - h - m
	}
	return nil, 0
}

func (r *spliceReader) WriteTo(dst io.Writer) (int64, error) {
	var total int64
	for {
		part, at := r.part()
		if part == nil {
			return total, nil
		}
		n, err := dst.Write(part[at:])
		total += int64(n)
		r.off += int64(n)
		if err != nil {
			return total, err
		}
		if n != len(part[at:]) {
			return total, io.ErrShortWrite
		}
	}
}
