package perturb

import (
	"encoding/binary"
	"math"
)

// A vector is a WAV file built byte by byte in the test, with what the
// parser must find in it. Built here rather than stored so that each one
// says how it is made.
type vector struct {
	name   string
	file   []byte
	dataAt int64 // offset of the first sample byte
	frames int64
	format Format
	chunks []string // chunk IDs in file order
}

type rawChunk struct {
	id      string
	payload []byte
}

// spec describes a vector: the fmt chunk's fields, the samples, and the
// chunks around the data chunk.
type spec struct {
	name        string
	tag         uint16 // as written; 0xFFFE makes an extensible fmt chunk
	sub         uint16 // extensible subformat
	channels    int
	container   int // bits
	valid       int // bits; extensible only (0: write 0, meaning "container")
	rate        int
	samples     []uint64 // raw container values, little-endian written
	extraData   []byte   // bytes of a partial frame after the samples
	before      []rawChunk
	after       []rawChunk
	noFinalPad  bool // omit the pad byte of the last chunk
	riffSize    int64
	trailing    []byte // bytes after the RIFF form
	fmtOverride []byte
}

func fmtPayload(s spec) []byte {
	if s.fmtOverride != nil {
		return s.fmtOverride
	}
	le := binary.LittleEndian
	block := s.channels * s.container / 8
	bits := s.container
	if s.tag != tagExtensible && s.valid != 0 {
		bits = s.valid // plain PCM declares its valid bits
	}
	p := le.AppendUint16(nil, s.tag)
	p = le.AppendUint16(p, uint16(s.channels))
	p = le.AppendUint32(p, uint32(s.rate))
	p = le.AppendUint32(p, uint32(s.rate*block))
	p = le.AppendUint16(p, uint16(block))
	p = le.AppendUint16(p, uint16(bits))
	if s.tag == tagExtensible {
		p = le.AppendUint16(p, 22)
		p = le.AppendUint16(p, uint16(s.valid))
		p = le.AppendUint32(p, 0x3F) // 5.1 speaker mask, or anything
		p = le.AppendUint16(p, s.sub)
		p = append(p, guidTail...)
	}
	return p
}

// build lays out RIFF/WAVE: fmt, the chunks before, data, the chunks after.
func build(s spec) vector {
	le := binary.LittleEndian
	var data []byte
	cb := s.container / 8
	for _, v := range s.samples {
		for j := range cb {
			data = append(data, byte(v>>(8*j)))
		}
	}
	data = append(data, s.extraData...)
	chunks := []rawChunk{{"fmt ", fmtPayload(s)}}
	chunks = append(chunks, s.before...)
	chunks = append(chunks, rawChunk{"data", data})
	chunks = append(chunks, s.after...)

	body := []byte("WAVE")
	var dataAt int64
	var ids []string
	for i, c := range chunks {
		ids = append(ids, c.id)
		body = append(body, c.id...)
		body = le.AppendUint32(body, uint32(len(c.payload)))
		if c.id == "data" {
			dataAt = int64(8 + len(body))
		}
		body = append(body, c.payload...)
		if len(c.payload)%2 == 1 && !(s.noFinalPad && i == len(chunks)-1) {
			body = append(body, 0)
		}
	}
	size := int64(len(body))
	if s.riffSize != 0 {
		size = s.riffSize
	}
	file := append([]byte("RIFF"), le.AppendUint32(nil, uint32(size))...)
	file = append(file, body...)
	file = append(file, s.trailing...)

	kind := KindPCM
	if s.tag == tagFloat || (s.tag == tagExtensible && s.sub == tagFloat) {
		kind = KindFloat
	}
	valid := s.container
	if s.valid != 0 {
		valid = s.valid
	}
	mask := uint32(0)
	if s.tag == tagExtensible {
		mask = 0x3F
	}
	return vector{
		name:   s.name,
		file:   file,
		dataAt: dataAt,
		frames: int64(len(s.samples) / s.channels),
		format: Format{Tag: s.tag, Kind: kind, Channels: s.channels, SampleRate: s.rate,
			BitsPerSample: s.container, ValidBits: valid, BlockAlign: s.channels * cb, ChannelMask: mask},
		chunks: ids,
	}
}

func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }

// i2u writes a signed value into a container of bits, shifted left by
// shift (left-justified valid bits).
func i2u(v int64, shift int) uint64 { return uint64(v << shift) }

var (
	list5 = rawChunk{"LIST", []byte("INFOx")} // odd size: a pad byte follows
	junk  = rawChunk{"JUNK", make([]byte, 28)}
	fact  = rawChunk{"fact", []byte{4, 0, 0, 0}}
)

