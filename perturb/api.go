package perturb

// The types shared by the runner, the verifier and the CLI.

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
	OldValue    float64 // sample value before: for PCM the integer in valid-bit units (the 24-bit value of 24-in-32; 0..255 for 8-bit)
	NewValue    float64 // and after: exactly one LSB (one ULP for float) away
	SHA256      [32]byte
}

// Splice is a variant's bytes without a copy: Head, then Mid (the changed
// bytes, of any width), then Tail. Head and Tail share the original's
// bytes; so does a one-byte Mid (WAV.Splice's, from a static table).
// Nothing may write to any of them.
type Splice struct {
	Head []byte
	Mid  []byte
	Tail []byte
}

var (
	_ io.WriterTo = Splice{}
)

// Len is the variant's length in bytes.
func (s Splice) Len() int64 { return int64(len(s.Head)) + int64(len(s.Mid)) + int64(len(s.Tail)) }
