package bundle

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/unicode/norm"
)

// Limits bound what a Reader accepts, so that a hostile archive is refused
// before it costs memory, disk or much time. A zero field means no limit
// (only sensible in tests); DefaultLimits suits any real bundle.
type Limits struct {
	MaxEntries   int   // entries in the archive
	MaxEntrySize int64 // declared size of one entry
	MaxTotalSize int64 // sum of the declared sizes
	// MaxWindow caps the zstd window a frame may ask for, and
	// MaxDecoderMemory the decoder's allocations.
	MaxWindow        uint64
	MaxDecoderMemory uint64
	// MaxRatio caps decompressed bytes per compressed byte once more than
	// RatioAfter bytes came out: a bomb (a gigabyte of zeros in a few
	// kilobytes) is refused early, not hashed to the end.
	MaxRatio   int64
	RatioAfter int64
}

// DefaultLimits: far above what a benchmark run writes (clips are the bulk:
// a 10-hour 16 kHz corpus is 1.2 GB), far below what hurts a verifier.
// Bundles compress at most about 10:1 (JSONL) and clips about 1:1, so a
// ratio of 1000 after 64 MiB only trips on crafted input (or a corpus of
// pure digital silence larger than 64 MiB).
var DefaultLimits = Limits{
	MaxEntries:       100_000,
	MaxEntrySize:     4 << 30,
	MaxTotalSize:     16 << 30,
	MaxWindow:        64 << 20,
	MaxDecoderMemory: 256 << 20,
	MaxRatio:         1000,
	RatioAfter:       64 << 20,
}

// Reasons a Reader refuses an archive, wrapped in an *EntryError.
var (
	ErrUnsafePath     = errors.New("name is not a local, clean, slash-separated path")
	ErrNotRegular     = errors.New("not a regular file")
	ErrDuplicate      = errors.New("duplicate name")
	ErrTooLarge       = errors.New("larger than the limit")
	ErrTooManyEntries = errors.New("more entries than the limit")
	ErrTruncated      = errors.New("archive is truncated")
	ErrBomb           = errors.New("decompresses far more than its size (a compression bomb)")
	ErrCorrupt        = errors.New("archive is corrupt")
	ErrNoAttestation  = errors.New("first entry is not " + AttestationName)
	// ErrMode: an entry's mode is not exactly 0644 (Seal writes no other:
	// no setuid, setgid or sticky bit, no execute or group-write bit).
	ErrMode = errors.New("mode is not 0644")
	// ErrEmpty: the file holds no bytes at all.
	ErrEmpty = errors.New("not a bundle: the file is empty")
	// ErrFrames: the zstd stream is not exactly one frame (a second frame,
	// or a skippable frame before or after it, could carry bytes that no
	// signature covers).
	ErrFrames = errors.New("not exactly one zstd frame")
)

// EntryError names the entry a Reader refused (Name is "" when the archive
// failed before any entry, or between entries: Name is then the last entry
// read, and Reason says where).
type EntryError struct {
	Name   string
	Reason error
}

func (e *EntryError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("bundle: %v", e.Reason)
	}
	return fmt.Sprintf("bundle entry %q: %v", e.Name, e.Reason)
}
func (e *EntryError) Unwrap() error { return e.Reason }

// Entry is one file of the archive. SHA256 (hex) is set once its contents
// have been read to the end, by Read or by the next call to Next.
type Entry struct {
	Name   string
	Size   int64
	SHA256 string
}

// Reader reads a bundle's entries as they stream, hashing each, and
// refuses anything that is not a plain file with a safe name, within
// Limits. It never touches the file system.
type Reader struct {
	limits  Limits
	zr      *zstd.Decoder
	tr      *tar.Reader
	in, out *counter
	frame   *frameCheck
	seen    map[string]string // folded name -> name as written
	total   int64
	cur     *Entry
	h       hash.Hash
	left    int64
	err     error // sticky: after a refusal, every call returns it
}

