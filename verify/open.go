package verify

// Open is the one way a command reads the documents of a sealed run that it
// uses (replay re-runs them, report renders them): one pass through the
// hardened bundle reader, the signature and the subjects checked before a
// single document is returned, the bundle's digest and the signing key's
// fingerprint alongside. A run directory is read with the same options and
// caps; nothing in it is signed. An extracted bundle (a folder holding
// attestation.dsse.json, IsExtracted) is signed: its files on disk are
// checked against the statement as a bundle's entries are.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
)

// DefaultMaxDoc caps what Open keeps of one document other than a clip:
// far above any real run.json or claims.json, low enough that a hostile
// bundle cannot exhaust memory. Clips (inputs/*.wav) are capped by
// bundle.DefaultLimits.MaxEntrySize.
const DefaultMaxDoc = 256 << 20

// OpenOptions says what Open keeps and how it trusts a bundle.
type OpenOptions struct {
	// Keep says which entries (run-directory paths, slash-separated) are
	// returned in Source.Docs. The attestation and the embedded public key
	// are always read.
	Keep func(name string) bool
	// Records, when set, is called with every records file
	// (records/<target>/*.jsonl) as it streams by; it is never kept.
	Records func(name string, r io.Reader) error
	// Optional says which kept files of a run directory may be unreadable:
	// their errors go to Source.Skipped instead of failing Open.
	Optional func(name string) bool
	// MaxDoc caps a kept document (DefaultMaxDoc when 0).
	MaxDoc int64
	// Unsigned reads a bundle without checking its signature or subjects
	// (the caller verifies it otherwise, as report does with the whole
	// checklist); the key fingerprint is then the one the statement names.
	Unsigned bool
	// PublicKey checks the signature; nil means the key the bundle carries
	// (Source.KeyPinned false: it proves the bundle intact, not who sealed it).
	PublicKey crypto.PublicKey
}

// Source is a sealed run opened by Open.
type Source struct {
	Path string
	Dir  bool // a folder: a run directory, or an extracted bundle (Signed)
	// Signed: an extracted bundle whose signature and subjects were
	// checked (always true for a bundle file opened without Unsigned).
	Signed bool
	Docs   map[string][]byte // the kept documents, by run-directory path
	// Skipped lists the optional files of a run directory that could not
	// be read, as *ReadError.
	Skipped []error

	SHA256         string // of the whole bundle file, trailing bytes included
	KeyFingerprint string // of the key that verified the signature
	KeyEphemeral   bool   // the statement says the key was ephemeral
	KeyPinned      bool   // the signature was checked with OpenOptions.PublicKey

	// Envelope is the attestation of a bundle opened Unsigned (nil when it
	// has none); see ClaimedKey.
	Envelope []byte
}

// ClaimedKey is the signing key the statement of a bundle opened Unsigned
// names, unverified: its fingerprint and whether it was ephemeral. A
// bundle without an attestation claims none; a bad one is a
// *RefusedError.
func (s *Source) ClaimedKey() (fingerprint string, ephemeral bool, err error) {
	if s.Envelope == nil {
		return "", false, nil
	}
	st, err := bundle.ParseEnvelope(s.Envelope)
	if err != nil {
		return "", false, &RefusedError{Path: s.Path, Err: &bundle.EntryError{Name: bundle.AttestationName, Reason: err}}
	}
	return st.Predicate.Key.Fingerprint, st.Predicate.Key.Ephemeral, nil
}

// ReadError is a file that could not be read (not a finding about the
// bundle's content): missing, unreadable, or cut short by the file system.
type ReadError struct {
	Path string
	Err  error
}

