package verify

import (
	"crypto"
	"errors"
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/bundle"
)

// Why check 2 did not hold, as the Err of its finding: the CLI turns
// these into hints that name its flags (the library names none).
var (
	// ErrNeedKey: the bundle was sealed with a key of the sealer's own,
	// which it does not carry, and no key was given: the signature was not
	// checked.
	ErrNeedKey = errors.New("this bundle needs its sealer's public key")
	// ErrOtherKey: the signature does not verify with the key given; the
	// statement names another.
	ErrOtherKey = errors.New("signed by a different key")
	// ErrNotBenchseal: the signature holds, over something that is not a
	// benchseal statement.
	ErrNotBenchseal = errors.New("not a benchseal statement")
)

// checkSignature is check 2. It returns the statement to check the files
// against: the verified one, or (when the signature fails) the unverified
// one, so that the other checks still report what they find.
func checkSignature(rep *Report, b *bundle.Bundle, pub crypto.PublicKey) *bundle.Statement {
	c := rep.Check(CheckSignature)
	pinned := pub != nil
	unsigned, _ := b.Statement() // what the envelope says, unverified
	if !pinned {
		if k, err := b.EmbeddedKey(); err == nil {
			pub = k
		} else {
			c.add(Finding{Status: Unchecked, Path: bundle.AttestationName, Reason: "not checked: " + ErrNeedKey.Error(), Err: ErrNeedKey})
			c.Summary = "not checked: " + ErrNeedKey.Error()
			if unsigned != nil && unsigned.Predicate.Key.Fingerprint != "" {
				c.Summary += " (the statement names " + unsigned.Predicate.Key.Fingerprint + ")"
			}
			return unsigned
		}
	}
	fp, _ := bundle.Fingerprint(pub)
	rep.Key, rep.Pinned = fp, pinned
	st, err := b.Verify(pub)
	switch {
	case err == nil:
		if st.Predicate.Key.Fingerprint != fp {
			c.failf(bundle.AttestationName, nil, "the predicate names key %s, but %s signed it", st.Predicate.Key.Fingerprint, fp)
		}
		if !pinned {
			c.warnKindf(KindUnpinned, bundle.PublicKeyName, "signer unpinned: verified with the key the bundle carries, which proves it intact, not who sealed it")
		}
		if pinned && st.Predicate.Key.Ephemeral {
			c.warnf(bundle.AttestationName, "the predicate says the key was ephemeral, yet it verifies with the given key")
		}
	case errors.Is(err, bundle.ErrBadSignature):
		// sigstore's own words ("accepted signatures do not match
		// threshold") say nothing to a reader: say whose key it is.
		signer := ""
		if unsigned != nil {
			signer = unsigned.Predicate.Key.Fingerprint
		}
		switch {
		case unsigned == nil:
			c.add(Finding{Status: Fail, Path: bundle.AttestationName, Err: err,
				Reason: fmt.Sprintf("no signature of the attestation verifies with %s, and what it holds is not a benchseal statement naming the key that signed it", fp)})
			c.Summary = "not valid for key " + fp
		case signer != "" && signer != fp:
			c.add(Finding{Status: Fail, Path: bundle.AttestationName, Err: fmt.Errorf("%w: %w", ErrOtherKey, err),
				Reason: fmt.Sprintf("signed by a different key (%s, as the statement names it), not by %s", signer, fp)})
			c.Summary = fmt.Sprintf("signed by a different key (%s), not by %s", signer, fp)
		default:
			c.add(Finding{Status: Fail, Path: bundle.AttestationName, Err: err,
				Reason: fmt.Sprintf("the signature does not verify with %s, the key the statement names: the attestation was changed after signing", fp)})
			c.Summary = "not valid for key " + fp
		}
		return unsigned
	case errors.Is(err, bundle.ErrBadStatement):
		c.add(Finding{Status: Fail, Path: bundle.AttestationName, Err: fmt.Errorf("%w: %w", ErrNotBenchseal, err),
			Reason: "the signature is valid, but what it signs is not a benchseal statement: " + statementDetail(err)})
		c.Summary = "valid signature over something that is not a benchseal statement"
		return nil
	default:
		c.failf(bundle.AttestationName, err, "%s", strings.TrimPrefix(err.Error(), "bundle: "))
	}
	if st == nil {
		st = unsigned
		if st == nil {
			_, perr := b.Statement()
			c.failf(bundle.AttestationName, perr, "the attestation cannot be read: %v", perr)
		}
	}
	switch {
	case c.Status == Pass:
		c.Summary = "valid, key " + rep.Key
	case c.Status == Warn:
		c.Summary = "valid, unpinned key " + rep.Key
	case c.Summary == "":
		c.Summary = "not valid for key " + rep.Key
	}
	return st
}

// statementDetail is why a signed payload is not a benchseal statement,
// without the sentinel's own words in front.
func statementDetail(err error) string {
	s := err.Error()
	if i := strings.Index(s, bundle.ErrBadStatement.Error()+": "); i >= 0 {
		return s[i+len(bundle.ErrBadStatement.Error())+2:]
	}
	return s
}

// checkSubjects is check 3: the files against the statement's subjects,
// and the predicate's file count and bytes.
func checkSubjects(rep *Report, b *bundle.Bundle, st *bundle.Statement, fl *files) {
	c := rep.Check(CheckSubjects)
	if st == nil {
		// Check 2 failed and says why; there is nothing to compare with.
		c.Status, c.Summary = Skip, "not run: no benchseal statement to compare the files with"
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
	for _, e := range b.Files() {
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
		c.Summary = fmt.Sprintf("%d files, all digests match", len(b.Files()))
	} else {
		c.Summary = fmt.Sprintf("%d of %d files differ from the statement", bad, max(len(b.Files()), len(st.Subject)))
	}
}
