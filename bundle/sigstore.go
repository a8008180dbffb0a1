package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SigstoreMediaType is the media type of the Sigstore bundle WriteSigstoreBundle writes.
const SigstoreMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// SigstoreBundle returns a Sigstore bundle (v0.3, JSON) holding the DSSE
// envelope and a publicKey hint (the key's fingerprint), with no
// transparency-log entry: the form Sigstore clients read for a key-signed
// attestation verified offline.
func SigstoreBundle(envelope []byte, fingerprint string) ([]byte, error) {
	var env struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
		Signatures  []struct {
			KeyID string `json:"keyid,omitempty"`
			Sig   string `json:"sig"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("%w: envelope: %v", ErrBadStatement, err)
	}
	type hint struct {
		Hint string `json:"hint"`
	}
	doc := struct {
		MediaType            string `json:"mediaType"`
		VerificationMaterial struct {
			PublicKey   hint  `json:"publicKey"`
			TlogEntries []any `json:"tlogEntries"`
		} `json:"verificationMaterial"`
		DSSEEnvelope any `json:"dsseEnvelope"`
	}{MediaType: SigstoreMediaType, DSSEEnvelope: env}
	doc.VerificationMaterial.PublicKey.Hint = fingerprint
	doc.VerificationMaterial.TlogEntries = []any{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
