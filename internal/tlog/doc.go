// Package tlog enters a pre-registered run's plan in a Rekor transparency
// log (run --log) and checks such an entry offline (verify check 11).
//
// A publisher who time-stamps a plan still chooses which runs to publish.
// A public, append-only log closes that gap: each plan's digest, signed by
// the key that is to seal the run, is entered before the first request,
// so a search of the log for that key lists every plan the publisher
// registered, published or not (docs/protocol.md says how to search).
//
// # Contract
//
//   - Submit POSTs one hashedrekord v0.0.1 entry (the SHA-256 of the
//     plan, the sealing key's signature over the plan, its public key) to
//     URL/api/v1/log/entries, Rekor v1's API, and returns the entry the
//     log answers (uuid, body, integratedTime, logID, logIndex, and
//     verification: the inclusion proof with its signed checkpoint and
//     the signed entry timestamp), as JSON, once it verifies with the
//     log's key and is the entry sent. PublicKey GETs the log's key
//     (URL/api/v1/log/publicKey).
//   - Verify checks an entry offline with sigstore/rekor's pkg/verify (the
//     inclusion proof up to the checkpoint's root, the checkpoint's and the
//     entry timestamp's signatures by the log's key), then that its body is
//     a hashedrekord over the plan's SHA-256 whose signature verifies over
//     the plan with the public key it names; the caller holds that key to
//     the sealing key.
//   - Local is a log for tests and demos that speaks the same API over an
//     in-memory tree (transparency-dev/merkle, rekor's own checkpoint
//     code). No Rekor runs on these machines (it needs Trillian and a
//     database): Local is what the client and Verify are tested against,
//     not a recording of the public log.
//
// Rekor v2 logs take no entries of this API; this package speaks v1 (the
// public log at rekor.sigstore.dev).
//
// # Imports
//
// Must never import: internal/bench, internal/sim, verify, internal/claims.
package tlog
