package bench

import (
	"io"
	"strings"

	"github.com/benchseal/benchseal/internal/task"
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

func newForm(t task.Task, model string, fields map[string]string, stream bool) (form, error) {
	e, err := t.Envelope(model, fields, stream)
	if err != nil {
		return form{}, err
	}
	return form{contentType: e.ContentType, prefix: e.Prefix, suffix: e.Suffix}, nil
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
