package schemas

import "time"

// PredicateType names the predicate of a bundle's in-toto statement.
const PredicateType = "https://benchseal.dev/evidence/v1"

// Predicate is the predicate of the in-toto Statement v1 that a bundle's
// attestation.dsse.json signs (document name "predicate"). It repeats, from
// run.json and claims.json, what a reader of the signature needs without
// opening the archive: which run, under which protocol, by which tool, and
// the headline numbers. A verifier compares it with claims.json.
type Predicate struct {
	Run    PredicateRun      `json:"run"`
	Claims []PredicateTarget `json:"claims"` // one per target of claims.json, in its order; empty when the run has none
	Key    PredicateKey      `json:"key"`
	Sealer Sealer            `json:"sealer"`
	// Files are the subjects' count and total bytes, and whether the clips
	// were left out (seal --no-audio: their hashes stay in run.json).
	Files   int   `json:"files"`
	Bytes   int64 `json:"bytes"`
	NoAudio bool  `json:"no_audio"`
}

// PredicateRun is the identity of the run, copied from run.json.
type PredicateRun struct {
	StartedAt  time.Time         `json:"started_at"`
	EndedAt    time.Time         `json:"ended_at,omitzero"`
	Complete   bool              `json:"complete"`
	Incomplete string            `json:"incomplete,omitempty"`
	Seed       uint64            `json:"seed"`
	Protocol   Protocol          `json:"protocol"`
	Targets    []PredicateServer `json:"targets"`
	Tool       Tool              `json:"tool"`
}

// PredicateServer is a target's identity: no request fields or launch
// command, which live in run.json.
type PredicateServer struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	Model string `json:"model"`
}

// PredicateTarget is the headline of one target of claims.json.
type PredicateTarget struct {
	Target string           `json:"target"`
	Levels []PredicateLevel `json:"levels"`
}

// PredicateLevel is the median over repeats of one level's metrics, exactly
// as in claims.json (same float64 values).
type PredicateLevel struct {
	Concurrency int      `json:"concurrency"`
	Repeats     int      `json:"repeats"`
	Requests    int      `json:"requests"`
	Succeeded   int      `json:"succeeded"`
	ReqPerS     float64  `json:"req_per_s"`
	RTFx        *float64 `json:"rtfx"`
	LatencyP50S *float64 `json:"latency_p50_s"`
	LatencyP99S *float64 `json:"latency_p99_s"`
	WER         *float64 `json:"wer"`
}

// PredicateKey identifies the signing key: "sha256:" and the hex SHA-256 of
// its PKIX (SubjectPublicKeyInfo) DER encoding. Ephemeral keys were made for
// this one seal; their public half ships in the bundle as benchseal.pub.
type PredicateKey struct {
	Fingerprint string `json:"fingerprint"`
	Ephemeral   bool   `json:"ephemeral"`
}

// Sealer is the program that sealed the bundle (which may differ from the
// one that ran, run.tool).
type Sealer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// PredicateFromRun fills the run, targets and claims of a predicate from
// run.json and claims.json (claims may be nil for an incomplete run).
func PredicateFromRun(run *Run, claims *Claims) Predicate {
	p := Predicate{Run: PredicateRun{
		StartedAt: run.StartedAt, EndedAt: run.EndedAt, Complete: run.Complete, Incomplete: run.Incomplete,
		Seed: run.Seed, Protocol: run.Protocol, Tool: run.Tool, Targets: []PredicateServer{},
	}, Claims: []PredicateTarget{}}
	for _, t := range run.Targets {
		p.Run.Targets = append(p.Run.Targets, PredicateServer{Name: t.Name, URL: t.URL, Model: t.Model})
	}
	if claims == nil {
		return p
	}
	for _, t := range claims.Targets {
		pt := PredicateTarget{Target: t.Target, Levels: []PredicateLevel{}}
		for _, l := range t.Levels {
			m := l.Median
			pt.Levels = append(pt.Levels, PredicateLevel{Concurrency: l.Concurrency, Repeats: len(l.Repeats),
				Requests: m.Requests, Succeeded: m.Succeeded, ReqPerS: m.ReqPerS, RTFx: m.RTFx,
				LatencyP50S: m.LatencyP50S, LatencyP99S: m.LatencyP99S, WER: m.WER})
		}
		p.Claims = append(p.Claims, pt)
	}
	return p
}
