package bench

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/perturb"
)

// form is a target's multipart/form-data envelope, built once: every
// request sends prefix, the variant's bytes straight from the clip (head,
// one byte, tail) and suffix, so no request copies its clip.
type form struct {
	contentType string
	prefix      []byte // the form fields and the file part's header
	suffix      []byte // the closing boundary
}

func newForm(model string, fields map[string]string, stream bool) (form, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	var rnd [12]byte
	rand.Read(rnd[:])
	if err := mw.SetBoundary("benchseal-" + hex.EncodeToString(rnd[:])); err != nil {
		return form{}, err
	}
	write := func(k, v string) error { return mw.WriteField(k, v) }
	if err := write("model", model); err != nil {
		return form{}, err
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "model" || k == "file" || k == "stream" {
			return form{}, fmt.Errorf("form field %q is set by benchseal", k)
		}
		if err := write(k, fields[k]); err != nil {
			return form{}, err
		}
	}
	if stream {
		if err := write("stream", "true"); err != nil {
			return form{}, err
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	if _, err := mw.CreatePart(h); err != nil {
		return form{}, err
	}
	prefix := slices.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return form{}, err
	}
	return form{contentType: mw.FormDataContentType(), prefix: prefix, suffix: slices.Clone(buf.Bytes())}, nil
}

// body reads prefix, head, byte, tail, suffix. Each request gets its own
// (a few words): the transport may still read a body after RoundTrip
// returned, so a body is never reused; the segments themselves are shared
// and never written.
type body struct {
	segs [5][]byte
	one  [1]byte
	i    int
	off  int
}

func (b *body) reset(f *form, s perturb.Splice, whole []byte) {
	if whole != nil { // --no-perturb: the clip as it is
		b.segs = [5][]byte{f.prefix, whole, nil, nil, f.suffix}
	} else {
		b.one[0] = s.Byte
		b.segs = [5][]byte{f.prefix, s.Head, b.one[:], s.Tail, f.suffix}
	}
	b.i, b.off = 0, 0
}

func (b *body) len() int64 {
	var n int64
	for _, s := range b.segs {
		n += int64(len(s))
	}
	return n
}

func (b *body) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && b.i < len(b.segs) {
		c := copy(p[n:], b.segs[b.i][b.off:])
		n += c
		b.off += c
		if b.off == len(b.segs[b.i]) {
			b.i++
			b.off = 0
		}
	}
	if n == 0 && b.i >= len(b.segs) {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo hands the segments to dst whole.
func (b *body) WriteTo(dst io.Writer) (int64, error) {
	var total int64
	for ; b.i < len(b.segs); b.i++ {
		n, err := dst.Write(b.segs[b.i][b.off:])
		total += int64(n)
		if err != nil {
			b.off += n
			return total, err
		}
		b.off = 0
	}
	return total, nil
}

func (b *body) Close() error { return nil }

// safeString keeps error bodies short and printable in records.
func safeString(b []byte, max int) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), max)]), "?")
	return strings.TrimSpace(s)
}
