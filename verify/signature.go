package verify

import (
	"crypto"
	"errors"
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/bundle"
)

// checkSignature is check 2. It returns the statement to check the files
// against: the verified one, or (when the signature fails) the unverified
// one, so that the other checks still report what they find.
func checkSignature(rep *Report, b *bundle.Bundle, pub crypto.PublicKey) *bundle.Statement {
	c := rep.Check(CheckSignature)
	pinned := pub != nil
	if !pinned {
		k, err := b.EmbeddedKey()
		if err != nil {
			c.failf(bundle.PublicKeyName, err, "no key given and the bundle carries none (it was sealed with a key of its own): pass --key")
		} else {
			pub = k
		}
	}
	var st *bundle.Statement
	if pub != nil {
		fp, _ := bundle.Fingerprint(pub)
		rep.Key, rep.Pinned = fp, pinned
		var err error
		st, err = b.Verify(pub)
		if err != nil {
			c.failf(bundle.AttestationName, err, "%s", strings.TrimPrefix(err.Error(), "bundle: "))
		} else {
			if st.Predicate.Key.Fingerprint != fp {
				c.failf(bundle.AttestationName, nil, "the predicate names key %s, but %s signed it", st.Predicate.Key.Fingerprint, fp)
			}
			if !pinned {
				c.warnf(bundle.PublicKeyName, "signer unpinned: verified with the key the bundle carries, which proves it intact, not who sealed it (pass --key)")
			}
			if pinned && st.Predicate.Key.Ephemeral {
				c.warnf(bundle.AttestationName, "the predicate says the key was ephemeral, yet it verifies with the given key")
			}
		}
	}
	if st == nil {
		var err error
		if st, err = b.Statement(); err != nil {
			c.failf(bundle.AttestationName, err, "the attestation cannot be read: %v", err)
			st = nil
		}
	}
	switch {
	case c.Status == Pass:
		c.Summary = "valid, key " + rep.Key
	case c.Status == Warn:
		c.Summary = "valid, unpinned key " + rep.Key
	default:
		c.Summary = "not valid"
		if rep.Key != "" {
			c.Summary += " for key " + rep.Key
		}
	}
	return st
}

// checkSubjects is check 3: the files against the statement's subjects,
// and the predicate's file count and bytes.
func checkSubjects(rep *Report, b *bundle.Bundle, st *bundle.Statement, fl *files) {
	c := rep.Check(CheckSubjects)
	if st == nil {
		c.failf(bundle.AttestationName, nil, "not run: no statement to compare the files with")
		c.Summary = "not run"
		return
	}
	bad := 0
	if err := b.CheckSubjects(st); err != nil {
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		for _, e := range errs {
			var de *bundle.DigestError
			if errors.As(e, &de) {
				c.add(Finding{Status: Fail, Path: de.Name, Reason: strings.TrimPrefix(de.Error(), de.Name+": "), Err: de})
			} else {
				c.failf("", e, "%v", e)
			}
			bad++
		}
	}
	var total int64
	for _, e := range b.Entries[1:] {
		total += e.Size
	}
	p := st.Predicate
	if p.Files != len(st.Subject) {
		c.failf(bundle.AttestationName, nil, "the predicate says %d files, the statement lists %d", p.Files, len(st.Subject))
	}
	if p.Bytes != total {
		c.failf(bundle.AttestationName, nil, "the predicate says %d bytes, the files hold %d", p.Bytes, total)
	}
	inputs := len(fl.glob("inputs/*"))
	if p.NoAudio && inputs > 0 {
		c.failf(bundle.AttestationName, nil, "the predicate says no_audio, yet %d inputs/ files are in the bundle", inputs)
	}
	if c.Status == Pass {
		c.Summary = fmt.Sprintf("%d files, all digests match", len(b.Entries)-1)
	} else {
		c.Summary = fmt.Sprintf("%d of %d files differ from the statement", bad, max(len(b.Entries)-1, len(st.Subject)))
	}
}
