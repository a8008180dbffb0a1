package perturb

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// planDomain separates the plan's key from any other use of SHA-256.
const planDomain = "benchseal.plan/v1"

// planRounds is the number of Feistel rounds; part of the plan's format.
const planRounds = 8

// Plan hands out the sample indices of variants, deterministically from a
// seed, distinct per clip.
type Plan struct{ Seed uint64 }

// Index returns the sample index of the n-th variant (0-based) of the clip
// whose original bytes hash to clip and which has samples interleaved
// samples. For n < samples the indices of one clip are distinct; n >=
// samples is an error wrapping ErrTooManyVariants. The construction, part
// of the evidence format, is in the package documentation.
func (p Plan) Index(clip [32]byte, samples int64, n int64) (int64, error) {
	switch {
	case samples <= 0:
		return 0, fmt.Errorf("%w: variant %d of a clip with %d samples", ErrTooManyVariants, n, samples)
	case n < 0:
		return 0, fmt.Errorf("perturb: negative variant number %d", n)
	case n >= samples:
		return 0, fmt.Errorf("%w: variant %d of a clip with %d samples", ErrTooManyVariants, n, samples)
	}
	var seed [len(planDomain) + 8 + 32]byte
	copy(seed[:], planDomain)
	binary.BigEndian.PutUint64(seed[len(planDomain):], p.Seed)
	copy(seed[len(planDomain)+8:], clip[:])
	key := sha256.Sum256(seed[:])

	// k bits cover [0, samples); at least 2 so that both halves have a bit.
	k := max(bits.Len64(uint64(samples-1)), 2)
	lo := k - k/2 // R: the low bits
	hi := k / 2   // L: the high bits
	x := uint64(n)
	// Cycle-walking: the permutation of [0, 2^k) restricted to [0, samples)
	// by re-applying it until the value lands inside is a permutation of
	// [0, samples), and 2^k < 2*samples keeps the walk short.
	for {
		x = feistel(&key, x, hi, lo)
		if x < uint64(samples) {
			return int64(x), nil
		}
	}
}

// feistel is an alternating (unbalanced) Feistel permutation of [0, 2^(hi+lo)):
// even rounds XOR the low half with F(round, high half), odd rounds the high
// half with F(round, low half). Each round is its own inverse, hence the
// whole is a permutation whatever F is.
func feistel(key *[32]byte, x uint64, hi, lo int) uint64 {
	l, r := x>>lo, x&(1<<lo-1)
	for i := range planRounds {
		if i%2 == 0 {
			r ^= round(key, i, l) & (1<<lo - 1)
		} else {
			l ^= round(key, i, r) & (1<<hi - 1)
		}
	}
	return l<<lo | r
}

// round is F(i, v): the first 8 bytes, big-endian, of
// SHA-256(key || byte(i) || uint64be(v)).
func round(key *[32]byte, i int, v uint64) uint64 {
	var in [32 + 1 + 8]byte
	copy(in[:], key[:])
	in[32] = byte(i)
	binary.BigEndian.PutUint64(in[33:], v)
	sum := sha256.Sum256(in[:])
	return binary.BigEndian.Uint64(sum[:8])
}
