package perturb

import (
	"crypto/sha256"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// sameVariant fails unless the Hasher gives exactly WAV.Variant's result
// (or the same error) for index.
func sameVariant(t testing.TB, w *WAV, h *Hasher, index int64) {
	t.Helper()
	want, werr := w.Variant(index)
	got, gerr := h.Variant(index)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("index %d: Hasher error %v, WAV.Variant error %v", index, gerr, werr)
	}
	if got != want {
		t.Fatalf("index %d (byte offset %d, checkpoints every %d): Hasher %+v, WAV.Variant %+v", index, want.ByteOffset, h.every, got, want)
	}
}

// TestHasherVectors: every sample of every test vector, with checkpoints
// every byte, every few bytes, every 64 and at the default spacing, and
// the clip's own digest.
func TestHasherVectors(t *testing.T) {
	for _, v := range goodVectors() {
		t.Run(v.name, func(t *testing.T) {
			w, err := Parse(v.name, v.file)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []*Hasher{newHasher(w, 1), newHasher(w, 3), newHasher(w, 7), newHasher(w, 64), NewHasher(w)} {
				for i := range w.Samples() {
					sameVariant(t, w, h, i)
				}
				if h.Sum() != sha256.Sum256(v.file) {
					t.Fatalf("every %d: Sum is not the clip's SHA-256", h.every)
				}
			}
			// Sum first, variants after: every checkpoint already made.
			h := newHasher(w, 5)
			if h.Sum() != sha256.Sum256(v.file) {
				t.Fatal("Sum before any variant is not the clip's SHA-256")
			}
			for i := w.Samples() - 1; i >= 0; i-- {
				sameVariant(t, w, h, i)
			}
		})
	}
}

