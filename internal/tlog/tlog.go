package tlog

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sigstore/rekor/pkg/generated/models"
	rverify "github.com/sigstore/rekor/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// maxAnswer caps what is read of a log's answer: an entry with its proof
// is a few KiB.
const maxAnswer = 1 << 20

// Entry is a log entry as Submit returns it and Verify reads it: Rekor's
// LogEntryAnon with the entry's uuid.
type Entry struct {
	UUID string `json:"uuid"`
	models.LogEntryAnon
}

// Checked is what a verified entry says.
type Checked struct {
	UUID           string
	LogIndex       int64
	IntegratedTime time.Time        // the log's time of inclusion (signed in the entry timestamp)
	PublicKey      crypto.PublicKey // the key whose signature over the plan the entry holds
}

// hashedrekord is the body of a hashedrekord v0.0.1 entry.
type hashedrekord struct {
	APIVersion string                        `json:"apiVersion"`
	Kind       string                        `json:"kind"`
	Spec       models.HashedrekordV001Schema `json:"spec"`
}

// Body is the hashedrekord entry of artifact signed with sig by pubPEM.
func Body(artifact, sig, pubPEM []byte) ([]byte, error) {
	sum := sha256.Sum256(artifact)
	alg, value := models.HashedrekordV001SchemaDataHashAlgorithmSha256, hex.EncodeToString(sum[:])
	e := hashedrekord{APIVersion: "0.0.1", Kind: "hashedrekord", Spec: models.HashedrekordV001Schema{
		Data:      &models.HashedrekordV001SchemaData{Hash: &models.HashedrekordV001SchemaDataHash{Algorithm: &alg, Value: &value}},
		Signature: &models.HashedrekordV001SchemaSignature{Content: sig, PublicKey: &models.HashedrekordV001SchemaSignaturePublicKey{Content: pubPEM}},
	}}
	return json.Marshal(e)
}

// Submit enters the hashedrekord of artifact (signed with sig by the key
// pubPEM) in the log at url and returns the entry it answers, checked with
// the log's key logKeyPEM.
func Submit(ctx context.Context, client *http.Client, url string, artifact, sig, pubPEM, logKeyPEM []byte) ([]byte, error) {
	body, err := Body(artifact, sig, pubPEM)
	if err != nil {
		return nil, err
	}
	answer, err := call(ctx, client, http.MethodPost, strings.TrimRight(url, "/")+"/api/v1/log/entries", body, http.StatusCreated)
	if err != nil {
		return nil, err
	}
	var entries map[string]models.LogEntryAnon
	if err := json.Unmarshal(answer, &entries); err != nil || len(entries) != 1 {
		return nil, fmt.Errorf("the log's answer is not one entry (%d, %v)", len(entries), err)
	}
	var e Entry
	for uuid, le := range entries {
		e = Entry{UUID: uuid, LogEntryAnon: le}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	// The log keeps its canonical form of the entry, not the bytes sent:
	// what must hold is that it registers the plan, signed by this key.
	c, err := Verify(b, artifact, logKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("the log's entry does not verify: %w", err)
	}
	if sent, err := cryptoutils.UnmarshalPEMToPublicKey(pubPEM); err != nil || cryptoutils.EqualKeys(sent, c.PublicKey) != nil {
		return nil, errors.New("the log's entry names another key than the one sent")
	}
	return b, nil
}

// PublicKey is the log's public key (PEM), as the log serves it.
func PublicKey(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	b, err := call(ctx, client, http.MethodGet, strings.TrimRight(url, "/")+"/api/v1/log/publicKey", nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	if _, err := cryptoutils.UnmarshalPEMToPublicKey(b); err != nil {
		return nil, fmt.Errorf("the log's public key: %w", err)
	}
	return b, nil
}

func call(ctx context.Context, client *http.Client, method, url string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, url, resp.StatusCode, bytes.TrimSpace(b[:min(len(b), 200)]))
	}
	if len(b) > maxAnswer {
		return nil, fmt.Errorf("%s %s: the answer is over %d bytes", method, url, maxAnswer)
	}
	return b, nil
}

// Verify checks the entry (as Submit returns it) offline against the
// log's key and the artifact it must register.
func Verify(entry, artifact, logKeyPEM []byte) (*Checked, error) {
	var e Entry
	if err := json.Unmarshal(entry, &e); err != nil {
		return nil, fmt.Errorf("not a log entry: %w", err)
	}
	if e.IntegratedTime == nil || e.LogID == nil || e.LogIndex == nil || e.Verification == nil ||
		e.Verification.InclusionProof == nil || e.Verification.InclusionProof.Checkpoint == nil {
		return nil, errors.New("the entry lacks its inclusion proof, checkpoint or entry timestamp")
	}
	logKey, err := cryptoutils.UnmarshalPEMToPublicKey(logKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("the log's public key: %w", err)
	}
	v, err := signature.LoadVerifier(logKey, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	if err := rverify.VerifyLogEntry(context.Background(), &e.LogEntryAnon, v); err != nil {
		return nil, err
	}
	raw, _ := e.Body.(string)
	bodyBytes, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, fmt.Errorf("the entry's body: %w", err)
	}
	var h hashedrekord
	if err := json.Unmarshal(bodyBytes, &h); err != nil || h.Kind != "hashedrekord" || h.Spec.Data == nil || h.Spec.Data.Hash == nil ||
		h.Spec.Data.Hash.Value == nil || h.Spec.Signature == nil || h.Spec.Signature.PublicKey == nil {
		return nil, fmt.Errorf("the entry is not a hashedrekord (%v)", err)
	}
	sum := sha256.Sum256(artifact)
	if *h.Spec.Data.Hash.Value != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("the entry registers sha256 %s, not the plan's %x", *h.Spec.Data.Hash.Value, sum)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(h.Spec.Signature.PublicKey.Content)
	if err != nil {
		return nil, fmt.Errorf("the entry's public key: %w", err)
	}
	sv, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	if err := sv.VerifySignature(bytes.NewReader(h.Spec.Signature.Content), bytes.NewReader(artifact)); err != nil {
		return nil, fmt.Errorf("the entry's signature does not verify over the plan: %w", err)
	}
	return &Checked{UUID: e.UUID, LogIndex: *e.LogIndex, IntegratedTime: time.Unix(*e.IntegratedTime, 0).UTC(), PublicKey: pub}, nil
}