// goodSpecs covers every format and chunk layout Parse accepts.
func goodSpecs() []spec {
	m := func(vs ...int64) []uint64 {
		out := make([]uint64, len(vs))
		for i, v := range vs {
			out[i] = uint64(v)
		}
		return out
	}
	shifted := func(shift int, vs ...int64) []uint64 {
		out := make([]uint64, len(vs))
		for i, v := range vs {
			out[i] = i2u(v, shift)
		}
		return out
	}
	return []spec{
		{name: "pcm8-mono", tag: 1, channels: 1, container: 8, rate: 8000, samples: m(0, 255, 128, 127, 1)},
		{name: "pcm16-mono", tag: 1, channels: 1, container: 16, rate: 16000, samples: m(32767, -32768, 0, -1, 1, 1234)},
		{name: "pcm16-stereo-list-junk", tag: 1, channels: 2, container: 16, rate: 44100,
			samples: m(1, 2, -3, 4, 32767, -32768), before: []rawChunk{list5, junk}},
		{name: "pcm24-mono", tag: 1, channels: 1, container: 24, rate: 48000, samples: m(0x7FFFFF, -0x800000, 0, -1, 77)},
		{name: "pcm32-stereo", tag: 1, channels: 2, container: 32, rate: 16000, samples: m(math.MaxInt32, math.MinInt32, 0, -1)},
		{name: "float32-mono", tag: 3, channels: 1, container: 32, rate: 16000, samples: []uint64{
			f32(0), f32(float32(math.Copysign(0, -1))), f32(1), f32(-1), f32(math.MaxFloat32),
			f32(-math.MaxFloat32), f32(math.SmallestNonzeroFloat32), f32(0.5), 0x00800000, 0x007FFFFF}},
		{name: "float32-fact-after", tag: 3, channels: 2, container: 32, rate: 22050,
			samples: []uint64{f32(0.25), f32(-0.125), f32(1e-3), f32(3)}, before: []rawChunk{fact}, after: []rawChunk{list5}},
		{name: "ext-pcm16-6ch", tag: tagExtensible, sub: 1, channels: 6, container: 16, valid: 16, rate: 48000,
			samples: m(1, 2, 3, 4, 5, 6, -1, -2, -3, 32767, -32768, 0)},
		{name: "ext-pcm24in32", tag: tagExtensible, sub: 1, channels: 2, container: 32, valid: 24, rate: 96000,
			samples: shifted(8, 0x7FFFFF, -0x800000, 0, -1, 5, 6)},
		{name: "ext-pcm20in24", tag: tagExtensible, sub: 1, channels: 1, container: 24, valid: 20, rate: 96000,
			samples: shifted(4, 0x7FFFF, -0x80000, 0, -1)},
		{name: "ext-pcm-valid0", tag: tagExtensible, sub: 1, channels: 1, container: 16, valid: 0, rate: 8000,
			samples: m(10, -10)},
		{name: "ext-float", tag: tagExtensible, sub: 3, channels: 1, container: 32, valid: 32, rate: 16000,
			samples: []uint64{f32(0.75), f32(-0.75), f32(0)}},
		{name: "pcm12in16", tag: 1, channels: 1, container: 16, valid: 12, rate: 8000,
			samples: shifted(4, 2047, -2048, 0, -1)},
		{name: "pcm8-odd-data-list-after", tag: 1, channels: 1, container: 8, rate: 8000,
			samples: m(10, 20, 30), after: []rawChunk{list5}},
		{name: "pcm8-odd-data-no-final-pad", tag: 1, channels: 1, container: 8, rate: 8000,
			samples: m(255, 0, 200), noFinalPad: true},
		{name: "pcm16-stereo-partial-frame", tag: 1, channels: 2, container: 16, rate: 16000,
			samples: m(100, -100, 200, -200), extraData: []byte{1, 2, 3}},
		{name: "pcm16-trailing-garbage", tag: 1, channels: 1, container: 16, rate: 16000,
			samples: m(5, 6), trailing: []byte("ID3\x03\x00\x00\x00\x00\x01\x00")},
		{name: "pcm16-riff-size-too-small", tag: 1, channels: 1, container: 16, rate: 16000,
			samples: m(5, 6), before: []rawChunk{junk}, riffSize: 36},
	}
}

func goodVectors() []vector {
	var vs []vector
	for _, s := range goodSpecs() {
		vs = append(vs, build(s))
	}
	return vs
}
