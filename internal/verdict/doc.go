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
//     per repeat) and with at least MinBootstrapRepeats (5) repeats a
//     side: each side's repeats are resampled with replacement.
//   - RangeOverRepeats, without per-request data and with fewer than 5
//     repeats a side: no bootstrap (3 repeats give a handful of distinct
//     resamples, an interval that reads far more precise than it is), but
//     the range of the ratio over repeats, min(A)/max(B) to
//     max(A)/min(B). It excludes 1 exactly when the repeats do not
//     overlap (rule 4).
//
// Every interval covers this run's repeats only: the drift between runs
// of the same setup is what the minimum effect stands for (below), and a
// report names it so ("within this run's repeats").
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
//     (Side.CacheHits > 0: "not comparable: B counted N cache hits"; the
//     caller counts only a counter of whole inputs answered from a cache,
//     internal/engine's CacheCounter.Counts, never prefix-cache tokens):
//     every request was a distinct input, so a hit means the server
//     answered from work it did for another request, and its speed is not
//     that of transcribing new audio (a cache that pays off 84-fold must
//     not read as "ahead by 8398 %"). The caller passes CacheHits only
//     with perturbation on; without it, repeats of a clip are identical
//     and the run is flagged as a whole instead. Then a side whose client
//     stalled in a repeat (Side.ClientStalled, the caller's rule:
//     internal/claims.ClientStalled over the repeat's records, the worker
//     gaps verify's check 7 counts): "not comparable: B's client stalled
//     (…)". A client that did not send the load its concurrency says
//     measured itself, and its side's figures are not the server's.
//  2. NotSteady: a side's repeat never reached steady state at its
//     concurrency (Side.Unsteady, by the caller's rule, internal/claims's
//     Steady: mean in flight below 0.9·C, or all C busy for less than
//     80 % of the window): "not at steady state (mean 23.9 of 32 in
//     flight): run ≥ 122 requests". A short window's throughput is partly
//     its ramp and drain, and with workers of different speeds the drain
//     favours neither side predictably: measured, the same two servers
//     gave 1.81× (1.66×–1.95×) at C=32 with 48 requests and 2.55×
//     (2.54×–2.56×) with 768, intervals that do not overlap.
//  3. SingleRepeat: a side has one repeat. The ratio is shown; an
//     interval only when it rests on requests (RequestsAndRepeats), and no
//     lead is claimed from one window. The report words it by what it
//     shows: "single repeat: no lead claimed from one window (the interval
//     is over its requests only)" beside an interval, "single repeat: one
//     observation, no interval" without one.
//  4. NoDifference: the sides' min–max ranges over repeats overlap, or the
//     interval contains 1 ("no difference shown (repeats overlap)").
//  5. WithinNoise: the repeats are apart and the interval excludes 1,
//     but the lead X = ratio − 1 (A leads) or 1/ratio − 1 (B leads) is
//     not above the minimum effect (Options.MinEffect, DefaultMinEffect
//     5 %): "within noise (±5 %)".
//  6. Ahead: otherwise the side with the higher median leads by X, as a
//     percentage ("A ahead by X %").
//
// Rule 4 is deliberately conservative: with 2 or 3 repeats a bootstrap
// interval is narrow by construction, and the article this tool follows
// says of overlapping repeats "do not overstate the gap".
//
// # The minimum effect
//
// Rule 4 alone turns host noise into a verdict: with two repeats, two
// windows that happen not to overlap are "apart", and an interval over
// requests within them is narrow because it sees only the variation
// inside each window, not the drift between runs. Measured: a replay of
// a two-target bundle against the same, unchanged servers on a shared
// 2-core host, compared with the original, moved throughput by 3.7 % to
// 6.4 % per level with every figure within replay's tolerance, and rule 4
// called that a lead. Between runs of the same setup the medians drift by
// a few percent, so a lead must exceed a stated minimum effect before it
// is named: DefaultMinEffect is 5 %, the middle of that measured drift
// and half of replay's default tolerance (10 %); three demo runs in a row
// on the same host drifted by up to 3.0 % and 4.1 % (docs/cli.md). Where
// repeated runs of one setup are given (benchseal report --with), the
// report measures their drift and passes the larger of it and the
// minimum effect as MinEffect (internal/report's Drift): the rule then
// says which bound applied. benchseal report takes
// --min-effect; benchseal compare uses its --tolerance, so that its
// conclusion ("ahead") and its figure table (req_per_s beyond the
// tolerance: DIFF) can never contradict each other: Exceeds uses the
// same boundary as claims.Compare's ratio both ways, so a lead the
// conclusion names is a req_per_s figure beyond the tolerance (DIFF),
// never one the table calls within it. (The converse need not hold: a
// median that moved beyond the tolerance between repeats that overlap
// is a DIFF figure and "no difference shown".)
//
// # Imports
//
// It owns the rule that says which target is faster, and with what
// confidence. Must never import: internal/bench, internal/sim, verify,
// internal/claims. Why: a verdict is a pure function of the repeats'
// numbers.
package verdict
