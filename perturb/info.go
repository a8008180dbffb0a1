package perturb

import (
	"crypto/sha256"
	"encoding/hex"
)

// Info describes a WAV as benchseal reads it (what `benchseal wavinfo`
// prints); its JSON keys are stable.
type Info struct {
	File        string      `json:"file"`
	SHA256      string      `json:"sha256"`
	Format      string      `json:"format"` // "pcm" or "float"
	FormatTag   uint16      `json:"format_tag"`
	FormatName  string      `json:"format_name"`
	Channels    int         `json:"channels"`
	SampleRate  int         `json:"sample_rate"`
	Bits        int         `json:"bits"`
	ValidBits   int         `json:"valid_bits"`
	BlockAlign  int         `json:"block_align"`
	ChannelMask uint32      `json:"channel_mask"`
	Frames      int64       `json:"frames"`
	Samples     int64       `json:"samples"`
	Seconds     float64     `json:"seconds"`
	DataOffset  int64       `json:"data_offset"`
	DataSize    int64       `json:"data_size"`
	Chunks      []ChunkInfo `json:"chunks"` // never nil: [] when there is none
}

// ChunkInfo is a Chunk with stable JSON keys.
type ChunkInfo struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// Info describes w, read from file.
func (w *WAV) Info(file string) Info {
	sum := sha256.Sum256(w.Bytes)
	f := w.Format
	info := Info{
		File: file, SHA256: hex.EncodeToString(sum[:]), Format: "pcm",
		FormatTag: f.Tag, FormatName: FormatName(f.Tag), Channels: f.Channels,
		SampleRate: f.SampleRate, Bits: f.BitsPerSample, ValidBits: f.ValidBits,
		BlockAlign: f.BlockAlign, ChannelMask: f.ChannelMask, Frames: w.Frames(),
		Samples: w.Samples(), Seconds: w.Seconds(), DataOffset: w.DataOffset,
		DataSize: w.DataSize, Chunks: []ChunkInfo{},
	}
	if f.Kind == KindFloat {
		info.Format = "float"
	}
	for _, c := range w.Chunks {
		info.Chunks = append(info.Chunks, ChunkInfo{c.ID, c.Offset, c.Size})
	}
	return info
}

// Change is what one variant changed in a file (what `benchseal perturb
// --json` prints); its JSON keys are stable.
type Change struct {
	SampleIndex  int64   `json:"sample_index"`
	ByteOffset   int64   `json:"byte_offset"`
	OldValue     float64 `json:"old_value"`
	NewValue     float64 `json:"new_value"`
	InputSHA256  string  `json:"input_sha256"`
	OutputSHA256 string  `json:"output_sha256"`
}

// Change describes v, a variant of w.
func (w *WAV) Change(v Variant) Change {
	in := sha256.Sum256(w.Bytes)
	return Change{v.SampleIndex, v.ByteOffset, v.OldValue, v.NewValue, hex.EncodeToString(in[:]), hex.EncodeToString(v.SHA256[:])}
}

// SeededVariant is the variant a run with seed sends first for w: the
// sample Plan{Seed: seed}.Index picks for the clip's SHA-256 at n = 0.
func (w *WAV) SeededVariant(seed uint64) (Variant, error) {
	index, err := Plan{Seed: seed}.Index(sha256.Sum256(w.Bytes), w.Samples(), 0)
	if err != nil {
		return Variant{}, &SeedError{Name: w.Name, Err: err}
	}
	return w.Variant(index)
}

// SeedError is a clip the seeded plan cannot pick a sample from.
type SeedError struct {
	Name string
	Err  error
}

func (e *SeedError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *SeedError) Unwrap() error { return e.Err }
