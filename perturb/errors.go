package perturb

import (
	"errors"
	"fmt"
)

// Error is every error Parse, ReadFile and WAV.Variant return: it names the
// file and wraps the reason, which callers test with errors.Is (the Err*
// sentinels) or errors.As (*CompressedError, *IndexError).
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string { return e.File + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Reasons. A reason is usually wrapped with details (offsets, sizes), so test
// it with errors.Is, not ==.
var (
	// ErrNotRIFF: the file does not start with "RIFF" (or is empty).
	ErrNotRIFF = errors.New("not a RIFF file")
	// ErrBigEndian: the file is RIFX, big-endian RIFF, which is not supported.
	ErrBigEndian = errors.New("big-endian RIFX file is not supported")
	// ErrNotWAVE: a RIFF file of another form (AVI, WebP, ...).
	ErrNotWAVE = errors.New("RIFF file is not WAVE")
	// ErrTruncated: a header or chunk (other than data) ends past the end
	// of the file.
	ErrTruncated = errors.New("truncated file")
	// ErrDataPastEnd: the data chunk declares more bytes than the file has,
	// as streamed WAVs (size 0xFFFFFFFF) and cut files do.
	ErrDataPastEnd = errors.New("data chunk runs past the end of the file")
	// ErrEmptyData: the data chunk holds no whole sample frame.
	ErrEmptyData = errors.New("data chunk holds no samples")
	// ErrMalformed: the chunks or the fmt chunk contradict themselves (no fmt
	// or data chunk, two of them, a block align that does not match, ...).
	ErrMalformed = errors.New("malformed WAV")
	// ErrUnsupported: uncompressed, but a sample encoding this package does
	// not handle (float64, samples wider than 32 bits, ...).
	ErrUnsupported = errors.New("unsupported sample format")
	// ErrNotFinite: the chosen float sample is NaN or infinite, which has no
	// neighbour one ULP away that is meaningful.
	ErrNotFinite = errors.New("sample is not finite")
	// ErrTooManyVariants: a plan was asked for variant n >= samples of a clip.
	ErrTooManyVariants = errors.New("more variants than samples")
)

// CompressedError reports a compressed (or companded) format tag: such
// samples have no least significant bit to flip.
type CompressedError struct {
	Tag  uint16 // the format tag (or the extensible subformat's)
	Name string // "" when unknown
}

func (e *CompressedError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("compressed format 0x%04X is not supported", e.Tag)
	}
	return fmt.Sprintf("compressed format 0x%04X (%s) is not supported", e.Tag, e.Name)
}

// IndexError reports a sample index outside [0, Samples).
type IndexError struct {
	Index   int64
	Samples int64
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("sample index %d out of range [0, %d)", e.Index, e.Samples)
}

// formatNames names the format tags a user is likely to meet.
var formatNames = map[uint16]string{
	0x0000: "unknown",
	0x0001: "PCM",
	0x0002: "Microsoft ADPCM",
	0x0003: "IEEE float",
	0x0006: "A-law",
	0x0007: "mu-law",
	0x0011: "IMA ADPCM",
	0x0016: "ITU G.723 ADPCM",
	0x0031: "GSM 6.10",
	0x0040: "ITU G.721 ADPCM",
	0x0050: "MPEG",
	0x0055: "MPEG Layer 3",
	0x0092: "Dolby AC3 SPDIF",
	0x00FF: "AAC",
	0x0160: "Windows Media Audio",
	0x0161: "Windows Media Audio",
	0x1610: "HE-AAC",
	0x2000: "Dolby AC3",
	0x674F: "Ogg Vorbis",
	0x6750: "Ogg Vorbis",
	0x6751: "Ogg Vorbis",
	0xF1AC: "FLAC",
	0xFFFE: "extensible",
}

// FormatName names a format tag ("PCM", "IEEE float", "MPEG Layer 3"), or
// returns "" for a tag it does not know.
func FormatName(tag uint16) string { return formatNames[tag] }
