package bundle

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/kms"
)

// maxKeyFile caps what LoadSigner and LoadPublicKey read from a key file:
// a key is a few hundred bytes, anything far larger is not a key.
const maxKeyFile = 1 << 20

// PasswordFunc returns the password of an encrypted private key. It is
// called only when the key is encrypted; an empty password is valid (as
// with cosign).
type PasswordFunc func() ([]byte, error)

// Errors about keys, wrapped in a *KeyError.
var (
	// ErrKeyPassword: the key is encrypted and the password does not open it.
	ErrKeyPassword = errors.New("wrong password or damaged key")
	// ErrKeyFormat: the file is not a PEM key benchseal understands.
	ErrKeyFormat = errors.New("not a supported PEM key")
)

// KeyError says which key reference (a file or a KMS URI) could not be used.
type KeyError struct {
	Ref string
	Err error
}

func (e *KeyError) Error() string { return fmt.Sprintf("key %s: %v", e.Ref, e.Err) }
func (e *KeyError) Unwrap() error { return e.Err }

// Signer signs a bundle's statement. Signatures of file and in-memory
// keys are deterministic (RFC 6979 for ECDSA, PKCS #1 v1.5 for RSA,
// ed25519), so the same run sealed twice with the same key gives the same
// bytes; KMS keys sign however their service does.
type Signer struct {
	sv        signature.Signer
	pub       crypto.PublicKey
	ephemeral bool
}

// PublicKey is the public half of the signing key.
func (s *Signer) PublicKey() crypto.PublicKey { return s.pub }

// Sign signs data (SHA-256) with the key: a plan entered in a
// transparency log before the run it plans (run --log) is signed by the
// key that is to seal the run.
func (s *Signer) Sign(data []byte) ([]byte, error) {
	return s.sv.SignMessage(bytes.NewReader(data))
}

// Ephemeral reports whether the key was made for this seal only (its
// public half then ships in the bundle as benchseal.pub).
func (s *Signer) Ephemeral() bool { return s.ephemeral }

// Fingerprint is "sha256:" and the hex SHA-256 of the public key's PKIX DER.
func (s *Signer) Fingerprint() string {
	fp, _ := Fingerprint(s.pub)
	return fp
}