func (e *ReadError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// RefusedError is a bundle Open does not trust: the reader refused the
// archive, the signature does not verify or an entry is not the subject
// the statement signed. Err is the bundle package's typed error.
type RefusedError struct {
	Path string
	Err  error
	// Signature says the archive was read and the refusal came from the
	// signature or subject check, with the key Source.KeyPinned describes.
	Signature bool
	KeyPinned bool
}

func (e *RefusedError) Error() string { return e.Path + " is refused: " + e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// KeyError is a bundle whose signature cannot be checked: no key was
// given and the bundle carries none, or a bad one.
type KeyError struct {
	Path string
	Err  error
}

func (e *KeyError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// Open opens path, a bundle or a run directory (see OpenOptions).
func Open(ctx context.Context, path string, opts OpenOptions) (*Source, error) {
	if opts.MaxDoc == 0 {
		opts.MaxDoc = DefaultMaxDoc
	}
	if opts.Keep == nil {
		opts.Keep = func(string) bool { return false }
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, &ReadError{Path: path, Err: unwrapPath(err)}
	}
	if st.IsDir() {
		return openDir(path, opts)
	}
	return openBundle(path, opts)
}

func (o *OpenOptions) limit(name string) int64 {
	if strings.HasPrefix(name, schemas.InputsDir+"/") {
		return bundle.DefaultLimits.MaxEntrySize
	}
	return o.MaxDoc
}

func openDir(dir string, opts OpenOptions) (*Source, error) {
	s := &Source{Path: dir, Dir: true, Docs: map[string][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		switch {
		case schemas.IsRecords(name) && opts.Records != nil:
			f, err := os.Open(p)
			if err != nil {
				return &ReadError{Path: p, Err: unwrapPath(err)}
			}
			defer f.Close()
			if err := opts.Records(name, f); err != nil {
				return &ReadError{Path: p, Err: err}
			}
		case opts.Keep(name):
			b, err := readCapped(p, opts.limit(name))
			if err != nil && opts.Optional != nil && opts.Optional(name) {
				s.Skipped = append(s.Skipped, &ReadError{Path: p, Err: unwrapPath(err)})
				return nil
			}
			if err != nil {
				return &ReadError{Path: p, Err: unwrapPath(err)}
			}
			s.Docs[name] = b
		}
		return nil
	})
	var re *ReadError
	if err != nil && !errors.As(err, &re) {
		err = &ReadError{Path: dir, Err: unwrapPath(err)}
	}
	if err != nil {
		return nil, err
	}
	if IsExtracted(dir) {
		if err := openExtracted(dir, opts, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// openExtracted checks an extracted bundle as openBundle checks the
// archive (unless opts.Unsigned): the signature, and every file on disk
// against the statement's subjects. s.Dir stays true: its files are read
// from disk; s.SHA256 is empty: there is no archive whose bytes name it.
func openExtracted(dir string, opts OpenOptions, s *Source) error {
	if opts.Unsigned {
		env, err := readCapped(filepath.Join(dir, bundle.AttestationName), maxEnvelope)
		if err != nil {
			return &ReadError{Path: filepath.Join(dir, bundle.AttestationName), Err: unwrapPath(err)}
		}
		s.Envelope = env
		return nil
	}
	fl, odd, err := dirFiles(dir)
	if err != nil {
		return &ReadError{Path: dir, Err: unwrapPath(err)}
	}
	if len(odd) > 0 {
		return &RefusedError{Path: dir, Err: &bundle.EntryError{Name: odd[0].Path, Reason: errors.New(odd[0].Reason)}}
	}
	b, err := dirBundle(fl)
	if err != nil {
		return &ReadError{Path: dir, Err: unwrapPath(err)}
	}
	pub := opts.PublicKey
	s.KeyPinned = pub != nil
	if pub == nil {
		if pub, err = b.EmbeddedKey(); err != nil {
			return &KeyError{Path: dir, Err: err}
		}
	}
	st, err := b.Verify(pub)
	if err == nil {
		err = b.CheckSubjects(st)
	}
	if err != nil {
		return &RefusedError{Path: dir, Err: err, Signature: true, KeyPinned: s.KeyPinned}
	}
	if s.KeyFingerprint, err = bundle.Fingerprint(pub); err != nil {
		return fmt.Errorf("%s: the signing key: %w", dir, err)
	}
	s.KeyEphemeral = st.Predicate.Key.Ephemeral
	s.Signed = true
	return nil
}

func readCapped(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return b, err
}

// openBundle reads a bundle once, keeping the attestation, the embedded
// key and what opts keeps, then (unless Unsigned) checks the signature and
// that every entry is the subject the statement signed.
func openBundle(file string, opts OpenOptions) (*Source, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &ReadError{Path: file, Err: unwrapPath(err)}
	}
	defer f.Close()
	h := sha256.New()
	tee := io.TeeReader(f, h)
	refused := func(err error) error { return &RefusedError{Path: file, Err: err} }
	rd, err := bundle.NewReader(tee, bundle.DefaultLimits)
	if err != nil {
		return nil, refused(err)
	}
	defer rd.Close()
	b := &bundle.Bundle{}
	kept := map[string][]byte{}
	for {
		ent, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, refused(err)
		}
		first := len(b.Entries) == 0
		if first && ent.Name != bundle.AttestationName && !opts.Unsigned {
			return nil, refused(&bundle.EntryError{Name: ent.Name, Reason: bundle.ErrNoAttestation})
		}
		keep := ent.Name == bundle.AttestationName || ent.Name == bundle.PublicKeyName || opts.Keep(ent.Name)
		switch {
		case schemas.IsRecords(ent.Name) && opts.Records != nil:
			if err := opts.Records(ent.Name, rd); err != nil {
				return nil, refused(&bundle.EntryError{Name: ent.Name, Reason: err})
			}
		case !keep:
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return nil, refused(err)
			}
		case ent.Size > opts.limit(ent.Name):
			return nil, refused(&bundle.EntryError{Name: ent.Name,
				Reason: fmt.Errorf("%w: %d bytes, at most %d are read", bundle.ErrTooLarge, ent.Size, opts.limit(ent.Name))})
		default:
			var buf bytes.Buffer
			buf.Grow(int(ent.Size))
			if _, err := io.Copy(&buf, rd); err != nil {
				return nil, refused(err)
			}
			kept[ent.Name] = buf.Bytes()
		}
		// Reading to the end set the entry's digest.
		b.Entries = append(b.Entries, *ent)
	}
	if len(b.Entries) == 0 && !opts.Unsigned {
		return nil, refused(&bundle.EntryError{Reason: bundle.ErrNoAttestation})
	}
	// The digest that names a bundle is of the whole file, trailing bytes included.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, &ReadError{Path: file, Err: err}
	}
	s := &Source{Path: file, Docs: map[string][]byte{}, SHA256: hex.EncodeToString(h.Sum(nil))}
	for name, doc := range kept {
		if opts.Keep(name) {
			s.Docs[name] = doc
		}
	}
	b.Envelope, b.PublicPEM = kept[bundle.AttestationName], kept[bundle.PublicKeyName]
	if opts.Unsigned {
		s.Envelope = b.Envelope
		return s, nil
	}
	pub := opts.PublicKey
	s.KeyPinned = pub != nil
	if pub == nil {
		if pub, err = b.EmbeddedKey(); err != nil {
			return nil, &KeyError{Path: file, Err: err}
		}
	}
	st, err := b.Verify(pub)
	if err == nil {
		err = b.CheckSubjects(st)
	}
	if err != nil {
		return nil, &RefusedError{Path: file, Err: err, Signature: true, KeyPinned: s.KeyPinned}
	}
	if s.KeyFingerprint, err = bundle.Fingerprint(pub); err != nil {
		return nil, fmt.Errorf("%s: the signing key: %w", file, err)
	}
	s.KeyEphemeral, s.Signed = st.Predicate.Key.Ephemeral, true
	return s, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
