package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// tarZst packs hdrs (with the same body for every regular entry) the way
// a hostile archiver could: any header, any order.
func tarZst(t testing.TB, hdrs ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	tw := tar.NewWriter(zw)
	for _, h := range hdrs {
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = 3
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func reg(name string) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name}
}

// rleBomb is a zstd frame of one tar entry, name, declaring size bytes of
// zeros, made of RLE blocks: a gigabyte in 32 KiB.
func rleBomb(name string, size int64) []byte {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, Format: tar.FormatPAX,
		ModTime: time.Unix(0, 0)})
	tw.Flush()
	const block = 128 << 10
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic, no checksum or size, 128 KiB window
	blockHeader := func(last bool, typ, size int) {
		v := size<<3 | typ<<1
		if last {
			v |= 1
		}
		b = append(b, byte(v), byte(v>>8), byte(v>>16))
	}
	blockHeader(false, 0, hdr.Len())
	b = append(b, hdr.Bytes()...)
	for left := size + 1024; left > 0; left -= block { // the zeros, then tar's two end blocks
		n := min(left, block)
		blockHeader(left == n, 1, int(n))
		b = append(b, 0)
	}
	return b
}

// manyEntries streams a tar.zst of n empty entries from a goroutine, so
// that a million entries cost only what the reader consumes.
func manyEntries(n int) (io.Reader, func()) {
	pr, pw := io.Pipe()
	go func() {
		zw, _ := zstd.NewWriter(pw, zstd.WithEncoderConcurrency(1))
		tw := tar.NewWriter(zw)
		for i := range n {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("f%07d", i), Mode: 0o644}); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		tw.Close()
		zw.Close()
		pw.Close()
	}()
	return pr, func() { pr.CloseWithError(errors.New("test done")) }
}

// zerosBundle is a real zstd stream of one entry of n zeros.
func zerosBundle(t testing.TB, n int64) []byte {
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "zeros.bin", Size: n, Mode: 0o644})
	io.CopyN(tw, zeroReader{}, n)
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type vector struct {
	name   string
	data   func(testing.TB) []byte
	limits Limits
	want   error
	entry  string // the entry the error must name
}

