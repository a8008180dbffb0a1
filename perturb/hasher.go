package perturb

import (
	"crypto/sha256"
	"encoding"
	"hash"
	"sync"
)

// Hasher computes the SHA-256 of a clip's variants without hashing the
// bytes before the changed one again and again. A variant's bytes equal the
// clip's up to the changed byte, so its hash state there equals the clip's:
// the Hasher keeps the state of the clip's hash every few KiB (a
// checkpoint), restores the one at or before the changed byte and hashes
// only from there. The digests are exactly WAV.Variant's.
//
// Checkpoints are made as far as a variant needs them, so a clip's first
// variant costs one pass over the clip, like WAV.Variant, and each later
// one only the bytes after its checkpoint (about half the clip on average
// for a uniformly drawn sample). A clip has at most maxCheckpoints of them
// (about 7 KiB), however long it is; a variant allocates nothing that
// grows with the clip. A Hasher is safe for concurrent use.
type Hasher struct {
	w     *WAV
	every int64 // bytes between checkpoints

	mu     sync.Mutex
	run    hash.Hash // the clip's hash, as far as the checkpoints go
	states []byte    // marshalled states at every, 2*every, ...; stride each
	stride int
	sum    *[32]byte // the clip's SHA-256, once computed
}

const (
	// minEvery is the smallest spacing of checkpoints: a variant hashes
	// on average half of it more than it must, 2 KiB, next to the ~100
	// KiB after the changed byte of a typical 6 s clip.
	minEvery = 4 << 10
	// maxCheckpoints bounds a Hasher's memory for long clips: the spacing
	// grows in steps of minEvery instead.
	maxCheckpoints = 64
)

// NewHasher returns a Hasher for w's variants. It hashes nothing yet.
func NewHasher(w *WAV) *Hasher {
	n := int64(len(w.Bytes))
	every := minEvery * max(1, (n+minEvery*maxCheckpoints-1)/(minEvery*maxCheckpoints))
	return newHasher(w, every)
}

// newHasher is NewHasher with a chosen spacing (tests use tiny ones to put
// many checkpoints in small files).
func newHasher(w *WAV, every int64) *Hasher {
	return &Hasher{w: w, every: every, run: sha256.New()}
}

// digests recycles the hash a variant is finished in (and the buffer its
// sum goes through: a slice of the result handed to an interface method
// would move the result to the heap), so that a variant allocates nothing
// once the pool is warm.
var digests = sync.Pool{New: func() any { return &digest{h: sha256.New()} }}

type digest struct {
	h   hash.Hash
	sum [sha256.Size]byte
}

// Variant is WAV.Variant: the same variant and the same SHA-256.
func (h *Hasher) Variant(index int64) (Variant, error) {
	v, err := h.w.locate(index)
	if err != nil {
		return Variant{}, err
	}
	k := v.ByteOffset / h.every
	d := digests.Get().(*digest)
	defer digests.Put(d)
	h.restore(d.h, k)
	b := h.w.Bytes
	d.h.Write(b[k*h.every : v.ByteOffset])
	d.h.Write(oneByte[v.Byte : int(v.Byte)+1])
	d.h.Write(b[v.ByteOffset+1:])
	v.SHA256 = [32]byte(d.h.Sum(d.sum[:0]))
	return v, nil
}

// Sum is the SHA-256 of the clip itself. Computing it makes every
// checkpoint, so that variants hash only their tails from then on.
func (h *Hasher) Sum() [32]byte {
	n := int64(len(h.w.Bytes))
	k := n / h.every
	if k*h.every == n && k > 0 {
		k-- // no checkpoint at the very end: none is ever restored there
	}
	h.mu.Lock()
	done := h.sum
	h.mu.Unlock()
	if done != nil {
		return *done
	}
	d := digests.Get().(*digest)
	defer digests.Put(d)
	h.restore(d.h, k)
	d.h.Write(h.w.Bytes[k*h.every:])
	s := [32]byte(d.h.Sum(d.sum[:0]))
	h.mu.Lock()
	h.sum = &s
	h.mu.Unlock()
	return s
}

// restore sets d to the clip's hash state at offset k*every, making the
// checkpoints up to it first when needed.
func (h *Hasher) restore(d hash.Hash, k int64) {
	if k == 0 {
		d.Reset()
		return
	}
	h.mu.Lock()
	for int64(h.count()) < k {
		i := int64(h.count())
		h.run.Write(h.w.Bytes[i*h.every : (i+1)*h.every])
		before := len(h.states)
		var err error
		if h.states, err = h.run.(encoding.BinaryAppender).AppendBinary(h.states); err != nil {
			panic("perturb: sha256 state: " + err.Error()) // crypto/sha256 cannot fail here
		}
		if h.stride == 0 {
			h.stride = len(h.states) - before
			h.states = append(make([]byte, 0, h.stride*int(int64(len(h.w.Bytes))/h.every)), h.states...)
		}
		if len(h.states) != int(i+1)*h.stride {
			panic("perturb: sha256 states of different sizes")
		}
	}
	st := h.states[(k-1)*int64(h.stride) : k*int64(h.stride)]
	h.mu.Unlock()
	// The checkpoints' backing array never moves once the first is made
	// (its capacity holds them all), and a made state is never rewritten,
	// so st is read outside the lock.
	if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic("perturb: sha256 state: " + err.Error())
	}
}

func (h *Hasher) count() int {
	if h.stride == 0 {
		return 0
	}
	return len(h.states) / h.stride
}
