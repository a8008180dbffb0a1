package verify

// An extracted bundle: a folder into which a bundle was unpacked (the
// README's cosign recipe starts with tar --zstd -xf), recognised by the
// attestation at its top. It is verified as the bundle it came from:
// signature, every subject against the files on disk, files no subject
// names, and the rest of the checklist. Treating it as an unsealed run
// directory would pass a folder whose files no longer match what was
// signed, with whatever key the reader gave.

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/benchseal/benchseal/bundle"
)

// IsExtracted reports whether dir is an extracted bundle: a folder holding
// a regular attestation.dsse.json at its top. Such a folder is signed, and
// a key given for it is checked; a run directory without one signs
// nothing.
func IsExtracted(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, bundle.AttestationName))
	return err == nil && st.Mode().IsRegular()
}

// dirBundle presents the files of an extracted bundle as a bundle read
// from an archive, so that checks 2 and 3 run on it as on one: the
// attestation first, then every other file in name order with its
// SHA-256. The attestation leaves fl, as an archive's does (it is the
// signature, not evidence); the digests stay in fl.sum, as bundle.Reader's
// do, so that no clip is hashed twice.
func dirBundle(fl *files) (*bundle.Bundle, error) {
	b := &bundle.Bundle{}
	env, err := fl.read(bundle.AttestationName)
	if err != nil {
		return nil, err
	}
	b.Envelope = env
	b.Entries = append(b.Entries, bundle.Entry{Name: bundle.AttestationName, Size: int64(len(env))})
	names := fl.names[:0:0]
	buf := make([]byte, 256<<10)
	for _, name := range fl.names {
		if name == bundle.AttestationName {
			continue
		}
		names = append(names, name)
		sum, err := hashFile(fl.disk[name], buf)
		if err != nil {
			return nil, err
		}
		fl.sum[name] = sum
		e := bundle.Entry{Name: name, Size: fl.size[name], SHA256: sum}
		if name == bundle.TimestampName {
			// Second in the bundle it came from: the one file the
			// statement cannot list (bundle.Bundle.Files).
			b.Entries = slices.Insert(b.Entries, 1, e)
			continue
		}
		b.Entries = append(b.Entries, e)
		if name == bundle.PublicKeyName {
			if b.PublicPEM, err = fl.read(name); err != nil {
				return nil, err
			}
		}
	}
	fl.names = names
	delete(fl.size, bundle.AttestationName)
	delete(fl.disk, bundle.AttestationName)
	return b, nil
}

func hashFile(p string, buf []byte) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