func hostileVectors() []vector {
	small := Limits{MaxEntries: 1000, MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20, MaxWindow: 8 << 20,
		MaxDecoderMemory: 64 << 20, MaxRatio: 100, RatioAfter: 1 << 20}
	v := func(data []byte) func(testing.TB) []byte { return func(testing.TB) []byte { return data } }
	t := &testing.T{}
	return []vector{
		{"dotdot", v(tarZst(t, reg("../x"))), DefaultLimits, ErrUnsafePath, "../x"},
		{"dotdot-inner", v(tarZst(t, reg("a/../../x"))), DefaultLimits, ErrUnsafePath, "a/../../x"},
		{"absolute", v(tarZst(t, reg("/etc/passwd"))), DefaultLimits, ErrUnsafePath, "/etc/passwd"},
		{"backslash", v(tarZst(t, reg(`..\x`))), DefaultLimits, ErrUnsafePath, `..\x`},
		{"newline", v(tarZst(t, reg("a\nb"))), DefaultLimits, ErrUnsafePath, "a\nb"},
		{"symlink", v(tarZst(t, &tar.Header{Typeflag: tar.TypeSymlink, Name: "run.json", Linkname: "/etc/passwd"})), DefaultLimits, ErrNotRegular, "run.json"},
		{"hardlink", v(tarZst(t, reg("a"), &tar.Header{Typeflag: tar.TypeLink, Name: "b", Linkname: "/etc/shadow"})), DefaultLimits, ErrNotRegular, "b"},
		{"device", v(tarZst(t, &tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3})), DefaultLimits, ErrNotRegular, "null"},
		{"directory", v(tarZst(t, &tar.Header{Typeflag: tar.TypeDir, Name: "records/"})), DefaultLimits, ErrNotRegular, "records/"},
		{"duplicate", v(tarZst(t, reg("claims.json"), reg("a"), reg("claims.json"))), DefaultLimits, ErrDuplicate, "claims.json"},
		// Names one extraction on macOS or Windows would write to the same file.
		{"duplicate-case", v(tarZst(t, reg("run.json"), reg("Run.json"))), DefaultLimits, ErrDuplicate, "Run.json"},
		{"duplicate-unicode-form", v(tarZst(t, reg("records/caf\u00e9/c1-r1.jsonl"), reg("records/cafe\u0301/c1-r1.jsonl"))), DefaultLimits, ErrDuplicate, "records/cafe\u0301/c1-r1.jsonl"},
		{"entry-too-large", v(rleBomb("zeros.bin", 1<<30)), small, ErrTooLarge, "zeros.bin"},
		{"total-too-large", v(tarZst(t, &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 1 << 20}, &tar.Header{Typeflag: tar.TypeReg, Name: "b", Size: 1 << 20},
			&tar.Header{Typeflag: tar.TypeReg, Name: "c", Size: 1 << 20}, &tar.Header{Typeflag: tar.TypeReg, Name: "d", Size: 1 << 20},
			&tar.Header{Typeflag: tar.TypeReg, Name: "e", Size: 1})), Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20}, ErrTooLarge, "e"},
		// A gigabyte of zeros in 32 KiB, refused by the default limits.
		{"rle-bomb-1GiB", v(rleBomb("zeros.bin", 1<<30)), DefaultLimits, ErrBomb, "zeros.bin"},
		{"zstd-bomb", func(t testing.TB) []byte { return zerosBundle(t, 8<<20) }, Limits{MaxRatio: 100, RatioAfter: 1 << 20}, ErrBomb, "zeros.bin"},
		{"huge-window", v([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00}), DefaultLimits, ErrTooLarge, ""},
		{"truncated", func(t testing.TB) []byte { b := sealedSmall(t); return b[:len(b)/2] }, DefaultLimits, ErrTruncated, ""},
		{"truncated-frame-end", func(t testing.TB) []byte { b := sealedSmall(t); return b[:len(b)-5] }, DefaultLimits, ErrTruncated, ""},
		{"garbage", v([]byte("this is not a bundle at all, not even zstd")), DefaultLimits, ErrCorrupt, ""},
		// Every entry reads, but the frame's checksum does not match: only
		// reading the stream to its end finds out.
		{"bad-checksum", func(t testing.TB) []byte { b := bytes.Clone(sealedSmall(t)); b[len(b)-1] ^= 0xff; return b }, DefaultLimits, ErrCorrupt, ""},
		// Data hidden after tar's end marker, inside the compressed stream.
		{"data-after-end", func(t testing.TB) []byte {
			var tb bytes.Buffer
			tw := tar.NewWriter(&tb)
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 1, Mode: 0o644, Format: tar.FormatPAX})
			tw.Write([]byte("x"))
			tw.Close()
			tb.WriteString("hidden after the end marker")
			var zb bytes.Buffer
			zw, _ := zstd.NewWriter(&zb, zstd.WithEncoderConcurrency(1))
			zw.Write(tb.Bytes())
			zw.Close()
			return zb.Bytes()
		}, DefaultLimits, ErrCorrupt, ""},
	}
}

// readAll reads every entry through a Reader, as a verifier would.
func readAll(src io.Reader, limits Limits) error {
	r, err := NewReader(src, limits)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestOpenWantsAttestationFirst(t *testing.T) {
	_, err := Open(bytes.NewReader(tarZst(t, reg("run.json"), reg(AttestationName))), DefaultLimits)
	var ee *EntryError
	if !errors.Is(err, ErrNoAttestation) || !errors.As(err, &ee) || ee.Name != "run.json" {
		t.Fatalf("Open = %v, want ErrNoAttestation naming run.json", err)
	}
}

func sealedSmall(t testing.TB) []byte {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	var buf bytes.Buffer
	if _, err := Seal(context.Background(), &buf, dir, testSigner(t), SealOptions{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReaderRefusesHostileArchives(t *testing.T) {
	for _, v := range hostileVectors() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			data := v.data(t)
			start := time.Now()
			err := readAll(bytes.NewReader(data), v.limits)
			var ee *EntryError
			if !errors.Is(err, v.want) || !errors.As(err, &ee) {
				t.Fatalf("Open = %v, want %v in an *EntryError", err, v.want)
			}
			if v.entry != "" && ee.Name != v.entry {
				t.Errorf("error names entry %q, want %q", ee.Name, v.entry)
			}
			t.Logf("%d bytes refused in %v: %v", len(data), time.Since(start).Round(time.Millisecond), err)
		})
	}
}

func TestReaderRefusesMillionEntries(t *testing.T) {
	r, stop := manyEntries(1_000_000)
	defer stop()
	err := readAll(r, DefaultLimits)
	var ee *EntryError
	if !errors.Is(err, ErrTooManyEntries) || !errors.As(err, &ee) || ee.Name != "f0100000" {
		t.Fatalf("Open = %v, want ErrTooManyEntries at entry f0100000", err)
	}
	t.Log(err)
}

func TestReaderEveryTruncationFails(t *testing.T) {
	b := sealedSmall(t)
	for cut := 0; cut < len(b); cut += max(1, len(b)/97) {
		_, err := Open(bytes.NewReader(b[:cut]), DefaultLimits)
		if err == nil {
			t.Fatalf("bundle cut at %d of %d bytes opened", cut, len(b))
		}
		if cut == 0 {
			if !errors.Is(err, ErrEmpty) {
				t.Errorf("empty file: %v, want ErrEmpty", err)
			}
			continue
		}
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNoAttestation) {
			t.Errorf("cut at %d: %v, want ErrTruncated", cut, err)
		}
	}
}

