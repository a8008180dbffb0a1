package tsa

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"time"

	"github.com/digitorus/timestamp"
	"github.com/sigstore/timestamp-authority/v2/pkg/verification"
)

// maxResponse caps what Stamp reads of an answer: a token is a few KiB.
const maxResponse = 1 << 20

// ErrNoRoots is a token that cannot be checked: no certificate to anchor
// its chain was pinned and the token carries none.
var ErrNoRoots = errors.New("no certificate of the authority to check the token against")

// Token is a checked time-stamp: when the authority says the digest
// existed, how precisely, and who said it.
type Token struct {
	Time     time.Time
	Accuracy time.Duration // 0 when the authority states none
	Serial   string        // the token's serial number, decimal
	Signer   string        // the signing certificate's subject
	Digest   string        // hex SHA-256 the token is over
}

// Stamp asks the authority at url for a token over data's SHA-256 and
// returns the authority's TimeStampResp as it came. The response must
// grant, be over data and echo the request's nonce; nothing else about
// its signer is checked here (Verify does, with the roots the caller trusts).
func Stamp(ctx context.Context, client *http.Client, url string, data []byte) ([]byte, error) {
	nonce, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, err
	}
	req, err := timestamp.CreateRequest(bytes.NewReader(data), &timestamp.RequestOptions{
		Hash: crypto.SHA256, Certificates: true, Nonce: nonce})
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(req))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/timestamp-query")
	hreq.Header.Set("Accept", "application/timestamp-reply")
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading the authority's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the authority answered HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body[:min(len(body), 200)]))
	}
	if len(body) > maxResponse {
		return nil, fmt.Errorf("the authority's answer is over %d bytes", maxResponse)
	}
	ts, err := timestamp.ParseResponse(body)
	if err != nil {
		return nil, fmt.Errorf("the authority's answer is not a granted time-stamp: %w", err)
	}
	sum := sha256.Sum256(data)
	if ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(ts.HashedMessage, sum[:]) {
		return nil, errors.New("the authority's token is over another digest")
	}
	if ts.Nonce == nil || ts.Nonce.Cmp(nonce) != 0 {
		return nil, errors.New("the authority's token does not echo the request's nonce")
	}
	return body, nil
}

// Verify checks the TimeStampResp tsr over data against roots (the
// authority's trust anchors; intermediates may come with them or in the
// token) and returns what it says.
func Verify(tsr, data []byte, roots, intermediates []*x509.Certificate) (*Token, error) {
	if len(roots) == 0 {
		return nil, ErrNoRoots
	}
	ts, err := verification.VerifyTimestampResponse(tsr, bytes.NewReader(data),
		verification.VerifyOpts{Roots: roots, Intermediates: intermediates})
	if err != nil {
		return nil, err
	}
	return tokenOf(ts), nil
}

// Parse reads a TimeStampResp without checking its signature: what it
// claims, for a finding that says why it could not be checked.
func Parse(tsr []byte) (*Token, []*x509.Certificate, error) {
	ts, err := timestamp.ParseResponse(tsr)
	if err != nil {
		return nil, nil, err
	}
	return tokenOf(ts), ts.Certificates, nil
}

func tokenOf(ts *timestamp.Timestamp) *Token {
	t := &Token{Time: ts.Time.UTC(), Accuracy: ts.Accuracy, Digest: fmt.Sprintf("%x", ts.HashedMessage)}
	if ts.SerialNumber != nil {
		t.Serial = ts.SerialNumber.String()
	}
	for _, c := range ts.Certificates {
		if slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageTimeStamping) {
			t.Signer = c.Subject.String()
			break
		}
	}
	return t
}

// ParseChain reads PEM certificates (an authority's chain, in any order).
func ParseChain(b []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate in it")
	}
	return certs, nil
}

// EncodeChain writes certificates as PEM, in the order given.
func EncodeChain(certs []*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

// Chain splits certificates into trust anchors and intermediates: the
// self-signed ones are roots; where none is, the last one given is the
// anchor (a pinned intermediate is trusted as the user said).
func Chain(certs []*x509.Certificate) (roots, intermediates []*x509.Certificate) {
	for _, c := range certs {
		if bytes.Equal(c.RawIssuer, c.RawSubject) && c.CheckSignatureFrom(c) == nil {
			roots = append(roots, c)
		} else {
			intermediates = append(intermediates, c)
		}
	}
	if len(roots) == 0 && len(intermediates) > 0 {
		roots, intermediates = intermediates[len(intermediates)-1:], intermediates[:len(intermediates)-1]
	}
	return roots, intermediates
}
