package tlog

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/strfmt"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
)

// Local is an in-memory log answering Rekor v1's entry API
// (POST /api/v1/log/entries, GET /api/v1/log/publicKey,
// POST /api/v1/index/retrieve by public key) with hashedrekord entries
// it checks as Rekor does, for tests and the demo. Its key is made when
// it starts: what it logs is seen by whoever runs it, no one else.
type Local struct {
	mu      sync.Mutex
	signer  signature.SignerVerifier
	pubPEM  []byte
	logID   string
	tree    *testonly.Tree
	bodies  [][]byte
	entries []Entry
	Now     func() time.Time // the log's clock (time.Now when nil)
}

// NewLocal makes an empty log with a fresh ECDSA P-256 key.
func NewLocal() (*Local, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	sv, err := signature.LoadECDSASignerVerifier(k, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	pem, err := cryptoutils.MarshalPublicKeyToPEM(k.Public())
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256(der)
	return &Local{signer: sv, pubPEM: pem, logID: hex.EncodeToString(id[:]), tree: testonly.New(rfc6962.DefaultHasher)}, nil
}

// PublicKeyPEM is the log's key, as GET /api/v1/log/publicKey serves it.
func (l *Local) PublicKeyPEM() []byte { return l.pubPEM }

// Entries are the entries logged so far.
func (l *Local) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

func (l *Local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/log/publicKey":
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Write(l.pubPEM)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/log/entries":
		l.add(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/index/retrieve":
		l.search(w, r)
	default:
		http.Error(w, `{"code":404,"message":"not found"}`, http.StatusNotFound)
	}
}

func (l *Local) add(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var h hashedrekord
	if json.Unmarshal(body, &h) != nil || h.Kind != "hashedrekord" || h.Spec.Data == nil || h.Spec.Data.Hash == nil ||
		h.Spec.Data.Hash.Value == nil || h.Spec.Signature == nil || h.Spec.Signature.PublicKey == nil {
		http.Error(w, `{"code":400,"message":"not a hashedrekord v0.0.1 entry"}`, http.StatusBadRequest)
		return
	}
	// Rekor verifies the signature over the digest before it logs.
	digest, err := hex.DecodeString(*h.Spec.Data.Hash.Value)
	pub, perr := cryptoutils.UnmarshalPEMToPublicKey(h.Spec.Signature.PublicKey.Content)
	ek, ok := pub.(*ecdsa.PublicKey)
	if err != nil || perr != nil || !ok || !ecdsa.VerifyASN1(ek, digest, h.Spec.Signature.Content) {
		http.Error(w, `{"code":400,"message":"signature does not verify"}`, http.StatusBadRequest)
		return
	}
	canon, err := jsoncanonicalizer.Transform(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	l.tree.AppendData(canon)
	index, size := int64(len(l.bodies)), l.tree.Size()
	l.bodies = append(l.bodies, canon)
	hashes, err := l.tree.InclusionProof(uint64(index), size)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	root := l.tree.Hash()
	ctx := r.Context()
	cp, err := util.CreateAndSignCheckpoint(ctx, "benchseal-local-log", 1, size, root, l.signer)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	e := models.LogEntryAnon{Body: base64.StdEncoding.EncodeToString(canon), IntegratedTime: ptr(now().Unix()),
		LogID: ptr(l.logID), LogIndex: ptr(index)}
	set, err := l.sign(ctx, e)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	hexes := make([]string, len(hashes))
	for i, h := range hashes {
		hexes[i] = hex.EncodeToString(h)
	}
	e.Verification = &models.LogEntryAnonVerification{SignedEntryTimestamp: strfmt.Base64(set),
		InclusionProof: &models.InclusionProof{Checkpoint: ptr(string(cp)), Hashes: hexes, LogIndex: ptr(index),
			RootHash: ptr(hex.EncodeToString(root)), TreeSize: ptr(int64(size))}}
	leaf := rfc6962.DefaultHasher.HashLeaf(canon)
	uuid := hex.EncodeToString(leaf)
	l.entries = append(l.entries, Entry{UUID: uuid, LogEntryAnon: e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]models.LogEntryAnon{uuid: e})
}

// sign is the entry timestamp: the log's signature over the canonical
// {body, integratedTime, logIndex, logID}, as Rekor signs it.
func (l *Local) sign(ctx context.Context, e models.LogEntryAnon) ([]byte, error) {
	b, err := json.Marshal(struct {
		Body           any    `json:"body"`
		IntegratedTime int64  `json:"integratedTime"`
		LogIndex       int64  `json:"logIndex"`
		LogID          string `json:"logID"`
	}{e.Body, *e.IntegratedTime, *e.LogIndex, *e.LogID})
	if err != nil {
		return nil, err
	}
	canon, err := jsoncanonicalizer.Transform(b)
	if err != nil {
		return nil, err
	}
	return l.signer.SignMessage(bytes.NewReader(canon))
}

// search answers POST /api/v1/index/retrieve {"publicKey": {"format":
// "x509", "content": b64 PEM}} with the uuids of the entries that key
// signed, as Rekor's index does.
func (l *Local) search(w http.ResponseWriter, r *http.Request) {
	var q struct {
		PublicKey struct {
			Content []byte `json:"content"`
		} `json:"publicKey"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&q) != nil {
		http.Error(w, `{"code":400,"message":"bad query"}`, http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	uuids := []string{}
	for i, b := range l.bodies {
		var h hashedrekord
		if json.Unmarshal(b, &h) == nil && bytes.Equal(bytes.TrimSpace(h.Spec.Signature.PublicKey.Content), bytes.TrimSpace(q.PublicKey.Content)) {
			uuids = append(uuids, l.entries[i].UUID)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(uuids)
}

func ptr[T any](v T) *T { return &v }
