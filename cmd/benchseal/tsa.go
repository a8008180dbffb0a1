package main

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/spf13/pflag"
)

// tsaFlags are --tsa and --tsa-cert, of run and seal, and run's --log and
// --log-key.
type tsaFlags struct {
	tsa, tsaCert string
	log, logKey  string
}

func addTSAFlags(fl *pflag.FlagSet, f *tsaFlags, what string) {
	fl.StringVar(&f.tsa, "tsa", "", what)
	fl.StringVar(&f.tsaCert, "tsa-cert", "", "the time-stamping authority's certificate chain (PEM): its tokens are checked against it and it is sealed (default: take the certificates the token carries, unpinned)")
}

// chain reads --tsa-cert (nil when not given).
func (f *tsaFlags) chain() ([]byte, error) {
	if f.tsaCert == "" {
		return nil, nil
	}
	b, err := os.ReadFile(f.tsaCert)
	if err != nil {
		return nil, usageErrorf("--tsa-cert: %v", err)
	}
	if _, err := tsa.ParseChain(b); err != nil {
		return nil, usageErrorf("--tsa-cert %s: %v", f.tsaCert, err)
	}
	return b, nil
}

// preregister is run's --tsa and --log: the plan's authority and log, and
// the key that is to seal the run (the signer run --seal loaded before
// measuring).
func (f *runFlags) preregister(signer *bundle.Signer) (*session.Preregister, error) {
	if f.tsa == "" {
		switch {
		case f.tsaCert != "":
			return nil, usageErrorf("--tsa-cert checks the tokens of --tsa: give --tsa URL too")
		case f.log != "" || f.logKey != "":
			return nil, usageErrorf("--log enters the plan that --tsa time-stamps: give --tsa URL too")
		}
		return nil, nil
	}
	if f.seal == "" {
		return nil, usageErrorf("--tsa dates the plan before measuring and the seal at the end: give --seal OUT.tar.zst (and --key, the key the plan names)")
	}
	chain, err := f.chain()
	if err != nil {
		return nil, err
	}
	p := &session.Preregister{URL: f.tsa, Chain: chain, Key: signer.Fingerprint()}
	if f.log == "" {
		if f.logKey != "" {
			return nil, usageErrorf("--log-key checks the entry of --log: give --log URL too")
		}
		return p, nil
	}
	if f.key == "" {
		return nil, usageErrorf("--log lists the plan under the key that seals the run, so that a search by that key finds every plan: give --key (an ephemeral key is found by no one)")
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(signer.PublicKey())
	if err != nil {
		return nil, err
	}
	p.Log = &session.Log{URL: f.log, Sign: signer.Sign, PublicPEM: pub}
	if f.logKey != "" {
		if p.Log.KeyPEM, err = os.ReadFile(f.logKey); err != nil {
			return nil, usageErrorf("--log-key: %v", err)
		}
		if _, err := cryptoutils.UnmarshalPEMToPublicKey(p.Log.KeyPEM); err != nil {
			return nil, usageErrorf("--log-key %s: %v", f.logKey, err)
		}
	}
	return p, nil
}

// sealAuthority settles seal's authority: --tsa, else the one that dated
// the run's plan; the chain: --tsa-cert, else the one sealed with the plan.
func (f *tsaFlags) sealAuthority(e *env, runDir string) (url string, chain []byte, err error) {
	if chain, err = f.chain(); err != nil {
		return "", nil, err
	}
	if f.tsa != "" {
		return f.tsa, chain, nil
	}
	if f.tsaCert != "" {
		return "", nil, usageErrorf("--tsa-cert checks the token of --tsa: give --tsa URL too")
	}
	b, err := os.ReadFile(filepath.Join(runDir, schemas.PlanFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	var plan schemas.Plan
	if err := json.Unmarshal(b, &plan); err != nil {
		return "", nil, fmt.Errorf("%s: %w", schemas.PlanFile, err)
	}
	if strings.Contains(plan.Authority, "[REDACTED]") {
		warnf(e.stderr, "the run's plan was time-stamped, but its authority's URL is redacted: the seal is not time-stamped (give --tsa URL)")
		return "", nil, nil
	}
	chain, err = os.ReadFile(filepath.Join(runDir, filepath.FromSlash(schemas.TSAChain)))
	if errors.Is(err, fs.ErrNotExist) {
		chain, err = nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	infof(e.stderr, "the run's plan was time-stamped by %s: the seal is time-stamped there too (--tsa to use another)", plan.Authority)
	return plan.Authority, chain, nil
}

// loadTSAChain reads verify's and report's --tsa-cert (nil when not given).
func loadTSAChain(path string) ([]*x509.Certificate, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--tsa-cert: %v", err)
	}
	certs, err := tsa.ParseChain(b)
	if err != nil {
		return nil, usageErrorf("--tsa-cert %s: %v", path, err)
	}
	return certs, nil
}
