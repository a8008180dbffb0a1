package bundle

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore/pkg/signature/kms"
)

func TestGenerateAndLoadKey(t *testing.T) {
	ctx := context.Background()
	for _, pw := range []string{"s3cret", ""} {
		priv, pub, err := GenerateKey([]byte(pw))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(priv, []byte("-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----")) {
			t.Fatalf("private key: %.60s", priv)
		}
		dir := t.TempDir()
		keyPath, pubPath := filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
		os.WriteFile(keyPath, priv, 0o600)
		os.WriteFile(pubPath, pub, 0o644)
		s, err := LoadSigner(ctx, keyPath, func() ([]byte, error) { return []byte(pw), nil })
		if err != nil {
			t.Fatalf("password %q: %v", pw, err)
		}
		p, err := LoadPublicKey(ctx, pubPath, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fp, _ := Fingerprint(p); fp != s.Fingerprint() {
			t.Errorf("pub %s, key %s", fp, s.Fingerprint())
		}
		_, err = LoadSigner(ctx, keyPath, func() ([]byte, error) { return []byte("wrong"), nil })
		var ke *KeyError
		if !errors.Is(err, ErrKeyPassword) || !errors.As(err, &ke) || ke.Ref != keyPath {
			t.Errorf("wrong password: %v", err)
		}
		if _, err := LoadSigner(ctx, keyPath, nil); !errors.Is(err, ErrKeyPassword) {
			t.Errorf("no password func: %v", err)
		}
		noTTY := errors.New("no terminal")
		if _, err := LoadSigner(ctx, keyPath, func() ([]byte, error) { return nil, noTTY }); !errors.Is(err, noTTY) || errors.Is(err, ErrKeyPassword) {
			t.Errorf("password source failure: %v", err)
		}
	}
}

func TestLoadSignerRefusesNonKeys(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string][]byte{
		"empty": nil, "text": []byte("hello"),
		"cert": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2, 3}}),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, body, 0o600)
		_, err := LoadSigner(context.Background(), p, nil)
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Ref != p {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadSigner(context.Background(), filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// Every supported key type signs deterministically and verifies.
func TestKeyTypesSignAndVerify(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	for name, k := range map[string]any{"ecdsa-p384": ecKey, "rsa": rsaKey, "ed25519": edKey} {
		t.Run(name, func(t *testing.T) {
			// Round trip through an unencrypted PKCS #8 file.
			der, _ := x509.MarshalPKCS8PrivateKey(k)
			p := filepath.Join(t.TempDir(), "k.pem")
			os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
			s, err := LoadSigner(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, ra := seal(t, dir, s, SealOptions{})
			b, _ := seal(t, dir, s, SealOptions{})
			if !bytes.Equal(a, b) {
				t.Error("two seals differ")
			}
			if _, err := VerifyEnvelope(ra.Envelope, s.PublicKey()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestKMSRefWithoutPlugin(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := LoadSigner(context.Background(), "awskms:///alias/bench", nil)
	var pnf *kms.ProviderNotFoundError
	var ke *KeyError
	if !errors.As(err, &pnf) || !errors.As(err, &ke) || ke.Ref != "awskms:///alias/bench" {
		t.Fatalf("LoadSigner(awskms://...) = %v, want a ProviderNotFoundError in a *KeyError", err)
	}
	for ref, want := range map[string]bool{"awskms:///a": true, "hashivault://k": true, "./k.key": false, "C:\\k.key": false, "dir.d://x": false} {
		if IsKMSRef(ref) != want {
			t.Errorf("IsKMSRef(%q) = %v", ref, !want)
		}
	}
}
