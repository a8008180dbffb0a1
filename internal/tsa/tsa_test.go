package tsa

import (
	"bytes"
	"crypto"
	"crypto/x509"

	"context"
	"github.com/digitorus/timestamp"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func stampWith(t *testing.T, a *Authority, data []byte) []byte {
	t.Helper()
	srv := httptest.NewServer(a)
	defer srv.Close()
	tsr, err := Stamp(context.Background(), srv.Client(), srv.URL, data)
	if err != nil {
		t.Fatal(err)
	}
	return tsr
}

func TestStampVerify(t *testing.T) {
	a, err := NewAuthority()
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	data := []byte(`{"schema":"benchseal.plan/v1"}`)
	tsr := stampWith(t, a, data)
	certs, err := ParseChain(a.ChainPEM())
	if err != nil {
		t.Fatal(err)
	}
	roots, inter := Chain(certs)
	if len(roots) != 1 || !roots[0].Equal(a.Root) || len(inter) != 1 {
		t.Fatalf("Chain: %d roots, %d intermediates; want the root and the leaf", len(roots), len(inter))
	}
	tok, err := Verify(tsr, data, roots, inter)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Time.Before(before.Truncate(time.Second)) || tok.Time.After(time.Now().Add(time.Second)) {
		t.Errorf("token time %v, want about now", tok.Time)
	}
	if !strings.Contains(tok.Signer, "benchseal local time-stamping authority") || tok.Accuracy != time.Second {
		t.Errorf("token %+v: want the local authority as signer, accuracy 1s", tok)
	}

	// Another document: the digest does not match.
	if _, err := Verify(tsr, []byte(`{"schema":"benchseal.plan/v1","seed":2}`), roots, inter); err == nil || !strings.Contains(err.Error(), "hashed messages don't match") {
		t.Errorf("other document: %v, want hashed messages don't match", err)
	}
	// Another authority's root: the chain does not verify.
	b, _ := NewAuthority()
	if _, err := Verify(tsr, data, []*x509Cert{b.Root}, nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted chain: %v, want a certificate error", err)
	}
	if _, err := Verify(tsr, data, nil, nil); err != ErrNoRoots {
		t.Errorf("no roots: %v, want ErrNoRoots", err)
	}
}

func TestStampRefuses(t *testing.T) {
	a, _ := NewAuthority()
	// An authority answering for another digest (a replayed token).
	other := []byte("other")
	replayed, err := a.Respond(mustRequest(t, other))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(replayed) }))
	defer srv.Close()
	if _, err := Stamp(context.Background(), srv.Client(), srv.URL, []byte("plan")); err == nil || !strings.Contains(err.Error(), "another digest") {
		t.Errorf("replayed token: %v", err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "busy", 503) }))
	defer down.Close()
	if _, err := Stamp(context.Background(), down.Client(), down.URL, []byte("plan")); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("503: %v", err)
	}
}

type x509Cert = x509.Certificate

func mustRequest(t *testing.T, data []byte) []byte {
	t.Helper()
	der, err := timestamp.CreateRequest(bytes.NewReader(data), &timestamp.RequestOptions{Hash: crypto.SHA256, Certificates: true})
	if err != nil {
		t.Fatal(err)
	}
	return der
}
