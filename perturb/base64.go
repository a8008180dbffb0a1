package perturb

import (
	"encoding/base64"
	"fmt"
)

// Base64 is the standard, padded base64 (RFC 4648 section 4) of a file:
// the text a `data:audio/wav;base64,` URL carries. A base64 character
// group encodes 3 bytes in 4 characters, so a variant of the file, which
// changes bytes inside a few groups, changes only those groups' characters:
// Splice re-encodes them alone and shares the rest of Text. It is a pure
// function of the file and the variant's splice, so a verifier re-derives
// the text sent from the file and the variant.
type Base64 struct {
	src  []byte // the file, shared
	Text []byte // base64 of the file, encoded once; never written
}

// NewBase64 encodes src once.
func NewBase64(src []byte) *Base64 {
	t := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
	base64.StdEncoding.Encode(t, src)
	return &Base64{src: src, Text: t}
}

// Splice is the base64 text of the bytes s spells, s being a splice of
// the file (WAV.Splice's): Head and Tail are slices of Text, Mid the
// re-encoded groups that hold s's Mid (4 characters per 3 bytes, the last
// group padded as the whole text's is). Mid is new (4 characters for a
// one-byte change), Splice's one allocation. It panics when s
// is not a splice of the file (its length differs, or its Head is not a
// prefix of it).
func (b *Base64) Splice(s Splice) Splice {
	n := len(b.src)
	off, w := len(s.Head), len(s.Mid)
	if int64(n) != s.Len() || (off > 0 && &s.Head[0] != &b.src[0]) {
		panic(fmt.Sprintf("perturb: a splice of %d bytes at %d is not one of this %d-byte file", s.Len(), off, n))
	}
	if w == 0 {
		return Splice{Head: b.Text}
	}
	g0, g1 := off/3, (off+w+2)/3 // the groups the changed bytes are in
	lo, hi := 3*g0, min(3*g1, n)
	// One allocation: the changed groups' bytes, then their text.
	buf := make([]byte, hi-lo+base64.StdEncoding.EncodedLen(hi-lo))
	raw, mid := buf[:hi-lo], buf[hi-lo:]
	for i := range raw {
		raw[i] = s.at(lo + i)
	}
	base64.StdEncoding.Encode(mid, raw)
	return Splice{Head: b.Text[: 4*g0 : 4*g0], Mid: mid, Tail: b.Text[min(4*g1, len(b.Text)):]}
}

// at is byte i of the bytes s spells.
func (s Splice) at(i int) byte {
	if i < len(s.Head) {
		return s.Head[i]
	}
	if i -= len(s.Head); i < len(s.Mid) {
		return s.Mid[i]
	}
	return s.Tail[i-len(s.Mid)]
}
