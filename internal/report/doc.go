// Package report turns a run's claims into the pages a person publishes:
// Markdown and HTML with hand-written SVG charts.
//
// # Contract
//
// Markdown and HTML show the same content, built once (content.go) and
// written twice:
//
//   - a title and a summary: targets, models, GPU, corpus size and audio
//     seconds, the protocol (levels, requests, warm-ups, repeats), and
//     whether every request sent a 1-LSB-perturbed copy of its clip; a
//     run without perturbation, or one that did not complete, is flagged
//     in bold before anything else;
//   - tables, rows by concurrency and columns by target: requests per
//     second and RTFx as "median [min–max]" over repeats, latency
//     p50/p90/p99 (medians over repeats), WER or CER (or "no references"),
//     errors summed over repeats by class, server cache hits and
//     telemetry (GPU utilisation, memory and power, host CPU) when
//     recorded: memory and power peaks of a target on several GPUs are
//     marked as sums with each GPU's own peak beside them, and a window
//     claims marks "not observed" says so in its cells;
//   - the environment and the servers' own descriptions when given;
//   - "How to check these numbers": bundle SHA-256, key fingerprint, the
//     benchseal verify and cosign commands, the benchseal version and
//     binary SHA-256 that ran.
//
// Charts (SVG, see Chart) plot requests per second, latency p50 and p99,
// and RTFx against concurrency on a log2 axis with a tick at each level,
// one line per target with markers, min–max whiskers over repeats, 1-2-5
// value ticks from zero, a legend, and the Okabe–Ito colour-blind-safe
// palette with a distinct marker shape per target (legible in grey too).
// HTML embeds them inline; Markdown links ChartFiles when
// Input.LinkCharts is set.
//
// Output is deterministic: the same Input gives the same bytes. Nothing
// reads the clock, maps are walked in sorted order, and numbers are
// formatted with fixed rules. Every string from the input (target names,
// models, server bodies) is escaped for the format it lands in: HTML and
// SVG by entity, Markdown by backslash and entity, so a target named
// <script> is text everywhere.
//
// The package computes no metric: claims.json (internal/claims) is the
// one source of every number shown.
package report
