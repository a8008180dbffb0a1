package schemas

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// Pre-registration: the plan of a run time-stamped before its first
// request (run --tsa), and the tokens that date it.
const (
	PlanSchema = "benchseal.plan/v1"
	PlanFile   = "plan.json"                   // Plan, written before the first request
	PlanToken  = "timestamps/plan.tsr"         // the authority's TimeStampResp over plan.json's bytes
	TSAChain   = "timestamps/chain.pem"        // the authority's chain as given (--tsa-cert), PEM
	LogEntry   = "timestamps/rekor-entry.json" // the plan's entry in a Rekor log (run --log), as the log answered
	LogKey     = "timestamps/rekor.pub"        // the log's public key, as given (--log-key) or served
	// SealToken is the authority's TimeStampResp over the signed statement
	// (the DSSE payload), taken at seal. It cannot be a subject of the
	// statement it dates, so it is an entry of its own beside the
	// attestation (bundle.TimestampName), outside the run directory.
	SealToken = "attestation.tsr"
)

// Plan is plan.json: what a run was going to do, fixed and time-stamped
// before its first request. Every field is a copy of what run.json says
// (or the key that seals it), so that a verifier holds the run to it.
type Plan struct {
	Schema    string       `json:"schema"`     // PlanSchema
	PlannedAt time.Time    `json:"planned_at"` // the client's clock when it was written
	Tool      Tool         `json:"tool"`
	Seed      uint64       `json:"seed"`
	Protocol  Protocol     `json:"protocol"`
	Scoring   Scoring      `json:"scoring"`
	Targets   []PlanTarget `json:"targets"`
	Corpus    []PlanClip   `json:"corpus"`
	// Key is the fingerprint of the key that is to seal the run
	// ("sha256:<hex of the PKIX DER>").
	Key string `json:"key"`
	// Authority is the time-stamping authority's URL, redacted.
	Authority string `json:"authority"`
}

// PlanTarget is a target as planned: what it was asked, not what it said.
type PlanTarget struct {
	Name          string            `json:"name"`
	URL           string            `json:"url"`
	Model         string            `json:"model"`
	RequestFields map[string]string `json:"request_fields"`
}

// PlanClip is a clip as planned: its id and the SHA-256 of its bytes (""
// for an item without a reference clip, which has none).
type PlanClip struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// PlanOf is the plan of run (the fields a plan copies), sealed with key.
// Its seed is the one the plan fixed: run.json's plan_seed once the run
// was re-seeded from the plan's token (TokenSeed), else its seed.
func PlanOf(run *Run, key, authority string, at time.Time) Plan {
	seed := run.Seed
	if run.PlanSeed != nil {
		seed = *run.PlanSeed
	}
	p := Plan{Schema: PlanSchema, PlannedAt: at.UTC(), Tool: run.Tool, Seed: seed, Protocol: run.Protocol,
		Scoring: run.Scoring, Key: key, Authority: authority,
		Targets: make([]PlanTarget, len(run.Targets)), Corpus: make([]PlanClip, len(run.Corpus))}
	for i, t := range run.Targets {
		p.Targets[i] = PlanTarget{Name: t.Name, URL: t.URL, Model: t.Model, RequestFields: t.RequestFields}
	}
	for i, c := range run.Corpus {
		p.Corpus[i] = PlanClip{ID: c.ID, SHA256: c.SHA256}
	}
	return p
}

// TokenSeed is a pre-registered run's variant seed: the first 8 bytes of
// SHA-256("benchseal.seed/v1", 0, the plan's seed as 8 little-endian
// bytes, the plan's time-stamp token as the authority answered it),
// shifted below 2^53 as every seed is. The token carries the authority's
// signature, which nobody can know before the authority signs, so no
// record whose variant derives from this seed can have been sent before
// the plan was stamped.
func TokenSeed(planSeed uint64, tsr []byte) uint64 {
	h := sha256.New()
	h.Write([]byte("benchseal.seed/v1\x00"))
	h.Write(binary.LittleEndian.AppendUint64(nil, planSeed))
	h.Write(tsr)
	return binary.LittleEndian.Uint64(h.Sum(nil)[:8]) >> 11
}
