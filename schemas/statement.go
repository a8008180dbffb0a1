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
	// Replay is set when benchseal replay --seal sealed a replay: its
	// comparison with the run it re-ran, signed with the rest.
	Replay *PredicateReplay `json:"replay,omitempty"`
}

// Replay verdicts of PredicateReplay.Verdict.
const (
	Reproduced    = "reproduced"     // every compared figure within the tolerance
	NotReproduced = "not reproduced" // at least one beyond it
	// NotComparableReplay: none beyond it on the same hardware, but figures
	// moved on other hardware (env/replay-diff.json): neither reproduced nor
	// contradicted.
	NotComparableReplay = "not comparable"
)

// PredicateReplay is a sealed replay's comparison with the run it re-ran:
// the original by digest, the tolerance, every compared figure with its
// verdict, as benchseal replay printed them. A verifier re-derives it from
// the replay's claims (and, given the original bundle, from its claims).
type PredicateReplay struct {
	Of         PredicateReplayOf `json:"of"`
	Tolerance  ReplayTolerance   `json:"tolerance"`
	Comparison []ReplayFigure    `json:"comparison"`
	Differ     int               `json:"differ"`  // figures beyond the tolerance
	Verdict    string            `json:"verdict"` // Reproduced, NotReproduced or NotComparableReplay
}

// PredicateReplayOf names the original bundle: run.json's replay_of.
type PredicateReplayOf struct {
	BundleSHA256   string `json:"bundle_sha256"`
	KeyFingerprint string `json:"key_fingerprint"`
	KeyPinned      bool   `json:"key_pinned"`
}

// ReplayTolerance is how far a figure may move and still agree: Relative
// for throughput, latency and the counts (0.1 is 10 %), WERPoints for wer
// in percentage points.
type ReplayTolerance struct {
	Relative      float64 `json:"relative"`
	QualityPoints float64 `json:"wer_points"`
	// TailRule names the rule that makes a percentile of too few requests
	// UNSTABLE rather than OK or DIFF ("percentile_95_bound",
	// internal/claims.StableRequests); absent in replays sealed before
	// it, which judged every percentile by the tolerance alone.
	TailRule string `json:"tail_rule,omitempty"`
	// FiguresRule is "task_figures" when the run's task's figures
	// (claims.json's members by the task's names) were compared too;
	// absent in replays sealed before they were.
	FiguresRule string `json:"figures_rule,omitempty"`
}

// ReplayFigure is one compared figure (internal/claims.Difference): the
// median over repeats of one metric of one target and level, sealed and
// replayed; Metric "" is a target or level on one side only.
type ReplayFigure struct {
	Target      string   `json:"target"`
	Concurrency int      `json:"concurrency"`
	Metric      string   `json:"metric"`
	Sealed      *float64 `json:"sealed"`
	Replayed    *float64 `json:"replayed"`
	Change      *float64 `json:"change"`
	ChangeUnit  string   `json:"change_unit,omitempty"`
	Verdict     string   `json:"verdict"` // "OK", "DIFF", "NOT-COMPARABLE" or "UNSTABLE"
	Reason      string   `json:"reason,omitempty"`
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
	Quality     *float64 `json:"wer"`
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
				LatencyP50S: m.LatencyP50S, LatencyP99S: m.LatencyP99S, Quality: m.Quality})
		}
		p.Claims = append(p.Claims, pt)
	}
	return p
}
