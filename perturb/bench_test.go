package perturb

import (
	"crypto/sha256"
	"io"
	"testing"
	"time"
)

// benchClip is a 30 s, 16 kHz, 16-bit mono clip: 960 KB of samples.
func benchClip(b *testing.B) *WAV {
	samples := make([]uint64, 30*16000)
	for i := range samples {
		samples[i] = uint64(i * 7919)
	}
	w, err := Parse("bench.wav", build(spec{tag: 1, channels: 1, container: 16, rate: 16000, samples: samples}).file)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkSpliceBody is what a request costs to build and send: the splice
// and streaming it out. Its allocations must not grow with the clip (0 B/op).
func BenchmarkSpliceBody(b *testing.B) {
	w := benchClip(b)
	v, err := w.Variant(w.Samples() / 2)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Splice(v).WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpliceReader is the same through Reader and io.Copy, the path an
// HTTP client takes.
func BenchmarkSpliceReader(b *testing.B) {
	w := benchClip(b)
	v, err := w.Variant(w.Samples() / 2)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := io.Copy(io.Discard, w.Splice(v).Reader()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVariantSHA256 and BenchmarkSHA256 hash the same number of bytes:
// the variant's hash must run within 10% of plain crypto/sha256.
func BenchmarkVariantSHA256(b *testing.B) {
	w := benchClip(b)
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		if _, err := w.Variant(i % w.Samples()); err != nil {
			b.Fatal(err)
		}
		i += 7
	}
}

func BenchmarkSHA256(b *testing.B) {
	w := benchClip(b)
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	for b.Loop() {
		_ = sha256.Sum256(w.Bytes)
	}
}

func BenchmarkPlanIndex(b *testing.B) {
	clip := sha256.Sum256([]byte("clip"))
	b.ReportAllocs()
	n := int64(0)
	for b.Loop() {
		if _, err := (Plan{Seed: 1}).Index(clip, 480000, n%480000); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkVariantSHA256Ratio alternates a variant's hash and plain
// crypto/sha256 of the same clip in one loop, so that load on a shared
// machine hits both alike, and reports variant/plain time as "ratio"
// (the target is <= 1.10).
func BenchmarkVariantSHA256Ratio(b *testing.B) {
	w := benchClip(b)
	b.SetBytes(2 * int64(len(w.Bytes)))
	var variant, plain time.Duration
	i := int64(0)
	hashVariant := func() {
		t := time.Now()
		if _, err := w.Variant(i % w.Samples()); err != nil {
			b.Fatal(err)
		}
		variant += time.Since(t)
	}
	hashPlain := func() {
		t := time.Now()
		_ = sha256.Sum256(w.Bytes)
		plain += time.Since(t)
	}
	for b.Loop() {
		// Alternate which goes first, so that neither always finds the
		// clip warm in the cache.
		if i%2 == 0 {
			hashVariant()
			hashPlain()
		} else {
			hashPlain()
			hashVariant()
		}
		i += 7
	}
	b.ReportMetric(float64(variant)/float64(plain), "ratio")
}
