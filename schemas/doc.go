// Package schemas holds the Go types of every document benchseal writes and
// their JSON Schemas (draft 2020-12, embedded), so that the runner, the
// sealer, the verifier and third parties read the same contract.
//
// The field names are binding: tools outside the project rely on them. Fields
// may be added; none may be renamed or change meaning. Each document carries
// its schema name ("benchseal.run/v1", ...) in a "schema" field; records are
// lines of JSONL and carry none.
//
// Validate checks a document against its schema; the schemas live in
// schemas/*.schema.json, one per document, named after the document
// ("run.schema.json" is the schema of "benchseal.run/v1").
//
// # Imports
//
// It owns the Go types and JSON Schemas of every document a run writes.
// Must never import: perturb, bundle, verify, internal/bench, internal/sim,
// internal/claims, internal/fingerprint. Why: the documents are the
// contract between the runner and every reader; they depend on neither.
package schemas
