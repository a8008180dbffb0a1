// Package export flattens a sealed run into two tables a spreadsheet or a
// dataframe opens as they are: one row per request (Requests: every
// record of records/<target>/*.jsonl, warm-ups and cache-probe requests
// included, with its target, level, repeat, phase, times, status, error
// class and the task's figures) and one row per target, level and repeat
// of claims.json (Claims, followed by the level's median, min and max
// rows). It writes each table as CSV, JSONL or Parquet (Write), the same
// columns in the same order in every format; RequestColumns and
// ClaimColumns name them and docs/export.md documents them (a test holds
// the two to each other).
//
// export computes no published figure: a claim row is claims.json's
// numbers as sealed (benchseal export refuses a bundle that does not
// verify, so they are the numbers verify recomputed), and the only
// values a request row adds to its record are differences of its own
// times (latency_s, ttfb_s), as internal/claims computes them.
//
// Values are int64, float64, string or bool; a nil value is a null: an
// empty CSV field, JSON null, a Parquet null (those columns are
// optional). Parquet is written through github.com/parquet-go/parquet-go,
// one row group, with the columns' order kept (the schema is a struct
// type built from the column list, not a map, whose fields parquet-go
// would sort).
//
// # Imports
//
// It imports schemas and parquet-go only; the CLI (cmd/benchseal export)
// verifies and reads the bundle. Must never import: internal/bench,
// internal/sim, verify, internal/claims. Why: it flattens what verify has
// checked and claims computed; it recomputes nothing.
package export
