package bundle

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/kms"
	"github.com/sigstore/sigstore/pkg/signature/kms/cliplugin/handler"
)

// pluginName is the KMS scheme the test binary serves when it runs as
// the sigstore KMS plugin sigstore-kms-benchtest (see TestMain).
const pluginName = "benchtest"

// TestMain lets this test binary act as a real sigstore KMS plugin
// executable, so that LoadSigner is tested through sigstore's plugin
// protocol end to end, with no cloud.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "sigstore-kms-"+pluginName {
		runPlugin()
		return
	}
	os.Exit(m.Run())
}

func runPlugin() {
	args, err := handler.GetPluginArgs(os.Args)
	if err != nil {
		handler.WriteErrorResponse(os.Stdout, err)
		return
	}
	raw, err := os.ReadFile(args.InitOptions.KeyResourceID)
	if err != nil {
		handler.WriteErrorResponse(os.Stdout, err)
		return
	}
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(raw, nil)
	if err != nil {
		handler.WriteErrorResponse(os.Stdout, err)
		return
	}
	handler.Dispatch(os.Stdout, os.Stdin, args, pluginKey{priv.(*ecdsa.PrivateKey)})
}

// pluginKey is the plugin's key store: one unencrypted key file, named by
// the reference benchtest://PATH.
type pluginKey struct{ priv *ecdsa.PrivateKey }

var _ kms.SignerVerifier = pluginKey{}

func (k pluginKey) SignMessage(m io.Reader, _ ...signature.SignOption) ([]byte, error) {
	return rfc6979Signer{k.priv}.SignMessage(m)
}
func (k pluginKey) VerifySignature(sig, m io.Reader, _ ...signature.VerifyOption) error {
	v, _ := signature.LoadECDSAVerifier(&k.priv.PublicKey, crypto.SHA256)
	return v.VerifySignature(sig, m)
}
func (k pluginKey) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return k.priv.Public(), nil
}
func (k pluginKey) CreateKey(context.Context, string) (crypto.PublicKey, error) {
	return nil, errors.New("not supported")
}
func (k pluginKey) CryptoSigner(context.Context, func(error)) (crypto.Signer, crypto.SignerOpts, error) {
	return k.priv, crypto.SHA256, nil
}
func (k pluginKey) SupportedAlgorithms() []string { return []string{"ecdsa-p256-sha256"} }
func (k pluginKey) DefaultAlgorithm() string      { return "ecdsa-p256-sha256" }

// TestKMSPlugin seals with a key reference served by a plugin executable
// on PATH, through sigstore's kms.Get, and verifies the result.
func TestKMSPlugin(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "sigstore-kms-"+pluginName)); err != nil {
		t.Skip(err)
	}
	t.Setenv("PATH", bin)
	key := testSigner(t).sv.(rfc6979Signer).priv
	der, _ := cryptoutils.MarshalPrivateKeyToPEM(key)
	keyFile := filepath.Join(t.TempDir(), "kms.pem")
	os.WriteFile(keyFile, der, 0o600)

	s, err := LoadSigner(context.Background(), pluginName+"://"+keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fingerprint() != testSigner(t).Fingerprint() {
		t.Fatalf("plugin key %s, want %s", s.Fingerprint(), testSigner(t).Fingerprint())
	}
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	viaPlugin, res := seal(t, dir, s, SealOptions{})
	direct, _ := seal(t, dir, testSigner(t), SealOptions{})
	if _, err := VerifyEnvelope(res.Envelope, key.Public()); err != nil {
		t.Fatal(err)
	}
	// The plugin signs with RFC 6979 too: the same bytes as the file key.
	if !bytes.Equal(viaPlugin, direct) {
		t.Errorf("bundle via plugin %x differs from direct %x", sha256.Sum256(viaPlugin), sha256.Sum256(direct))
	}
}