// NewReader starts reading a bundle from r.
func NewReader(r io.Reader, limits Limits) (*Reader, error) {
	fc := &frameCheck{r: r}
	in := &counter{r: fc}
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)}
	if limits.MaxWindow > 0 {
		opts = append(opts, zstd.WithDecoderMaxWindow(limits.MaxWindow))
	}
	if limits.MaxDecoderMemory > 0 {
		opts = append(opts, zstd.WithDecoderMaxMemory(limits.MaxDecoderMemory))
	}
	zr, err := zstd.NewReader(in, opts...)
	if err != nil {
		return nil, &EntryError{Reason: fmt.Errorf("%w: %v", ErrCorrupt, err)}
	}
	rd := &Reader{limits: limits, zr: zr, in: in, frame: fc, seen: map[string]string{}, h: sha256.New()}
	rd.out = &counter{r: zr, check: rd.checkRatio}
	rd.tr = tar.NewReader(rd.out)
	return rd, nil
}

// Close releases the decompressor. It does not close the source.
func (r *Reader) Close() error {
	r.zr.Close()
	return nil
}

func (r *Reader) checkRatio(out int64) error {
	l := r.limits
	if l.MaxTotalSize > 0 && l.MaxEntries > 0 {
		// Headers, PAX records and padding: a few blocks per entry.
		if out > l.MaxTotalSize+int64(l.MaxEntries+1)*4096 {
			return ErrTooLarge
		}
	}
	if l.MaxRatio > 0 && out > l.RatioAfter && out/max(r.in.n, 1) > l.MaxRatio {
		return ErrBomb
	}
	return nil
}

func (r *Reader) fail(name string, reason error) error {
	var ee *EntryError
	if errors.As(reason, &ee) {
		r.err = ee
		return ee
	}
	if r.frame.err != nil {
		// The frame check saw it first; the decompressor's error is a
		// consequence of it.
		reason = r.frame.err
	}
	r.err = &EntryError{Name: name, Reason: classify(reason)}
	return r.err
}

// classify turns the decompressor's and tar's errors into the Reader's.
func classify(err error) error {
	for _, known := range []error{ErrUnsafePath, ErrNotRegular, ErrDuplicate, ErrTooLarge, ErrTooManyEntries,
		ErrTruncated, ErrBomb, ErrCorrupt, ErrNoAttestation, ErrMode, ErrEmpty, ErrFrames} {
		if errors.Is(err, known) {
			return err
		}
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ErrTruncated
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return fmt.Errorf("%w: %v", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// Next finishes the current entry (reading and hashing what is left of it)
// and moves to the next one. It returns io.EOF after the last entry.
func (r *Reader) Next() (*Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.cur != nil && r.cur.SHA256 == "" {
		if _, err := io.Copy(io.Discard, onlyReader{r}); err != nil {
			return nil, err
		}
	}
	last := ""
	if r.cur != nil {
		last = r.cur.Name
	}
	hdr, err := r.tr.Next()
	if err == io.EOF {
		// tar's end: two zero blocks, or a stream that stops between
		// entries. Read the compressed stream to its end too, so that the
		// zstd checksum is verified and nothing hides after the archive.
		r.cur = nil
		if err := r.drain(); err != nil {
			return nil, r.fail("", err)
		}
		return nil, io.EOF
	}
	if err != nil {
		if last != "" {
			err = fmt.Errorf("after entry %q: %w", last, classify(err))
		}
		return nil, r.fail("", err)
	}
	name := hdr.Name
	switch {
	case r.limits.MaxEntries > 0 && len(r.seen) >= r.limits.MaxEntries:
		return nil, r.fail(name, fmt.Errorf("%w (%d)", ErrTooManyEntries, r.limits.MaxEntries))
	case hdr.Typeflag != tar.TypeReg:
		return nil, r.fail(name, fmt.Errorf("%w (%s)", ErrNotRegular, tarTypeName(hdr)))
	case hdr.Mode != 0o644:
		return nil, r.fail(name, fmt.Errorf("%w: %#o", ErrMode, hdr.Mode))
	}
	if err := checkName(name); err != nil {
		return nil, r.fail(name, err)
	}
	if first, dup := r.seen[foldName(name)]; dup {
		if first != name {
			return nil, r.fail(name, fmt.Errorf("%w: the same file as %q where names ignore case or Unicode normalisation (macOS, Windows)", ErrDuplicate, first))
		}
		return nil, r.fail(name, ErrDuplicate)
	}
	if r.limits.MaxEntrySize > 0 && hdr.Size > r.limits.MaxEntrySize {
		return nil, r.fail(name, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, hdr.Size, r.limits.MaxEntrySize))
	}
	r.total += hdr.Size
	if r.limits.MaxTotalSize > 0 && r.total > r.limits.MaxTotalSize {
		return nil, r.fail(name, fmt.Errorf("%w: entries total more than %d bytes", ErrTooLarge, r.limits.MaxTotalSize))
	}
	r.seen[foldName(name)] = name
	r.cur = &Entry{Name: name, Size: hdr.Size}
	r.h.Reset()
	r.left = hdr.Size
	if hdr.Size == 0 {
		r.cur.SHA256 = hex.EncodeToString(r.h.Sum(nil))
	}
	return r.cur, nil
}

// Read reads the current entry's contents.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.cur == nil || r.left == 0 {
		return 0, io.EOF
	}
	n, err := r.tr.Read(p)
	r.h.Write(p[:n])
	r.left -= int64(n)
	if r.left == 0 {
		r.cur.SHA256 = hex.EncodeToString(r.h.Sum(nil))
		return n, nil
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return n, r.fail(r.cur.Name, err)
	}
	return n, nil
}

