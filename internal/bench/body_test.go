package bench

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func testBody() (*body, []byte) {
	segs := [5][]byte{[]byte("prefix--"), bytes.Repeat([]byte("h"), 70000), {0x5a}, bytes.Repeat([]byte("t"), 140001), []byte("--suffix")}
	return &body{segs: segs}, bytes.Join(segs[:], nil)
}

// TestBodyWriteVec: writeVec writes the header block it is given, then
// the body's bytes from wherever a Read left it, at most the limit,
// counts the body's bytes alone and leaves the body just past them, so
// that a Read after it goes on from there.
func TestBodyWriteVec(t *testing.T) {
	_, want := testBody()
	for _, skip := range []int{0, 3, 8, 70008, 70009, 100000, len(want)} {
		for _, limit := range []int64{0, 1, 5, 70000, 1 << 40} {
			b, _ := testBody()
			if _, err := io.ReadFull(b, make([]byte, skip)); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			head := []byte(nil)
			if limit%2 == 1 {
				head = []byte("POST / HTTP/1.1\r\n\r\n")
			}
			n, err := b.writeVec(&out, head, limit)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(out.Bytes(), head) {
				t.Fatalf("skip %d limit %d: the header block does not come first", skip, limit)
			}
			out.Next(len(head))
			end := min(int64(len(want)), int64(skip)+limit)
			if n != end-int64(skip) || !bytes.Equal(out.Bytes(), want[skip:end]) {
				t.Fatalf("skip %d limit %d: wrote %d bytes, want %d (equal %v)", skip, limit, n, end-int64(skip), bytes.Equal(out.Bytes(), want[skip:end]))
			}
			rest, _ := io.ReadAll(b)
			if !bytes.Equal(rest, want[end:]) {
				t.Fatalf("skip %d limit %d: %d bytes left to read, want %d", skip, limit, len(rest), len(want)-int(end))
			}
		}
	}
}

// countConn counts the ReadFrom calls that reach the runner's writev
// path, and the header blocks kept for it.
type countConn struct {
	*vecConn
	n, heads *atomic.Int64
}

func (c countConn) Write(p []byte) (int, error) {
	if headOfBody(p) {
		c.heads.Add(1)
	}
	return c.vecConn.Write(p)
}

func (c countConn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if _, ok := lr.R.(*body); ok {
			c.n.Add(1)
		}
	}
	return c.vecConn.ReadFrom(r)
}

// TestTransportWritesBodyWithWritev: through the runner's transport on
// loopback, a request's body reaches the server byte for byte, and
// net/http flushes its header block alone (kept for the body's writev)
// and then hands the body to the connection's ReadFrom as a body of the
// runner's (the writev path), once per request.
func TestTransportWritesBodyWithWritev(t *testing.T) {
	var got atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(b)
	}))
	defer ts.Close()
	var calls, heads atomic.Int64
	tr := newTransport(1)
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countConn{c.(*vecConn), &calls, &heads}, nil
	}
	for i := range 3 {
		b, want := testBody()
		req, err := http.NewRequest(http.MethodPost, ts.URL, b)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = b.len()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !bytes.Equal(got.Load().([]byte), want) {
			t.Fatalf("request %d: the server read %d bytes, not the body's %d", i, len(got.Load().([]byte)), len(want))
		}
		if calls.Load() != int64(i+1) || heads.Load() != int64(i+1) {
			t.Fatalf("request %d: %d bodies went through writev and %d header blocks were kept for it, want %d of each", i, calls.Load(), heads.Load(), i+1)
		}
	}
}

// TestHeadOfBody: only a whole header block of a request with a body
// and no Expect is held for its body.
func TestHeadOfBody(t *testing.T) {
	for _, c := range []struct {
		p    string
		want bool
	}{
		{"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Length: 207123\r\nContent-Type: multipart/form-data\r\n\r\n", true},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false},
		{"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", false},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n", false},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nbody bytes", false},
		{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", false},
	} {
		if got := headOfBody([]byte(c.p)); got != c.want {
			t.Errorf("%q: %v, want %v", c.p, got, c.want)
		}
	}
}

// wroteConn is a connection that keeps what is written to it.
type wroteConn struct {
	net.Conn
	out bytes.Buffer
}

func (c *wroteConn) Write(p []byte) (int, error) { return c.out.Write(p) }

// TestVecConnKeptHeadGoesFirst: a header block kept for a body is
// written before anything else that comes instead (a Write, another
// reader), and only once.
func TestVecConnKeptHeadGoesFirst(t *testing.T) {
	head := "POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\n"
	for _, via := range []string{"write", "reader"} {
		w := &wroteConn{}
		c := &vecConn{Conn: w}
		if n, err := c.Write([]byte(head)); n != len(head) || err != nil || w.out.Len() != 0 {
			t.Fatalf("%s: the header block was written at once (%d, %v, %d bytes out)", via, n, err, w.out.Len())
		}
		if via == "write" {
			c.Write([]byte("body"))
		} else {
			c.ReadFrom(&io.LimitedReader{R: strings.NewReader("body"), N: 4})
		}
		c.Write([]byte("next"))
		if got := w.out.String(); got != head+"bodynext" {
			t.Errorf("%s: wrote %q", via, got)
		}
	}
}
