package verify

import (
	"errors"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Kind classifies a finding, so that a program reading `benchseal verify
// --json`, or a CLI adding its own hint, acts on the class and not on
// the wording. A finding whose class has no kind of its own carries its
// check's name ("protocol", "fairness", ...). Kinds are stable: a new one
// may be added, none is renamed.
type Kind string

const (
	// KindNotRun: the check could not run (run.json missing or unreadable).
	KindNotRun Kind = "not-run"
	// KindUnsafeEntry: the archive reader refused an entry (check 1).
	KindUnsafeEntry Kind = "unsafe-entry"
	// KindNeedKey, KindOtherKey, KindNotBenchseal: check 2 did not hold
	// for the reason of ErrNeedKey, ErrOtherKey, ErrNotBenchseal.
	KindNeedKey      Kind = "need-key"
	KindOtherKey     Kind = "other-key"
	KindNotBenchseal Kind = "not-benchseal"
	// KindUnpinned: the signature holds with the key the bundle carries,
	// which proves it intact, not who sealed it.
	KindUnpinned Kind = "unpinned-signer"
	// KindDigest: a file's SHA-256 is not its subject's (check 3).
	KindDigest Kind = "digest"
	// KindSchema: a document does not validate (check 4).
	KindSchema Kind = "schema"
	// KindVariant: a record's variant does not re-derive (check 5).
	KindVariant Kind = "variant"
	// KindAudioMissing: the clips were not sealed and not given, so
	// variants were not re-derived nor the clips' lengths checked.
	KindAudioMissing Kind = "audio-missing"
	// KindNoPerturb: the run sent its clips unchanged.
	KindNoPerturb Kind = "no-perturbation"
	// KindNoReference: items without a reference clip (tts named voices)
	// were sent unchanged every time: nothing to perturb (check 5).
	KindNoReference Kind = "no-reference"
	// KindIncomplete: the run did not complete (a bundle of it was sealed
	// anyway, on request).
	KindIncomplete Kind = "incomplete-run"
	// KindClaim: a claim does not follow from the records (check 6).
	KindClaim Kind = "claim"
	// KindGPUsUnassigned: several GPU models, and not every target says
	// which GPUs it used.
	KindGPUsUnassigned Kind = "gpus-unassigned"
	// KindGPUNotObserved: a target's GPUs were not named, or named and
	// never sampled, so the GPU model it ran on is not observed (check 8).
	KindGPUNotObserved Kind = "gpu-not-observed"
	// KindKnobNotObserved: a server knob no target, or not every target,
	// exposes: it cannot be compared.
	KindKnobNotObserved Kind = "knob-not-observed"
	// KindCacheHit: the server answered whole inputs from its cache
	// (vllm:mm_cache_hits_total grew over a step): FAIL with perturbation
	// on, WARN without.
	KindCacheHit Kind = "cache-hit"
	// KindCacheTokens: a server's prefix-cache token counter grew over a
	// step (tokens reused, not requests answered from a cache:
	// internal/engine's CacheCounter.Counts).
	KindCacheTokens Kind = "cache-tokens"
	// KindModelUnlisted: a target's model is not among those its
	// /v1/models listed: FAIL, or WARN when the run was told to request
	// it anyway.
	KindModelUnlisted Kind = "model-unlisted"
	// KindRoundTrip: a tts run's round trip (check 7) is not what
	// run.json's protocol.round_trip asks for: a transcript of no measured
	// answer, of other audio than its record's, sent inside the sweep, or
	// answers not sent.
	KindRoundTrip Kind = "round-trip"
	// KindReport: REPORT.md does not follow from the sealed data (check
	// 6), whatever claims.json says.
	KindReport Kind = "report"
	// KindScrape: a raw /metrics scrape of a step, or the counters read
	// from it, is missing or disagrees with what the run recorded.
	KindScrape Kind = "scrape"
	// KindCacheProbe: the active cache probe run.json asks for is missing
	// or cut short (check 7), or its latencies and the server's cache
	// counter disagree (check 8).
	KindCacheProbe Kind = "cache-probe"
	// KindReplay: a sealed replay's comparison (the predicate's replay)
	// does not follow from the replay's claims or the original's, or names
	// another original than run.json (check 6).
	KindReplay Kind = "replay"
	// KindTimestamp: a pre-registered run's time-stamp is missing, does not
	// verify, is over another document, or contradicts the records' times
	// or the run (check 11).
	KindTimestamp Kind = "timestamp"
	// KindTSAUnpinned: the time-stamps verify only against the
	// certificates the bundle carries (check 11).
	KindTSAUnpinned Kind = "tsa-unpinned"
	// KindLogUnpinned: the plan's transparency-log entry verifies only
	// with the log key the bundle carries (check 11).
	KindLogUnpinned Kind = "log-unpinned"
)

// kindOf classifies a finding that names no kind: by its typed cause,
// else as its check.
func kindOf(f Finding, check string) Kind {
	var (
		de *bundle.DigestError
		ee *bundle.EntryError
		ve *schemas.ValidationError
		le *schemas.LineError
		va *VariantError
		ce *ClaimError
		re *claims.RecordError
	)
	switch err := f.Err; {
	case err == nil:
	case errors.Is(err, ErrNeedKey):
		return KindNeedKey
	case errors.Is(err, ErrOtherKey):
		return KindOtherKey
	case errors.Is(err, ErrNotBenchseal):
		return KindNotBenchseal
	case errors.As(err, &de):
		return KindDigest
	case errors.As(err, &ee):
		return KindUnsafeEntry
	case errors.As(err, &ve), errors.As(err, &le):
		return KindSchema
	case errors.As(err, &va):
		return KindVariant
	case errors.As(err, &ce), errors.As(err, &re):
		return KindClaim
	}
	return Kind(check)
}
