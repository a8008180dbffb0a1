package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"
	"testing"
)

// WAV is a canonical 44-byte-header RIFF/WAVE file of integer PCM around
// data (interleaved little-endian samples of bits each).
func WAV(rate, channels, bits int, data []byte) []byte {
	block := channels * bits / 8
	le := binary.LittleEndian
	b := make([]byte, 0, 44+len(data))
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+len(data)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1) // PCM
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*block))
	b = le.AppendUint16(b, uint16(block))
	b = le.AppendUint16(b, uint16(bits))
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// PCM16 is a mono 16-bit WAV of the samples.
func PCM16(rate int, samples []int16) []byte {
	data := make([]byte, 0, 2*len(samples))
	for _, s := range samples {
		data = binary.LittleEndian.AppendUint16(data, uint16(s))
	}
	return WAV(rate, 1, 16, data)
}

// Noise is n samples of quiet noise in [-1000, 1000), the same for the
// same seed (PCG(seed, 7)).
func Noise(seed uint64, n int) []int16 {
	rng := mrand.New(mrand.NewPCG(seed, 7))
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(rng.IntN(2000) - 1000)
	}
	return s
}

// Ramp is n samples of (i*mult) mod 20000 - 10000: a loud sawtooth,
// distinct per mult, that the CLI scripts use (mkwav).
func Ramp(mult, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16((i*mult)%20000 - 10000)
	}
	return s
}

// NoiseWAV is a 16 kHz mono 16-bit WAV of the given seconds of Noise.
func NoiseWAV(seconds float64, seed uint64) []byte {
	const rate = 16000
	return PCM16(rate, Noise(seed, int(rate*seconds)))
}

// Key is an ECDSA P-256 key fixed by name: the same name gives the same
// key, so that two seals compare byte for byte; two names, two keys.
func Key(tb testing.TB, name string) *ecdsa.PrivateKey {
	tb.Helper()
	d := sha256.Sum256([]byte(name))
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// NewKey is a fresh ECDSA P-256 key, for a test that needs one no other
// test holds.
func NewKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}