// boundaryClips are clips long enough for many checkpoints, one per
// container size and layout.
func boundaryClips(t testing.TB) []*WAV {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []*WAV
	for _, s := range []spec{
		{name: "pcm16-mono", tag: 1, channels: 1, container: 16, rate: 16000},
		{name: "pcm8-mono", tag: 1, channels: 1, container: 8, rate: 8000},
		{name: "pcm24-stereo-list", tag: 1, channels: 2, container: 24, rate: 48000, before: []rawChunk{list5}},
		{name: "ext-pcm24in32", tag: tagExtensible, sub: 1, channels: 2, container: 32, valid: 24, rate: 96000},
		{name: "float32", tag: 3, channels: 1, container: 32, rate: 16000},
	} {
		n := 6007 // samples: not a round number of anything
		s.samples = make([]uint64, n-n%s.channels)
		for i := range s.samples {
			switch {
			case s.tag == 3:
				s.samples[i] = f32(float32(rng.NormFloat64()))
			case s.valid == 24:
				s.samples[i] = i2u(rng.Int64N(1<<24)-1<<23, 8)
			default:
				s.samples[i] = rng.Uint64() & (1<<s.container - 1)
			}
		}
		w, err := Parse(s.name, build(s).file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// TestHasherCheckpointBoundaries tries every sample whose changed byte
// lies within a few bytes of a checkpoint, at several spacings (powers of
// two, and spacings that are not whole SHA-256 blocks), in ascending,
// descending and random order, so that checkpoints are made both ahead of
// and behind the variants that use them.
func TestHasherCheckpointBoundaries(t *testing.T) {
	for _, w := range boundaryClips(t) {
		t.Run(w.Name, func(t *testing.T) {
			size := int64(w.Format.BitsPerSample / 8)
			at, _ := w.Format.lsb()
			indexOf := func(off int64) (int64, bool) {
				rel := off - w.DataOffset - at
				if rel < 0 || rel%size != 0 || rel/size >= w.Samples() {
					return 0, false
				}
				return rel / size, true
			}
			for _, every := range []int64{NewHasher(w).every, 4096, 1000, 100, 64, 63} {
				var near []int64
				for b := every; b < int64(len(w.Bytes)); b += every {
					for off := b - 2*size; off <= b+2*size; off++ {
						if i, ok := indexOf(off); ok {
							near = append(near, i)
						}
					}
				}
				if len(near) == 0 {
					t.Fatalf("every %d: no sample near a checkpoint", every)
				}
				rng := rand.New(rand.NewPCG(uint64(every), 3))
				shuffled := append([]int64(nil), near...)
				rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				descending := make([]int64, len(near))
				for i, x := range near {
					descending[len(near)-1-i] = x
				}
				for _, order := range [][]int64{near, descending, shuffled} {
					h := newHasher(w, every)
					for _, i := range order {
						sameVariant(t, w, h, i)
					}
					// The first and last samples, and a spread between.
					for _, i := range []int64{0, 1, w.Samples() - 1, w.Samples() / 3} {
						sameVariant(t, w, h, i)
					}
				}
			}
		})
	}
}

// TestHasherConcurrent: goroutines share one Hasher (run with -race).
func TestHasherConcurrent(t *testing.T) {
	w := boundaryClips(t)[0]
	want := map[int64]Variant{}
	rng := rand.New(rand.NewPCG(5, 6))
	idx := make([]int64, 400)
	for i := range idx {
		idx[i] = rng.Int64N(w.Samples())
		v, err := w.Variant(idx[i])
		if err != nil {
			t.Fatal(err)
		}
		want[idx[i]] = v
	}
	h := newHasher(w, 512)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range idx {
				i := idx[(k*(g+1)+g)%len(idx)]
				if got, err := h.Variant(i); err != nil || got != want[i] {
					errs <- "variant differs under concurrency"
					return
				}
			}
			if h.Sum() != sha256.Sum256(w.Bytes) {
				errs <- "Sum differs under concurrency"
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestHasherErrors: the same typed errors as WAV.Variant.
func TestHasherErrors(t *testing.T) {
	w, err := Parse("a.wav", build(spec{tag: 3, channels: 1, container: 32, rate: 16000,
		samples: []uint64{f32(1), uint64(math.Float32bits(float32(math.NaN()))), f32(2)}}).file)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHasher(w)
	for _, i := range []int64{-1, 3, 1 << 40} {
		_, err := h.Variant(i)
		var ie *IndexError
		var pe *Error
		if !errors.As(err, &ie) || !errors.As(err, &pe) || pe.File != "a.wav" || ie.Index != i {
			t.Errorf("Variant(%d): %v, want an *IndexError in an *Error naming a.wav", i, err)
		}
		sameVariant(t, w, h, i)
	}
	if _, err := h.Variant(1); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Variant of a NaN sample: %v, want ErrNotFinite", err)
	}
	sameVariant(t, w, h, 1)
	sameVariant(t, w, h, 2)
}

// TestHasherMemory: a variant allocates nothing that grows with the clip,
// and a long clip keeps at most maxCheckpoints states.
func TestHasherMemory(t *testing.T) {
	// Bytes, not allocation counts: the race detector's sync.Pool drops
	// some of what is put back, which costs a small allocation now and then.
	perVariant := func(samples int) uint64 {
		w, err := Parse("a.wav", build(spec{tag: 1, channels: 1, container: 16, rate: 16000, samples: make([]uint64, samples)}).file)
		if err != nil {
			t.Fatal(err)
		}
		h := NewHasher(w)
		h.Sum()
		const n = 200
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range int64(n) {
			if _, err := h.Variant(i * 7919 % w.Samples()); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	if small, large := perVariant(20000), perVariant(2000000); small > 256 || large > 256 {
		t.Errorf("bytes allocated per variant: %d for a 40 KB clip, %d for a 4 MB one; want next to nothing for both", small, large)
	}
	w, err := Parse("long.wav", build(spec{tag: 1, channels: 2, container: 16, rate: 48000, samples: make([]uint64, 20_000_000)}).file)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHasher(w)
	if h.Sum() != sha256.Sum256(w.Bytes) {
		t.Fatal("Sum of a long clip")
	}
	if n := h.count(); n > maxCheckpoints || n < maxCheckpoints/2 {
		t.Errorf("%d checkpoints for a %d-byte clip, want at most %d (and not far fewer)", n, len(w.Bytes), maxCheckpoints)
	}
	if cap(h.states) > (maxCheckpoints+1)*h.stride {
		t.Errorf("checkpoint storage %d bytes for %d states of %d", cap(h.states), h.count(), h.stride)
	}
}

// FuzzHasher: for any file Parse accepts, any spacing and any indices,
// the Hasher's variants and sum are WAV.Variant's and sha256.Sum256's.
func FuzzHasher(f *testing.F) {
	seeds := 0
	for _, v := range goodVectors() {
		f.Add(v.file, uint16(3), int64(0), int64(len(v.file)))
		seeds++
	}
	if seeds == 0 {
		f.Fatal("no seed vectors")
	}
	f.Fuzz(func(t *testing.T, b []byte, every uint16, i, j int64) {
		w, err := Parse("fuzz.wav", b)
		if err != nil {
			return
		}
		h := newHasher(w, int64(every%4096)+1)
		n := w.Samples()
		for _, x := range []int64{i, j, n - 1 - i%n, (i + j) % n, n / 2, i % n, j % n} {
			sameVariant(t, w, h, x)
		}
		if h.Sum() != sha256.Sum256(b) {
			t.Fatal("Sum differs from sha256.Sum256")
		}
	})
}

// BenchmarkHasherVariant is BenchmarkVariantSHA256 through a Hasher whose
// checkpoints are made (as in a run, after the clip's first variants).
func BenchmarkHasherVariant(b *testing.B) {
	w := benchClip(b)
	h := NewHasher(w)
	h.Sum()
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		if _, err := h.Variant(i % w.Samples()); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// BenchmarkHasherSpeedup alternates WAV.Variant and Hasher.Variant of the
// same indices in one loop, so that a shared machine's load hits both
// alike, and reports WAV.Variant's time over the Hasher's as "speedup"
// (about 2 for indices spread over the clip: the Hasher hashes only what
// follows the changed byte).
func BenchmarkHasherSpeedup(b *testing.B) {
	w := benchClip(b)
	h := NewHasher(w)
	h.Sum()
	var plain, ckpt time.Duration
	i := int64(0)
	for b.Loop() {
		x := i % w.Samples()
		t0 := time.Now()
		if _, err := w.Variant(x); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := h.Variant(x); err != nil {
			b.Fatal(err)
		}
		plain += t1.Sub(t0)
		ckpt += time.Since(t1)
		i += 7919
	}
	b.ReportMetric(float64(plain)/float64(ckpt), "speedup")
}
