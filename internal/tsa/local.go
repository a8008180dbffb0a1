package tsa

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"time"

	"github.com/digitorus/timestamp"
)

// Authority is a local RFC 3161 authority: an ECDSA P-256 root and a
// time-stamping leaf made when it starts, answering POSTed
// TimeStampReqs at any path. The demo and the tests stamp with it; a
// reader gains nothing from its tokens but the order of this machine's
// clock, since whoever ran it held its key.
type Authority struct {
	Root, Leaf *x509.Certificate
	Key        crypto.Signer // the leaf's
	// Now is the authority's clock (time.Now when nil): a test moves it to
	// make a token that predates or postdates what it stamps.
	Now func() time.Time
}

// NewAuthority makes an authority with a fresh root and leaf.
func NewAuthority() (*Authority, error) {
	rootKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now().Add(-time.Hour)
	root := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "benchseal local time-stamping root"},
		NotBefore: now, NotAfter: now.Add(10 * 365 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	rootDER, err := x509.CreateCertificate(rand.Reader, root, root, rootKey.Public(), rootKey)
	if err != nil {
		return nil, err
	}
	if root, err = x509.ParseCertificate(rootDER); err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "benchseal local time-stamping authority"},
		NotBefore: now, NotAfter: now.Add(10 * 365 * 24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, root, leafKey.Public(), rootKey)
	if err != nil {
		return nil, err
	}
	if leaf, err = x509.ParseCertificate(leafDER); err != nil {
		return nil, err
	}
	// The time-stamping EKU must be critical (RFC 3161 2.3), which the
	// standard library does not write: mark it in the raw extension and
	// sign again.
	leaf = &x509.Certificate{SerialNumber: leaf.SerialNumber, Subject: leaf.Subject, NotBefore: leaf.NotBefore,
		NotAfter: leaf.NotAfter, KeyUsage: leaf.KeyUsage, ExtraExtensions: criticalEKU(leaf)}
	if leafDER, err = x509.CreateCertificate(rand.Reader, leaf, root, leafKey.Public(), rootKey); err != nil {
		return nil, err
	}
	if leaf, err = x509.ParseCertificate(leafDER); err != nil {
		return nil, err
	}
	return &Authority{Root: root, Leaf: leaf, Key: leafKey}, nil
}

func criticalEKU(c *x509.Certificate) []pkix.Extension {
	for _, e := range c.Extensions {
		if e.Id.Equal([]int{2, 5, 29, 37}) {
			e.Critical = true
			return []pkix.Extension{e}
		}
	}
	return nil
}

// ChainPEM is the authority's chain (leaf, then root) as --tsa-cert takes it.
func (a *Authority) ChainPEM() []byte { return EncodeChain([]*x509.Certificate{a.Leaf, a.Root}) }

// Respond answers one DER TimeStampReq.
func (a *Authority) Respond(der []byte) ([]byte, error) {
	req, err := timestamp.ParseRequest(der)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	ts := timestamp.Timestamp{HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Time: now().UTC(),
		Nonce: req.Nonce, Policy: []int{1, 2, 3, 4, 1} /* a placeholder policy: this authority has none */, Accuracy: time.Second,
		AddTSACertificate: req.Certificates}
	return ts.CreateResponseWithOpts(a.Leaf, a.Key, crypto.SHA256)
}

// ServeHTTP answers application/timestamp-query POSTs.
func (a *Authority) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a TimeStampReq", http.StatusMethodNotAllowed)
		return
	}
	der, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := a.Respond(der)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	w.Write(resp)
}
