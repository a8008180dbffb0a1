// Package verdict compares two targets at one concurrency level and says
// in words what the data shows, no more: the rule a report's conclusion
// and a future `benchseal compare A B` share.
//
// # What is compared
//
// The metric is a value per repeat where higher is better (successful
// requests per second in the report). The ratio is median(A) / median(B),
// medians over each side's repeats.
//
// # The interval
//
// The interval is a percentile bootstrap: the ratio of the resampled
// medians is taken Resamples times, and the interval is the 2.5th to
// 97.5th percentile of those ratios (exact order statistics, nearest
// rank). What is resampled depends on what the caller has
// (Result.Basis):
//
//   - RequestsAndRepeats, when both sides carry per-request latencies
//     (Side.Latencies, from the records of a bundle or run directory):
//     each side's repeats are resampled with replacement, and within each
//     drawn repeat its successful requests' latencies are resampled with
//     replacement; the drawn repeat's value is scaled by its mean latency
//     over the resample's mean latency. The scaling is Little's law for a
//     closed loop (throughput = concurrency / mean latency): the repeat's
//     window stays what it was, the requests that filled it vary. This
//     is issue 13's "over requests within repeats and over repeats": with
//     2 repeats, an interval over repeats alone is two values and means
//     little, while the requests carry the variation within each window.
//   - RepeatsOnly, without per-request data (claims.json keeps one value
//     per repeat): each side's repeats are resampled with replacement.
//     With fewer than 3 repeats this is a rough guide, and a report must
//     say what the interval rests on rather than call it 95 % over
//     repeats.
//
// The random source is PCG seeded with Options.Seed (DefaultSeed), so the
// same inputs give the same interval on every machine.
//
// # The rule
//
// Compare picks the first that applies:
//
//  1. NotComparable: a side has no successful request ("not comparable:
//     B had no successful request"), or failed more than MaxFailed (1 %)
//     of its measured requests over all repeats ("not comparable: B failed
//     N % of requests"). The speed of the survivors of a target that shed
//     load is not the speed of the target. Then a side whose server
//     counted cache hits during measurement while perturbation was on
//     (Side.CacheHits > 0: "not comparable: B counted N cache hits"):
//     every request was a distinct input, so a hit means the server
//     answered from work it did for another request, and its speed is not
//     that of transcribing new audio (a cache that pays off 84-fold must
//     not read as "ahead by 8398 %"). The caller passes CacheHits only
//     with perturbation on; without it, repeats of a clip are identical
//     and the run is flagged as a whole instead.
//  2. SingleRepeat: a side has one repeat. The ratio is shown; an
//     interval only when it rests on requests (RequestsAndRepeats), and no
//     lead is claimed from one window. The report words it by what it
//     shows: "single repeat: no lead claimed from one window (the interval
//     is over its requests only)" beside an interval, "single repeat: one
//     observation, no interval" without one.
//  3. NoDifference: the sides' min–max ranges over repeats overlap, or the
//     interval contains 1 ("no difference shown (repeats overlap)").
//  4. Ahead: otherwise the side with the higher median leads by
//     X = ratio − 1 (A leads) or 1/ratio − 1 (B leads), as a percentage
//     ("A ahead by X %").
//
// Rule 3 is deliberately conservative: with 2 or 3 repeats a bootstrap
// interval is narrow by construction, and the article this tool follows
// says of overlapping repeats "do not overstate the gap".
//
// # Imports
//
// It owns the rule that says which target is faster, and with what
// confidence. Must never import: internal/bench, internal/sim, verify,
// internal/claims. Why: a verdict is a pure function of the repeats'
// numbers.
package verdict
