package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
)

// form is one (target, item)'s request envelope, built before the sweep
// (task.Envelopes.For): every request sends prefix, the variant's bytes
// straight from the clip (head, one byte, tail) and suffix, so no request
// copies its clip. Items whose envelope says nothing of them share their
// target's slices (ASR: every item).
type form struct {
	contentType []string // the Content-Type header's value, shared by every request (never written)
	prefix      []byte   // e.g. the form fields and the file part's header
	suffix      []byte   // e.g. the closing boundary
}

// newForms is target t's envelope of each corpus item, in corpus order.
func newForms(tk task.Task, t Target, stream bool, corpus []Clip) ([]form, error) {
	es, err := tk.Envelope(task.Target{Model: t.Model, Fields: t.Fields, Stream: stream})
	if err != nil {
		return nil, err
	}
	forms := make([]form, len(corpus))
	for i := range corpus {
		e, err := es.For(corpus[i].Item())
		var nv *task.NoVoiceError
		if errors.As(err, &nv) {
			return nil, err // it names the item and its line
		}
		if err != nil {
			return nil, fmt.Errorf("clip %q: %w", corpus[i].ID, err)
		}
		forms[i] = form{contentType: []string{e.ContentType}, prefix: e.Prefix, suffix: e.Suffix}
	}
	return forms, nil
}

// body reads prefix, head, mid, tail, suffix. Each request gets its own
// (a few words): the transport may still read a body after RoundTrip
// returned, so a body is never reused; the segments themselves are shared
// and never written.
type body struct {
	segs [5][]byte
	i    int
	off  int
	vec  [6][]byte   // writeVec's segments: a header block, then segs
	bufs net.Buffers // and their net.Buffers, kept here: no allocation of its own
}

// reset makes b the body of s (the input's bytes as sent) in f.
func (b *body) reset(f *form, s perturb.Splice) {
	b.segs = [5][]byte{f.prefix, s.Head, s.Mid, s.Tail, f.suffix}
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

// writeVec writes head, then at most limit bytes of b from where it is,
// to w in one net.Buffers write (writev(2) on a TCP connection: the
// kernel reads the shared segments themselves), moves b past the bytes
// of it written and returns their count.
func (b *body) writeVec(w io.Writer, head []byte, limit int64) (int64, error) {
	v := b.vec[:0]
	if len(head) > 0 {
		v = append(v, head)
	}
	for i, off, left := b.i, b.off, limit; i < len(b.segs) && left > 0; i, off = i+1, 0 {
		s := b.segs[i][off:]
		if int64(len(s)) > left {
			s = s[:left]
		}
		if len(s) > 0 {
			v = append(v, s)
		}
		left -= int64(len(s))
	}
	b.bufs = v
	n, err := b.bufs.WriteTo(w)
	if n -= int64(len(head)); n < 0 {
		n = 0
	}
	for left := n; left > 0 && b.i < len(b.segs); {
		c := min(left, int64(len(b.segs[b.i])-b.off))
		b.off += int(c)
		left -= c
		if b.off == len(b.segs[b.i]) {
			b.i, b.off = b.i+1, 0
		}
	}
	return n, err
}

// vecConn is a connection of the runner's transport. net/http writes a
// request's header block alone (it flushes it before a body of unknown
// kind) and then copies the body through the connection's ReadFrom 32
// KiB at a time. This one keeps the header block of a request with a
// body (headOfBody) and hands it, with the body's shared segments, to one
// writev(2) (body.writeVec): one system call and no copy in user space
// per request. Any other write, or any other reader, sends what is kept
// first and then goes to the connection as before. Only net/http's
// writer goroutine writes to a connection, so head needs no lock.
type vecConn struct {
	net.Conn
	head []byte // a header block kept for its body's writev
}

func (c *vecConn) Write(p []byte) (int, error) {
	if len(c.head) == 0 && headOfBody(p) {
		c.head = append(c.head, p...)
		return len(p), nil
	}
	if err := c.flushHead(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

func (c *vecConn) ReadFrom(r io.Reader) (int64, error) {
	lr, isLR := r.(*io.LimitedReader)
	b, ok := r.(*body)
	limit := int64(math.MaxInt64)
	if isLR {
		b, ok = lr.R.(*body)
		limit = lr.N
	}
	if !ok {
		if err := c.flushHead(); err != nil {
			return 0, err
		}
		return io.Copy(c.Conn, r)
	}
	n, err := b.writeVec(c.Conn, c.head, limit)
	c.head = c.head[:0]
	if isLR {
		lr.N -= n
	}
	return n, err
}

// flushHead writes a header block kept for a body that came another way.
func (c *vecConn) flushHead() error {
	if len(c.head) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.head)
	c.head = c.head[:0]
	return err
}

// headOfBody says whether p is a whole HTTP/1.1 request header block,
// flushed alone, of a request whose body net/http writes right after it:
// it ends the headers, says a Content-Length other than 0 and expects no
// 100 Continue (net/http writes header names in canonical form).
func headOfBody(p []byte) bool {
	if len(p) > 16<<10 || !bytes.HasSuffix(p, []byte("\r\n\r\n")) || bytes.Contains(p, []byte("\r\nExpect:")) {
		return false
	}
	_, cl, ok := bytes.Cut(p, []byte("\r\nContent-Length: "))
	return ok && len(cl) > 0 && cl[0] >= '1' && cl[0] <= '9'
}

// safeString keeps error bodies short and printable in records.
func safeString(b []byte, max int) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), max)]), "?")
	return strings.TrimSpace(s)
}
