package tlog

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

func signer(t *testing.T) (signature.SignerVerifier, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := signature.LoadECDSASignerVerifier(k, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	pem, err := cryptoutils.MarshalPublicKeyToPEM(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return sv, pem
}

// Submit enters a signed plan; Verify checks the entry offline; a search
// by the key lists it; every part of the entry is held.
func TestSubmitVerify(t *testing.T) {
	l, err := NewLocal()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l)
	defer srv.Close()
	ctx := context.Background()
	logKey, err := PublicKey(ctx, srv.Client(), srv.URL)
	if err != nil || !bytes.Equal(logKey, l.PublicKeyPEM()) {
		t.Fatalf("PublicKey: %v", err)
	}
	sv, pub := signer(t)
	var entries [][]byte
	for _, plan := range []string{`{"seed":1}`, `{"seed":2}`, `{"seed":3}`} {
		sig, err := sv.SignMessage(strings.NewReader(plan))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Submit(ctx, srv.Client(), srv.URL, []byte(plan), sig, pub, logKey)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	// The second entry of a tree of three: a proof of two hashes.
	c, err := Verify(entries[1], []byte(`{"seed":2}`), logKey)
	if err != nil {
		t.Fatal(err)
	}
	if c.LogIndex != 1 || !keyIs(t, c.PublicKey, sv) {
		t.Errorf("checked %+v: want index 1 and the plan's key", c)
	}
	if _, err := Verify(entries[1], []byte(`{"seed":9}`), logKey); err == nil || !strings.Contains(err.Error(), "not the plan's") {
		t.Errorf("another plan: %v", err)
	}
	other, err := NewLocal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(entries[1], []byte(`{"seed":2}`), other.PublicKeyPEM()); err == nil {
		t.Error("another log's key verifies the entry")
	}
	// A proof edited: the inclusion no longer holds.
	var e Entry
	if err := json.Unmarshal(entries[1], &e); err != nil {
		t.Fatal(err)
	}
	e.Verification.InclusionProof.Hashes[0] = strings.Repeat("00", 32)
	edited, _ := json.Marshal(e)
	if _, err := Verify(edited, []byte(`{"seed":2}`), logKey); err == nil {
		t.Error("an edited inclusion proof verifies")
	}

	// A reader's search by the publisher's key lists all three plans.
	q, _ := json.Marshal(map[string]any{"publicKey": map[string]any{"format": "x509", "content": base64.StdEncoding.EncodeToString(pub)}})
	resp, err := srv.Client().Post(srv.URL+"/api/v1/index/retrieve", "application/json", bytes.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	var uuids []string
	json.NewDecoder(resp.Body).Decode(&uuids)
	resp.Body.Close()
	if len(uuids) != 3 {
		t.Errorf("search by key: %v, want the three plans", uuids)
	}

	// The log refuses a signature that does not verify, as Rekor does.
	bad, _ := sv.SignMessage(strings.NewReader("other"))
	if _, err := Submit(ctx, srv.Client(), srv.URL, []byte(`{"seed":4}`), bad, pub, logKey); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("bad signature: %v", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	if _, err := PublicKey(ctx, http.DefaultClient, down.URL); err == nil {
		t.Error("a log that is gone answered")
	}
}

func keyIs(t *testing.T, k crypto.PublicKey, sv signature.SignerVerifier) bool {
	t.Helper()
	want, err := sv.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return cryptoutils.EqualKeys(k, want) == nil
}
