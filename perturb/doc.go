// Package perturb makes the variants benchseal sends: copies of a WAV clip
// in which exactly one sample has moved by one least significant bit, so
// that no server cache can recognise a clip it has seen, while the audio is
// unchanged to any ear or model.
//
// # WAV files
//
// Parse walks the RIFF chunks itself, so that a variant is the original file
// with one byte changed (re-encoding with a WAV library would drop LIST and
// fact chunks and change other bytes). It accepts little-endian RIFF/WAVE
// with chunks in any order (LIST, JUNK, fact, ... before or after data),
// odd-sized chunks followed by their pad byte (a pad byte missing at the very
// end of the file is tolerated), and bytes after the RIFF form once fmt and
// data have been found. Sample formats: integer PCM in 8-bit (unsigned),
// 16-, 24- and 32-bit (signed) containers, IEEE float32, and
// WAVE_FORMAT_EXTENSIBLE with a PCM or float subformat, including fewer valid
// bits than the container holds (left-justified, as the format requires); any
// channel count. DataSize counts whole frames only: a trailing partial frame
// is ignored. A data chunk that declares more bytes than the file has
// (streamed WAVs write 0xFFFFFFFF) is an error. Every error is an *Error
// naming the file and wrapping a reason (the Err* sentinels,
// *CompressedError, *IndexError).
//
// # Variants
//
// A variant is named by its clip and a sample index, counted over
// interleaved samples: index = frame*channels + channel. It flips (XORs)
// the least significant valid bit of that sample. In a container of C bits
// holding V valid bits that bit is bit C-V of the sample, counted from bit 0
// of its first (little-endian) byte: bit 0 of byte 0 normally, bit 0 of byte
// 1 for 24 valid bits in a 32-bit container. So exactly one byte of the file
// changes, at
//
//	DataOffset + index*(C/8) + (C-V)/8
//
// and the value moves by exactly one LSB without ever overflowing (32767
// becomes 32766, -32768 becomes -32767; 8-bit 255 becomes 254, 0 becomes 1).
// For float32 the flipped bit is mantissa bit 0, a move of exactly one ULP;
// NaN and infinities are refused (ErrNotFinite), zero and subnormals are
// fine. Variant.OldValue and NewValue are the sample's values: for PCM the
// integer in valid-bit units (the 24-bit value of a 24-in-32 sample; 0..255
// unsigned for 8-bit containers), for float the float32 value.
//
// Variant computes the SHA-256 of the variant by streaming the bytes before
// the changed one, the changed byte and the bytes after it, so that neither
// hashing nor Splice (the request body) copies the clip. A Hasher
// (NewHasher) gives the same variants and digests for many variants of one
// clip at about half the cost: it keeps the clip's SHA-256 state every few
// KiB (at most 64 states per clip) and hashes a variant only from the state
// at or before its changed byte.
//
// A Splice is Head, Mid and Tail: the changed bytes (Mid) may be of any
// width. Base64 is the standard padded base64 view of a file (a clip sent
// in a `data:` URL): its Splice of a variant's splice is the base64 text
// of the variant, sharing the file's encoded text but for the 4-character
// groups that hold the changed bytes, which it re-encodes. It is a pure
// function of the file and the variant, so a verifier re-derives the text
// sent; the variant's SHA-256 stays the perturbed file's.
//
// # Plans
//
// Plan.Index(clip, samples, n) gives the sample index of the n-th variant of
// a clip. It is a keyed pseudo-random permutation of [0, samples), so the
// indices of n = 0 .. samples-1 are distinct by construction and a verifier
// re-derives any one of them directly. The construction is part of the
// evidence format:
//
//	key    = SHA-256("benchseal.plan/v1" || uint64be(seed) || clip)
//	         (17 ASCII bytes, 8 bytes, the 32-byte SHA-256 of the clip's file)
//	k      = max(bitlen(samples-1), 2)   (bits of the domain [0, 2^k))
//	lo     = k - floor(k/2), hi = floor(k/2)
//	F(i,v) = first 8 bytes of SHA-256(key || byte(i) || uint64be(v)),
//	         read as a big-endian uint64
//	perm(x): L = x >> lo, R = x & (2^lo - 1)
//	         for i = 0 .. 7: if i is even, R ^= F(i, L) & (2^lo - 1)
//	                         else          L ^= F(i, R) & (2^hi - 1)
//	         return L << lo | R
//	Index(n) = the first of perm(n), perm(perm(n)), ... that is < samples
//	           (cycle-walking; n >= samples is an error)
//
// # Across runs
//
// A plan is a permutation per seed and clip, so the variants of one run
// never repeat. Two plans with different seeds are independent: with n1
// and n2 variants of a clip drawn out of its N samples, about n1*n2/N of
// them are common to both (a birthday bound), and two runs share any
// variant of a corpus with chance 1 - exp(-sum over clips of n1*n2/N).
// benchseal therefore draws a fresh random seed for every run, and a
// replay under the sealed seed starts each clip's numbering at a random
// point past the sealed run's: numbers n0 .. n0+n-1 of one permutation,
// so two such replays share variants exactly where their ranges overlap,
// with chance about (2n-1)/(N-s-n) per clip (s numbers taken by the sealed
// run). Cache-proofing across runs holds up to that chance, not by
// construction (docs/protocol.md works examples).
//
// # Imports
//
// It owns the WAV walk, the 1-LSB variant and the seeded plan: a format
// another implementation re-derives from this text alone. Must never
// import: bundle, schemas, verify, internal/bench, internal/sim,
// internal/claims, internal/fingerprint. Why: a format stands alone; it
// never depends on who measures or who checks.
package perturb