func TestReaderStreamsEntries(t *testing.T) {
	b := sealedSmall(t)
	r, err := NewReader(bytes.NewReader(b), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bd, _ := Open(bytes.NewReader(b), DefaultLimits)
	st, _ := bd.Statement()
	want := map[string]string{}
	for _, s := range st.Subject {
		want[s.Name] = s.SHA256()
	}
	n := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n%2 == 0 && e.Name != AttestationName { // read half the entries, skip the others
			body, _ := io.ReadAll(r)
			if int64(len(body)) != e.Size || e.SHA256 == "" {
				t.Errorf("%s: read %d of %d bytes, digest %q", e.Name, len(body), e.Size, e.SHA256)
			}
		}
		defer func(e *Entry) {
			if e.Name != AttestationName && want[e.Name] != e.SHA256 {
				t.Errorf("%s: digest %s, statement %s", e.Name, e.SHA256, want[e.Name])
			}
		}(e)
		n++
	}
	if n != len(want)+1 {
		t.Errorf("%d entries, %d subjects", n, len(want))
	}
}

func TestCheckSubjectsFindsEveryDifference(t *testing.T) {
	bd, err := Open(bytes.NewReader(sealedSmall(t)), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := bd.Statement()
	st.Subject[0].Digest = map[string]string{"sha256": "00"}
	st.Subject = append(st.Subject[:1], st.Subject[2:]...)
	st.Subject = append(st.Subject, Subject{Name: "ghost.json", Digest: map[string]string{"sha256": "11"}})
	err = bd.CheckSubjects(st)
	var kinds [3]int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		de := e.(*DigestError)
		switch {
		case de.Want == "":
			kinds[0]++
		case de.Got == "":
			kinds[1]++
		default:
			kinds[2]++
		}
	}
	if kinds != [3]int{1, 1, 1} {
		t.Errorf("CheckSubjects = %v", err)
	}
}

// skippable is a zstd skippable frame (RFC 8878, 3.1.2) carrying data:
// decompressors pass over it, so no digest or signature covers it.
func skippable(data string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

func TestReaderExactlyOneFrame(t *testing.T) {
	b := sealedSmall(t)
	if _, err := Open(bytes.NewReader(b), DefaultLimits); err != nil {
		t.Fatalf("the bundle itself: %v", err)
	}
	second, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{
		"skippable before": append(skippable("hidden"), b...),
		"skippable after":  append(slices.Clone(b), skippable("hidden")...),
		"second frame":     append(slices.Clone(b), second.EncodeAll(make([]byte, 1024), nil)...),
		"one byte after":   append(slices.Clone(b), 0),
	} {
		_, err := Open(bytes.NewReader(in), DefaultLimits)
		if !errors.Is(err, ErrFrames) {
			t.Errorf("%s: %v, want ErrFrames", name, err)
		}
	}
}

func TestReaderModeExactly0644(t *testing.T) {
	for _, mode := range []int64{0o4644, 0o755, 0o600, 0o2644, 0o1644} {
		var buf bytes.Buffer
		zw, _ := zstd.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: AttestationName, Mode: mode, Size: 2, Format: tar.FormatPAX})
		tw.Write([]byte("{}"))
		tw.Close()
		zw.Close()
		_, err := Open(&buf, DefaultLimits)
		if !errors.Is(err, ErrMode) {
			t.Errorf("mode %#o: %v, want ErrMode", mode, err)
		}
	}
}
