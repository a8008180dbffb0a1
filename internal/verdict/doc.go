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
// The interval is a percentile bootstrap over repeats: each side's repeats
// are resampled with replacement (as many as it has), the ratio of the
// resampled medians is taken, Resamples times, and the interval is the
// 2.5th to 97.5th percentile of those ratios (exact order statistics,
// nearest rank). It is not a bootstrap over requests: throughput is a
// property of a repeat's measurement window, not of one request, and
// claims.json keeps one value per repeat. The random source is PCG seeded
// with Options.Seed (DefaultSeed), so the same inputs give the same
// interval on every machine.
//
// # The rule
//
// Compare picks the first that applies:
//
//  1. NotComparable: a side has no successful request ("not comparable:
//     B had no successful request"), or failed more than MaxFailed (1 %)
//     of its measured requests over all repeats ("not comparable: B failed
//     N % of requests"). The speed of the survivors of a target that shed
//     load is not the speed of the target.
//  2. SingleRepeat: a side has one repeat ("single repeat: one
//     observation, no interval"). The ratio is shown, without an interval.
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
