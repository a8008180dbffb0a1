package perturb

// API contract shared by the runner, the verifier and the CLI. The bodies
// are filled in by the perturb implementation; signatures are fixed.

import (
	"io"
)

// Kind is the sample encoding after resolving WAVE_FORMAT_EXTENSIBLE.
type Kind int

const (
	KindPCM   Kind = iota + 1 // integer PCM (8-bit unsigned, 16/24/32-bit signed)
	KindFloat                 // IEEE float32
)

// Format is the fmt chunk, resolved.
type Format struct {
	Tag           uint16 // as written: 1 PCM, 3 float, 0xFFFE extensible
	Kind          Kind
	Channels      int
	SampleRate    int
	BitsPerSample int // container bits
	ValidBits     int // == BitsPerSample unless extensible says fewer
	BlockAlign    int
	ChannelMask   uint32
}

// Chunk is one RIFF chunk as found in the file.
type Chunk struct {
	ID     string // four characters, e.g. "fmt ", "data", "LIST"
	Offset int64  // file offset of the chunk header
	Size   int64  // declared payload size (without the pad byte)
}

// WAV is a parsed RIFF/WAVE file. It references the file's bytes; it never
// copies them.
type WAV struct {
	Name       string // used in errors
	Bytes      []byte // the whole file, shared
	Format     Format
	DataOffset int64 // file offset of the first sample byte
	DataSize   int64 // bytes of whole samples in the data chunk
	Chunks     []Chunk
}

// Variant is the result of flipping one sample's least significant valid bit.
type Variant struct {
	SampleIndex int64   // interleaved: frame*channels + channel
	ByteOffset  int64   // file offset of the one changed byte
	Byte        byte    // the new value of that byte
	OldValue    float64 // sample value before (an integer for PCM)
	NewValue    float64 // and after: exactly one LSB (one ULP for float) away
	SHA256      [32]byte
}

// Splice is a variant's bytes without a copy: Head, then Byte, then Tail.
type Splice struct {
	Head []byte
	Byte byte
	Tail []byte
}

var (
	_ io.WriterTo = Splice{}
)

// --- functions below are stubs until the perturb implementation lands ---

// Parse walks the RIFF chunks of b (the bytes of the file called name).
func Parse(name string, b []byte) (*WAV, error) { panic("perturb: not implemented") }

// ReadFile reads and parses a WAV file.
func ReadFile(path string) (*WAV, error) { panic("perturb: not implemented") }

// Samples is the number of interleaved samples (frames * channels).
func (w *WAV) Samples() int64 { panic("perturb: not implemented") }

// Frames is the number of sample frames.
func (w *WAV) Frames() int64 { panic("perturb: not implemented") }

// Seconds is the duration: frames / sample rate.
func (w *WAV) Seconds() float64 { panic("perturb: not implemented") }

// Variant flips the least significant valid bit of sample index and
// returns the variant with its SHA-256, computed without copying the file.
func (w *WAV) Variant(index int64) (Variant, error) { panic("perturb: not implemented") }

// Splice returns the variant's bytes as shared slices around the one byte.
func (w *WAV) Splice(v Variant) Splice { panic("perturb: not implemented") }

// Len is the variant's length in bytes.
func (s Splice) Len() int64 { return int64(len(s.Head)) + 1 + int64(len(s.Tail)) }

// WriteTo writes the variant's bytes to dst.
func (s Splice) WriteTo(dst io.Writer) (int64, error) { panic("perturb: not implemented") }

// Plan hands out the sample indices of variants, deterministically from a
// seed, distinct per clip.
type Plan struct{ Seed uint64 }

// Index returns the sample index of the n-th variant (0-based) of the clip
// whose original bytes hash to clip and which has samples interleaved
// samples. For n < samples the indices of one clip are distinct.
func (p Plan) Index(clip [32]byte, samples int64, n int64) (int64, error) {
	panic("perturb: not implemented")
}
