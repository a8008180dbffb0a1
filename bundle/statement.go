package bundle

import (
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/benchseal/benchseal/schemas"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
)

// In-toto and DSSE names of the attestation.
const (
	// PredicateType is the statement's predicateType.
	PredicateType = schemas.PredicateType
	// StatementType is the in-toto Statement v1 _type.
	StatementType = "https://in-toto.io/Statement/v1"
	// PayloadType is the DSSE payloadType of the statement.
	PayloadType = "application/vnd.in-toto+json"
)

// Statement is an in-toto Statement v1 whose predicate is benchseal's.
type Statement struct {
	Type          string            `json:"_type"`
	Subject       []Subject         `json:"subject"`
	PredicateType string            `json:"predicateType"`
	Predicate     schemas.Predicate `json:"predicate"`
}

// Subject is one file of the bundle: its archive path and SHA-256 (hex).
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// SHA256 is the subject's hex SHA-256 digest.
func (s Subject) SHA256() string { return s.Digest["sha256"] }

// marshalStatement encodes st deterministically: struct fields in
// declaration order, map keys sorted, no HTML escaping, no indentation.
func marshalStatement(st *Statement) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// signStatement wraps the statement in a DSSE envelope through sigstore's
// DSSE wrapper, the envelope cosign verify-blob-attestation reads.
func signStatement(st *Statement, s *Signer) ([]byte, error) {
	payload, err := marshalStatement(st)
	if err != nil {
		return nil, err
	}
	env, err := sigdsse.WrapSigner(s.sv, PayloadType).SignMessage(bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("signing the statement: %w", err)
	}
	return env, nil
}

// Errors of VerifyEnvelope, wrapped in a *SignatureError.
var (
	// ErrBadSignature: no signature of the envelope verifies with the key.
	ErrBadSignature = errors.New("signature does not verify with the key")
	// ErrBadStatement: the signed payload is not a benchseal statement.
	ErrBadStatement = errors.New("not a benchseal in-toto statement")
)

// SignatureError says which key failed to verify the attestation and why.
type SignatureError struct {
	Fingerprint string // of the key tried
	Err         error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("attestation.dsse.json with key %s: %v", e.Fingerprint, e.Err)
}
func (e *SignatureError) Unwrap() error { return e.Err }

// VerifyEnvelope checks the DSSE envelope against pub (ECDSA, RSA PKCS #1
// v1.5 or ed25519, with SHA-256) and returns the statement it signs. The
// statement's subjects are not compared with any file here (see
// Bundle.CheckSubjects).
func VerifyEnvelope(envelope []byte, pub crypto.PublicKey) (*Statement, error) {
	fp, err := Fingerprint(pub)
	if err != nil {
		return nil, &SignatureError{Fingerprint: "?", Err: err}
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, &SignatureError{Fingerprint: fp, Err: err}
	}
	var payload []byte
	dv := sigdsse.WrapVerifier(v, sigdsse.WithExpectedPayloadType(PayloadType), sigdsse.WithDecodedPayload(&payload))
	if err := dv.VerifySignature(bytes.NewReader(envelope), nil); err != nil {
		return nil, &SignatureError{Fingerprint: fp, Err: fmt.Errorf("%w: %v", ErrBadSignature, err)}
	}
	st, err := parseStatement(payload)
	if err != nil {
		return nil, &SignatureError{Fingerprint: fp, Err: err}
	}
	return st, nil
}

// ParseEnvelope returns the statement of a DSSE envelope without checking
// any signature: for showing what a bundle claims, never for trusting it.
func ParseEnvelope(envelope []byte) (*Statement, error) {
	var env struct {
		PayloadType string `json:"payloadType"`
		Payload     []byte `json:"payload"` // base64 in JSON
	}
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("%w: envelope: %v", ErrBadStatement, err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("%w: payloadType %q, want %q", ErrBadStatement, env.PayloadType, PayloadType)
	}
	return parseStatement(env.Payload)
}

func parseStatement(payload []byte) (*Statement, error) {
	var st Statement
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStatement, err)
	}
	if st.Type != StatementType {
		return nil, fmt.Errorf("%w: _type %q, want %q", ErrBadStatement, st.Type, StatementType)
	}
	if st.PredicateType != PredicateType {
		return nil, fmt.Errorf("%w: predicateType %q, want %q", ErrBadStatement, st.PredicateType, PredicateType)
	}
	return &st, nil
}
