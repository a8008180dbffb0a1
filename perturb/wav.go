package perturb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

const (
	tagPCM        = 0x0001
	tagFloat      = 0x0003
	tagExtensible = 0xFFFE
)

// guidTail is bytes 2..16 of KSDATAFORMAT_SUBTYPE_PCM/IEEE_FLOAT: the
// extensible subformat GUID is a format tag followed by these bytes.
var guidTail = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// ReadFile reads and parses a WAV file.
func ReadFile(path string) (*WAV, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		// The path error repeats the file name; keep only what failed.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
		}
		return nil, &Error{File: path, Err: err}
	}
	return Parse(path, b)
}

// Parse walks the RIFF chunks of b (the bytes of the file called name).
// The returned WAV shares b; b must not change while the WAV is in use.
func Parse(name string, b []byte) (*WAV, error) {
	w, err := parse(name, b)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	return w, nil
}

func parse(name string, b []byte) (*WAV, error) {
	if err := checkMagic(b); err != nil {
		return nil, err
	}
	fileLen := int64(len(b))
	riffEnd := 8 + int64(binary.LittleEndian.Uint32(b[4:8]))

	w := &WAV{Name: name, Bytes: b}
	fmtAt, dataAt := -1, -1 // indices into w.Chunks
	pos := int64(12)
	for pos < fileLen {
		// Bytes after the RIFF form (an appended ID3 tag, padding) are not
		// ours once the form has what we need; a RIFF size that is simply
		// too small (some writers forget a LIST chunk) is walked past.
		if pos >= riffEnd && fmtAt >= 0 && dataAt >= 0 {
			break
		}
		if fileLen-pos < 8 {
			return nil, fmt.Errorf("%w: %d stray bytes at offset %d, too few for a chunk header", ErrTruncated, fileLen-pos, pos)
		}
		c := Chunk{
			ID:     string(b[pos : pos+4]),
			Offset: pos,
			Size:   int64(binary.LittleEndian.Uint32(b[pos+4 : pos+8])),
		}
		end := pos + 8 + c.Size
		if end > fileLen {
			if c.ID == "data" {
				return nil, fmt.Errorf("%w: it declares %d bytes at offset %d, %d remain", ErrDataPastEnd, c.Size, pos+8, fileLen-pos-8)
			}
			return nil, fmt.Errorf("%w: chunk %q at offset %d declares %d bytes, %d remain", ErrTruncated, c.ID, pos, c.Size, fileLen-pos-8)
		}
		w.Chunks = append(w.Chunks, c)
		switch c.ID {
		case "fmt ":
			if fmtAt >= 0 {
				return nil, fmt.Errorf("%w: second fmt chunk at offset %d", ErrMalformed, pos)
			}
			fmtAt = len(w.Chunks) - 1
		case "data":
			if dataAt >= 0 {
				return nil, fmt.Errorf("%w: second data chunk at offset %d", ErrMalformed, pos)
			}
			dataAt = len(w.Chunks) - 1
		}
		// The pad byte after an odd-sized chunk belongs to it; a missing
		// final pad byte at the very end of the file is tolerated.
		pos = min(end+end&1, fileLen)
	}
	if riffEnd > fileLen+1 && riffEnd-8 != 0xFFFFFFFF {
		return nil, fmt.Errorf("%w: RIFF header declares %d bytes, the file has %d", ErrTruncated, riffEnd, fileLen)
	}
	if fmtAt < 0 {
		return nil, fmt.Errorf("%w: no fmt chunk", ErrMalformed)
	}
	if dataAt < 0 {
		return nil, fmt.Errorf("%w: no data chunk", ErrMalformed)
	}
	fc, dc := w.Chunks[fmtAt], w.Chunks[dataAt]
	f, err := parseFormat(b[fc.Offset+8 : fc.Offset+8+fc.Size])
	if err != nil {
		return nil, err
	}
	w.Format = f
	w.DataOffset = dc.Offset + 8
	w.DataSize = dc.Size - dc.Size%int64(f.BlockAlign)
	if w.DataSize == 0 {
		return nil, fmt.Errorf("%w: data chunk at offset %d has %d bytes, a frame needs %d", ErrEmptyData, dc.Offset, dc.Size, f.BlockAlign)
	}
	return w, nil
}