type onlyReader struct{ io.Reader }

// counter counts bytes read through it and lets the Reader refuse a
// stream as soon as the count says it is hostile.
type counter struct {
	r     io.Reader
	n     int64
	check func(int64) error
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.check != nil {
		if cerr := c.check(c.n); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}

func tarTypeName(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeSymlink:
		return "symbolic link to " + fmt.Sprintf("%q", h.Linkname)
	case tar.TypeLink:
		return "hard link to " + fmt.Sprintf("%q", h.Linkname)
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeDir:
		return "directory"
	case tar.TypeFifo:
		return "named pipe"
	case tar.TypeXGlobalHeader:
		return "PAX global header"
	}
	return fmt.Sprintf("tar type %q", h.Typeflag)
}

// maxName caps entry names; a run directory's paths are short.
const maxName = 1024

// checkName accepts the names Seal writes: valid io/fs paths (relative,
// no "." or ".." or empty elements), UTF-8, no backslash (a separator on
// Windows) and no control characters (so that a listing of names, one a
// line, cannot be forged).
func checkName(name string) error {
	switch {
	case len(name) > maxName:
		return fmt.Errorf("%w: longer than %d bytes", ErrUnsafePath, maxName)
	case !fs.ValidPath(name) || name == ".":
		return ErrUnsafePath
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: not UTF-8", ErrUnsafePath)
	case strings.ContainsRune(name, '\\'):
		return fmt.Errorf("%w: contains a backslash", ErrUnsafePath)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: contains a control character", ErrUnsafePath)
	}
	return nil
}

// foldName is how file systems that ignore case or Unicode normalisation
// (macOS, Windows) see a name: two entries that fold alike would overwrite
// each other when extracted there, so a bundle may not hold both.
func foldName(name string) string { return norm.NFC.String(strings.ToLower(norm.NFC.String(name))) }

// drain reads what the decompressor still holds after tar's end: only
// zero padding may follow the archive, and reaching the end of the zstd
// stream verifies its checksum.
func (r *Reader) drain() error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.out.Read(buf)
		for _, c := range buf[:n] {
			if c != 0 {
				return fmt.Errorf("%w: data after the archive's end", ErrCorrupt)
			}
		}
		if err == io.EOF {
			// The decompressor stops at its frame's end; whatever the
			// source still holds must be nothing.
			return r.frame.rest()
		}
		if err != nil {
			return fmt.Errorf("after the archive's end: %w", classify(err))
		}
	}
}

