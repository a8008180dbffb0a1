package bundle

import (
	"crypto"
	"errors"
	"fmt"
	"io"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Caps on the entries Open keeps in memory.
const (
	maxEnvelope  = 64 << 20 // a statement lists one subject per file: ~150 bytes each
	maxPublicKey = 64 << 10
	maxTimestamp = 1 << 20 // a TimeStampResp with its chain: a few KiB
)

// Bundle is a bundle read to its end by Open: every entry's name, size and
// digest, and the attestation (and embedded public key) kept in memory.
type Bundle struct {
	Envelope  []byte  // attestation.dsse.json
	PublicPEM []byte  // benchseal.pub, nil when the bundle has none
	Timestamp []byte  // attestation.tsr, nil when the seal was not time-stamped
	Entries   []Entry // in archive order; Entries[0] is the attestation
}

// Open reads a whole bundle through a Reader with the given limits. The
// first entry must be attestation.dsse.json. Nothing is verified but the
// archive's safety: see Verify and CheckSubjects.
func Open(r io.Reader, limits Limits) (*Bundle, error) {
	rd, err := NewReader(r, limits)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	b := &Bundle{}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b.Entries) == 0 && e.Name != AttestationName {
			return nil, &EntryError{Name: e.Name, Reason: ErrNoAttestation}
		}
		switch {
		case len(b.Entries) == 0:
			if b.Envelope, err = readCapped(rd, e, maxEnvelope); err != nil {
				return nil, err
			}
		case e.Name == PublicKeyName:
			if b.PublicPEM, err = readCapped(rd, e, maxPublicKey); err != nil {
				return nil, err
			}
		case e.Name == TimestampName && len(b.Entries) == 1:
			if b.Timestamp, err = readCapped(rd, e, maxTimestamp); err != nil {
				return nil, err
			}
		default:
			if _, err := io.Copy(io.Discard, onlyReader{rd}); err != nil {
				return nil, err
			}
		}
		b.Entries = append(b.Entries, *e)
	}
	if len(b.Entries) == 0 {
		return nil, &EntryError{Reason: ErrNoAttestation}
	}
	return b, nil
}

func readCapped(rd *Reader, e *Entry, limit int64) ([]byte, error) {
	if e.Size > limit {
		return nil, &EntryError{Name: e.Name, Reason: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, e.Size, limit)}
	}
	return io.ReadAll(onlyReader{rd})
}

// Files are the entries the statement must list: all but the
// attestation and, right after it, the seal's time-stamp (which dates the
// attestation, so no statement can list it).
func (b *Bundle) Files() []Entry {
	if len(b.Entries) == 0 {
		return nil
	}
	files := b.Entries[1:]
	if len(files) > 0 && files[0].Name == TimestampName {
		files = files[1:]
	}
	return files
}

// Statement parses the attestation without checking its signature.
func (b *Bundle) Statement() (*Statement, error) { return ParseEnvelope(b.Envelope) }

// Verify checks the attestation's signature with pub and returns the
// statement it signs.
func (b *Bundle) Verify(pub crypto.PublicKey) (*Statement, error) {
	return VerifyEnvelope(b.Envelope, pub)
}

// EmbeddedKey is the public key the bundle carries (benchseal.pub, written
// when an ephemeral key signed it). Trusting it proves only that the
// bundle is intact, not who sealed it.
func (b *Bundle) EmbeddedKey() (crypto.PublicKey, error) {
	if b.PublicPEM == nil {
		return nil, &EntryError{Name: PublicKeyName, Reason: errors.New("the bundle carries no public key (it was sealed with --key)")}
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(b.PublicPEM)
	if err != nil {
		return nil, &EntryError{Name: PublicKeyName, Reason: err}
	}
	return pub, nil
}

// DigestError is a file whose digest does not match the statement: Want
// is "" for a file the statement does not list, Got is "" for a subject
// missing from the archive.
type DigestError struct {
	Name, Want, Got string
}

func (e *DigestError) Error() string {
	switch {
	case e.Want == "":
		return fmt.Sprintf("%s: in the archive but not a subject of the statement", e.Name)
	case e.Got == "":
		return fmt.Sprintf("%s: a subject of the statement but not in the archive", e.Name)
	}
	return fmt.Sprintf("%s: sha256 %s, statement says %s", e.Name, e.Got, e.Want)
}

// CheckSubjects compares every entry but the attestation with the
// statement's subjects and returns every difference, as *DigestError
// joined with errors.Join (nil when they match exactly).
func (b *Bundle) CheckSubjects(st *Statement) error {
	want := make(map[string]string, len(st.Subject))
	var errs []error
	for _, s := range st.Subject {
		if _, dup := want[s.Name]; dup {
			errs = append(errs, &DigestError{Name: s.Name, Want: s.SHA256(), Got: "(listed twice)"})
		}
		want[s.Name] = s.SHA256()
	}
	for _, e := range b.Files() {
		w, ok := want[e.Name]
		switch {
		case !ok:
			errs = append(errs, &DigestError{Name: e.Name, Got: e.SHA256})
		case w != e.SHA256:
			errs = append(errs, &DigestError{Name: e.Name, Want: w, Got: e.SHA256})
		}
		delete(want, e.Name)
	}
	for _, s := range st.Subject {
		if _, left := want[s.Name]; left {
			errs = append(errs, &DigestError{Name: s.Name, Want: s.SHA256()})
			delete(want, s.Name)
		}
	}
	return errors.Join(errs...)
}