// Fingerprint is "sha256:" and the hex SHA-256 of pub's PKIX
// (SubjectPublicKeyInfo) DER encoding, the name benchseal gives a key.
func Fingerprint(pub crypto.PublicKey) (string, error) {
	der, err := cryptoutils.MarshalPublicKeyToDER(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// NewEphemeralSigner makes a fresh ECDSA P-256 key that lives only in memory.
func NewEphemeralSigner() (*Signer, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	s, err := NewSigner(priv)
	if err != nil {
		return nil, err
	}
	s.ephemeral = true
	return s, nil
}

// NewSigner signs with an in-memory ECDSA, RSA or ed25519 private key, with
// SHA-256 (as cosign does for key files, whatever the curve).
func NewSigner(priv crypto.PrivateKey) (*Signer, error) {
	switch k := priv.(type) {
	case *ecdsa.PrivateKey:
		return &Signer{sv: rfc6979Signer{k}, pub: k.Public()}, nil
	case *rsa.PrivateKey:
		sv, err := signature.LoadRSAPKCS1v15Signer(k, crypto.SHA256)
		if err != nil {
			return nil, err
		}
		return &Signer{sv: sv, pub: k.Public()}, nil
	case ed25519.PrivateKey:
		sv, err := signature.LoadED25519Signer(k)
		if err != nil {
			return nil, err
		}
		return &Signer{sv: sv, pub: k.Public()}, nil
	}
	return nil, fmt.Errorf("%w: private key of type %T", ErrKeyFormat, priv)
}

// rfc6979Signer signs ECDSA deterministically: sigstore's ECDSASigner
// always mixes in randomness, which would make two seals of one run differ.
type rfc6979Signer struct{ priv *ecdsa.PrivateKey }

func (s rfc6979Signer) SignMessage(message io.Reader, _ ...signature.SignOption) ([]byte, error) {
	h := sha256.New()
	if _, err := io.Copy(h, message); err != nil {
		return nil, err
	}
	// A nil random source selects RFC 6979 deterministic nonces.
	return s.priv.Sign(nil, h.Sum(nil), crypto.SHA256)
}

func (s rfc6979Signer) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return s.priv.Public(), nil
}

// IsKMSRef reports whether ref names a key through a scheme (awskms://,
// gcpkms://, hashivault://, azurekms://, or any plugin name) rather than a file.
func IsKMSRef(ref string) bool {
	scheme, _, ok := strings.Cut(ref, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\.`)
}

// LoadSigner opens a signing key: a PEM private key file (benchseal keygen,
// cosign generate-key-pair: "ENCRYPTED SIGSTORE PRIVATE KEY" or the older
// "ENCRYPTED COSIGN PRIVATE KEY"; or unencrypted PKCS #8, SEC 1 or PKCS #1)
// or a KMS reference SCHEME://KEY. KMS references go through sigstore's KMS
// layer; benchseal links no cloud provider, so they are served by its
// plugin mechanism: an executable named sigstore-kms-SCHEME on PATH (the
// same plugins cosign uses).
func LoadSigner(ctx context.Context, ref string, password PasswordFunc) (*Signer, error) {
	if IsKMSRef(ref) {
		sv, err := kms.Get(ctx, ref, crypto.SHA256)
		if err != nil {
			return nil, &KeyError{Ref: ref, Err: err}
		}
		pub, err := sv.PublicKey()
		if err != nil {
			return nil, &KeyError{Ref: ref, Err: err}
		}
		return &Signer{sv: sv, pub: pub}, nil
	}
	raw, err := readKeyFile(ref)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, &KeyError{Ref: ref, Err: fmt.Errorf("%w: no PEM block", ErrKeyFormat)}
	}
	encrypted := strings.Contains(block.Type, "ENCRYPTED") || x509IsEncrypted(block)
	if encrypted && password == nil {
		return nil, &KeyError{Ref: ref, Err: fmt.Errorf("%w: the key is encrypted and no password was given", ErrKeyPassword)}
	}
	var pf cryptoutils.PassFunc
	if password != nil {
		pf = func(bool) ([]byte, error) {
			pw, err := password()
			if err != nil {
				return nil, &passwordSourceError{err}
			}
			return pw, nil
		}
	}
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(raw, pf)
	if err != nil {
		var pe *passwordSourceError
		switch {
		case errors.As(err, &pe):
			err = pe.err
		case encrypted && pf != nil:
			err = fmt.Errorf("%w: %v", ErrKeyPassword, err)
		}
		return nil, &KeyError{Ref: ref, Err: err}
	}
	s, err := NewSigner(priv)
	if err != nil {
		return nil, &KeyError{Ref: ref, Err: err}
	}
	return s, nil
}

// passwordSourceError marks a failure to obtain the password (no
// terminal, ...), returned as it is, apart from a password that does not
// open the key (ErrKeyPassword).
type passwordSourceError struct{ err error }

func (e *passwordSourceError) Error() string { return e.err.Error() }
func (e *passwordSourceError) Unwrap() error { return e.err }

func x509IsEncrypted(b *pem.Block) bool {
	_, ok := b.Headers["DEK-Info"]
	return ok
}

func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &KeyError{Ref: path, Err: err}
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, &KeyError{Ref: path, Err: err}
	}
	if len(raw) > maxKeyFile {
		return nil, &KeyError{Ref: path, Err: fmt.Errorf("%w: larger than %d bytes", ErrKeyFormat, maxKeyFile)}
	}
	return raw, nil
}

// LoadPublicKey opens a verification key: a PEM public key file (PKIX,
// ECDSA/RSA/ed25519, as benchseal keygen and cosign write), the public half
// of a PEM private key file given with its password, or a KMS reference
// (see LoadSigner).
func LoadPublicKey(ctx context.Context, ref string, password PasswordFunc) (crypto.PublicKey, error) {
	if IsKMSRef(ref) {
		s, err := LoadSigner(ctx, ref, password)
		if err != nil {
			return nil, err
		}
		return s.pub, nil
	}
	raw, err := readKeyFile(ref)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, &KeyError{Ref: ref, Err: fmt.Errorf("%w: no PEM block", ErrKeyFormat)}
	}
	if strings.Contains(block.Type, "PRIVATE KEY") {
		s, err := LoadSigner(ctx, ref, password)
		if err != nil {
			return nil, err
		}
		return s.pub, nil
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(raw)
	if err != nil {
		return nil, &KeyError{Ref: ref, Err: fmt.Errorf("%w: %v", ErrKeyFormat, err)}
	}
	return pub, nil
}

// GenerateKey makes an ECDSA P-256 key pair: the private key PEM-encoded as
// "ENCRYPTED SIGSTORE PRIVATE KEY" under password (which may be empty, as
// with cosign generate-key-pair), the public key as PKIX PEM.
func GenerateKey(password []byte) (privPEM, pubPEM []byte, err error) {
	if password == nil {
		password = []byte{}
	}
	return cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc(password))
}