// frameCheck passes the compressed bytes through while following the zstd
// frame format (RFC 8878, section 3.1.1: frame header, blocks, checksum),
// so that a Reader accepts exactly one zstd frame: no skippable frame
// before it, no frame of any kind after it, and an empty file is refused
// as such. It looks only at headers; the decompressor checks the rest.
type frameCheck struct {
	r     io.Reader
	n     int64  // bytes seen
	hdr   []byte // header bytes gathered so far (frame or block header)
	state int
	skip  int64 // bytes of block content or checksum still to pass
	last  bool  // the block being passed is the frame's last
	sum   bool  // the frame ends with a 4-byte checksum
	err   error // sticky
}

const (
	fcFrameHeader = iota
	fcBlockHeader
	fcSkip
	fcDone
)

func (f *frameCheck) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(p)
	if ferr := f.scan(p[:n]); ferr != nil {
		f.err = ferr
		return 0, ferr
	}
	f.n += int64(n)
	if err == io.EOF && f.n == 0 {
		f.err = ErrEmpty
		return 0, f.err
	}
	return n, err
}

// rest reads what the source holds after the frame: it must be nothing.
func (f *frameCheck) rest() error {
	_, err := io.Copy(io.Discard, f)
	return err
}

func (f *frameCheck) scan(b []byte) error {
	for len(b) > 0 {
		switch f.state {
		case fcDone:
			return fmt.Errorf("%w: %d bytes after the frame's end", ErrFrames, len(b))
		case fcSkip:
			k := min(f.skip, int64(len(b)))
			f.skip -= k
			b = b[k:]
			if f.skip == 0 {
				switch {
				case !f.last:
					f.state = fcBlockHeader
				case f.sum:
					f.skip, f.sum = 4, false
				default:
					f.state = fcDone
				}
			}
		case fcFrameHeader:
			need := 5
			if len(f.hdr) >= 5 {
				need = frameHeaderSize(f.hdr[4])
			}
			k := min(need-len(f.hdr), len(b))
			f.hdr = append(f.hdr, b[:k]...)
			b = b[k:]
			if len(f.hdr) >= 4 && len(f.hdr)-k < 4 {
				switch magic := binary.LittleEndian.Uint32(f.hdr); {
				case magic&0xFFFFFFF0 == 0x184D2A50:
					return fmt.Errorf("%w: a skippable frame before the archive", ErrFrames)
				case magic != 0xFD2FB528:
					return fmt.Errorf("%w: not a zstd stream (magic %08x)", ErrCorrupt, magic)
				}
			}
			if len(f.hdr) >= 5 && len(f.hdr) == frameHeaderSize(f.hdr[4]) {
				f.sum = f.hdr[4]&0x04 != 0
				f.hdr, f.state = f.hdr[:0], fcBlockHeader
			}
		case fcBlockHeader:
			k := min(3-len(f.hdr), len(b))
			f.hdr = append(f.hdr, b[:k]...)
			b = b[k:]
			if len(f.hdr) < 3 {
				continue
			}
			h := uint32(f.hdr[0]) | uint32(f.hdr[1])<<8 | uint32(f.hdr[2])<<16
			f.hdr = f.hdr[:0]
			f.last = h&1 != 0
			size := int64(h >> 3)
			switch (h >> 1) & 3 {
			case 1: // RLE: one byte, repeated
				size = 1
			case 3:
				return fmt.Errorf("%w: reserved zstd block type", ErrCorrupt)
			}
			f.skip, f.state = size, fcSkip
			if size == 0 {
				// An empty block: move on without waiting for bytes.
				f.state = fcSkip
				if err := f.scanEmpty(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// scanEmpty ends a block of no content.
func (f *frameCheck) scanEmpty() error {
	switch {
	case !f.last:
		f.state = fcBlockHeader
	case f.sum:
		f.skip, f.sum, f.state = 4, false, fcSkip
	default:
		f.state = fcDone
	}
	return nil
}

// frameHeaderSize is the size of a zstd frame header (magic included)
// with the given frame header descriptor.
func frameHeaderSize(fhd byte) int {
	n := 5
	single := fhd&0x20 != 0
	if !single {
		n++ // window descriptor
	}
	n += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
	switch fhd >> 6 {
	case 0:
		if single {
			n++
		}
	case 1:
		n += 2
	case 2:
		n += 4
	case 3:
		n += 8
	}
	return n
}
