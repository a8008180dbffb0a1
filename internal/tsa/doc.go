// Package tsa asks an RFC 3161 time-stamping authority for a token over a
// document and checks such tokens: the trusted times of a pre-registered
// run (docs/protocol.md, "Pre-registered runs").
//
// A token is the authority's signed statement that a SHA-256 digest
// existed at a time. benchseal asks for two: one over plan.json (the run's
// protocol, seed, corpus hashes, targets, sealing key and build), written
// before the first request, and one over the signed statement, at seal.
// Together they bound the run from both sides on a clock that is not the
// publisher's: the plan, seed included, was fixed no later than the first
// time, and the evidence existed no later than the second.
//
// # Contract
//
//   - Stamp sends one TimeStampReq (SHA-256, a random 64-bit nonce,
//     certReq true so the token carries the authority's certificate) as
//     application/timestamp-query and returns the TimeStampResp bytes as
//     the authority sent them, once they parse, grant, match the digest
//     and echo the nonce. It never retries: a run that cannot be stamped
//     before measuring must stop, not go on unstamped.
//   - Verify checks a TimeStampResp over data with
//     sigstore/timestamp-authority's pkg/verification (the library of the
//     server Sigstore runs): the CMS signature, the signer's chain to one
//     of the roots (time-stamping EKU, valid at the token's time), the
//     hashed message. Roots are the certificates the caller pins
//     (--tsa-cert) or, unpinned, the ones the run carried; see Chain.
//   - Authority is a local authority with a certificate made at start, for
//     the demo and tests: it proves nothing to a reader but the order of
//     its own clock, and says so where it is used.
//
// No library serves the client half whole: digitorus/timestamp builds and
// parses the ASN.1, sigstore's client package pulls in its whole OpenAPI
// stack for one POST; the POST here is twenty lines.
//
// # Imports
//
// A format-level package: the runner, verify and the CLI use it. Must never
// import: internal/bench, internal/sim, verify, internal/claims.
package tsa