func checkMagic(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: the file is empty", ErrNotRIFF)
	}
	head := b[:min(len(b), 4)]
	switch {
	case bytes.HasPrefix([]byte("RIFF"), head) && len(b) < 12:
		return fmt.Errorf("%w: %d bytes, a RIFF header needs 12", ErrTruncated, len(b))
	case bytes.Equal(head, []byte("RIFX")):
		return ErrBigEndian
	case !bytes.Equal(head, []byte("RIFF")):
		return fmt.Errorf("%w: it starts with %q", ErrNotRIFF, head)
	case !bytes.Equal(b[8:12], []byte("WAVE")):
		return fmt.Errorf("%w: form type %q", ErrNotWAVE, b[8:12])
	}
	return nil
}

// parseFormat resolves a fmt chunk payload to what Variant needs.
func parseFormat(p []byte) (Format, error) {
	if len(p) < 16 {
		return Format{}, fmt.Errorf("%w: fmt chunk has %d bytes, needs at least 16", ErrMalformed, len(p))
	}
	le := binary.LittleEndian
	f := Format{
		Tag:           le.Uint16(p[0:2]),
		Channels:      int(le.Uint16(p[2:4])),
		SampleRate:    int(le.Uint32(p[4:8])),
		BlockAlign:    int(le.Uint16(p[12:14])),
		BitsPerSample: int(le.Uint16(p[14:16])),
	}
	f.ValidBits = f.BitsPerSample
	sub := f.Tag
	if f.Tag == tagExtensible {
		if len(p) < 40 {
			return Format{}, fmt.Errorf("%w: extensible fmt chunk has %d bytes, needs 40", ErrMalformed, len(p))
		}
		if v := int(le.Uint16(p[18:20])); v != 0 { // 0: writer left it unset
			f.ValidBits = v
		}
		f.ChannelMask = le.Uint32(p[20:24])
		sub = le.Uint16(p[24:26])
		if !bytes.Equal(p[26:40], guidTail) {
			return Format{}, fmt.Errorf("%w: extensible subformat %x is not a WAVE format GUID", ErrUnsupported, p[24:40])
		}
	}
	switch sub {
	case tagPCM:
		f.Kind = KindPCM
	case tagFloat:
		f.Kind = KindFloat
	case tagExtensible:
		return Format{}, fmt.Errorf("%w: extensible subformat is itself extensible", ErrMalformed)
	default:
		return Format{}, &CompressedError{Tag: sub, Name: FormatName(sub)}
	}
	if f.Channels == 0 {
		return Format{}, fmt.Errorf("%w: fmt chunk says 0 channels", ErrMalformed)
	}
	if f.SampleRate == 0 {
		return Format{}, fmt.Errorf("%w: fmt chunk says sample rate 0", ErrMalformed)
	}
	if f.BlockAlign == 0 || f.BlockAlign%f.Channels != 0 {
		return Format{}, fmt.Errorf("%w: block align %d does not fit %d channels", ErrMalformed, f.BlockAlign, f.Channels)
	}
	// Plain PCM may declare, say, 12 bits in a 16-bit container: the block
	// align says how wide the container is.
	container := f.BlockAlign / f.Channels
	if f.Tag != tagExtensible && f.BitsPerSample < container*8 && f.Kind == KindPCM {
		f.ValidBits, f.BitsPerSample = f.BitsPerSample, container*8
	}
	if f.BitsPerSample != container*8 || f.BitsPerSample%8 != 0 {
		return Format{}, fmt.Errorf("%w: %d bits per sample do not match block align %d for %d channels", ErrMalformed, f.BitsPerSample, f.BlockAlign, f.Channels)
	}
	if f.ValidBits <= 0 || f.ValidBits > f.BitsPerSample {
		return Format{}, fmt.Errorf("%w: %d valid bits in a %d-bit container", ErrMalformed, f.ValidBits, f.BitsPerSample)
	}
	switch {
	case f.Kind == KindFloat && (f.BitsPerSample != 32 || f.ValidBits != 32):
		return Format{}, fmt.Errorf("%w: %d-bit float (only 32-bit float is supported)", ErrUnsupported, f.ValidBits)
	case f.Kind == KindPCM && f.BitsPerSample > 32:
		return Format{}, fmt.Errorf("%w: %d-bit PCM (at most 32 bits are supported)", ErrUnsupported, f.BitsPerSample)
	}
	return f, nil
}

// Samples is the number of interleaved samples (frames * channels).
func (w *WAV) Samples() int64 { return w.DataSize / int64(w.Format.BitsPerSample/8) }

// Frames is the number of sample frames.
func (w *WAV) Frames() int64 { return w.DataSize / int64(w.Format.BlockAlign) }

// Seconds is the duration: frames / sample rate.
func (w *WAV) Seconds() float64 { return float64(w.Frames()) / float64(w.Format.SampleRate) }
