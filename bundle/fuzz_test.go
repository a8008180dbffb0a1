package bundle

import (
	"bytes"
	"io"
	"testing"
)

// fuzzLimits keep each fuzz input cheap; the properties hold for any limits.
var fuzzLimits = Limits{MaxEntries: 200, MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20, MaxWindow: 8 << 20,
	MaxDecoderMemory: 32 << 20, MaxRatio: 200, RatioAfter: 1 << 20}

// FuzzReader: whatever the input, the reader either refuses it or yields
// only safe, unique, fully hashed entries within the limits.
func FuzzReader(f *testing.F) {
	n := 0
	for _, v := range hostileVectors() {
		if v.name == "rle-bomb-1GiB" || v.name == "entry-too-large" {
			continue // a seed must stay small to mutate
		}
		f.Add(v.data(f))
		n++
	}
	f.Add(sealedSmall(f))
	n++
	if n < 10 {
		f.Fatalf("only %d seeds", n)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), fuzzLimits)
		if err != nil {
			return
		}
		defer r.Close()
		seen := map[string]bool{}
		var total int64
		for {
			e, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if _, ok := err.(*EntryError); !ok {
					t.Fatalf("error %T %v is not an *EntryError", err, err)
				}
				return
			}
			if checkName(e.Name) != nil || seen[e.Name] || e.Size > fuzzLimits.MaxEntrySize {
				t.Fatalf("accepted entry %q (size %d)", e.Name, e.Size)
			}
			seen[e.Name] = true
			total += e.Size
			if total > fuzzLimits.MaxTotalSize || len(seen) > fuzzLimits.MaxEntries {
				t.Fatalf("accepted %d entries, %d bytes", len(seen), total)
			}
			body, err := io.ReadAll(r)
			if err != nil {
				return
			}
			if int64(len(body)) != e.Size || len(e.SHA256) != 64 {
				t.Fatalf("%s: %d of %d bytes, digest %q", e.Name, len(body), e.Size, e.SHA256)
			}
		}
	})
}

// FuzzParseEnvelope: the statement parser never panics and accepts only
// benchseal statements.
func FuzzParseEnvelope(f *testing.F) {
	bd, err := Open(bytes.NewReader(sealedSmall(f)), DefaultLimits)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bd.Envelope)
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30="}`))
	f.Fuzz(func(t *testing.T, env []byte) {
		st, err := ParseEnvelope(env)
		if err == nil && (st.Type != StatementType || st.PredicateType != PredicateType) {
			t.Fatalf("accepted %q", env)
		}
		VerifyEnvelope(env, testSigner(t).PublicKey())
	})
}
