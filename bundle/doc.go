// Package bundle seals a benchseal run directory into evidence.tar.zst and
// reads such bundles back safely.
//
// # Format
//
// A bundle is a zstd stream (one frame, SpeedFastest, 4 MiB window, content
// checksum, no dictionary, encoded without concurrency) of a PAX tar
// archive. Every entry is a regular file with mode 0644, uid/gid 0, empty
// owner names, no atime/ctime, and mtime = run.json's started_at truncated
// to the second. The entries are:
//
//	attestation.dsse.json   always first
//	attestation.tsr         only when the seal was time-stamped (SealOptions.Timestamp)
//	every other file        in bytewise order of path, benchseal.pub among them
//
// attestation.tsr is an RFC 3161 TimeStampResp over attestation.dsse.json's
// bytes: the one entry the statement does not list, since it dates the
// statement (Bundle.Files are the entries it must list).
//
// attestation.dsse.json is a DSSE envelope (payloadType
// application/vnd.in-toto+json, written by sigstore's DSSE wrapper) of an
// in-toto Statement v1. Its subjects are every other entry, benchseal.pub
// included, as {name: path, digest: {sha256: hex}}; its predicateType is
// PredicateType (https://benchseal.dev/evidence/v1) and its predicate is
// schemas.Predicate (JSON Schema: schemas/predicate.schema.json):
//
//	{"run":    {started_at, ended_at, complete, incomplete, seed, protocol, targets: [{name, url, model}], tool},
//	 "claims": [{target, levels: [{concurrency, repeats, requests, succeeded,
//	            req_per_s, rtfx, latency_p50_s, latency_p99_s, wer}]}],   medians of claims.json
//	 "key":    {fingerprint: "sha256:<hex of the PKIX DER>", ephemeral},
//	 "sealer": {name, version},
//	 "files": N, "bytes": N, "no_audio": bool,
//	 "replay": {of: {bundle_sha256, key_fingerprint, key_pinned}, tolerance: {relative, wer_points},
//	            comparison: [{target, concurrency, metric, sealed, replayed, change, change_unit,
//	            verdict, reason}], differ, verdict}}   only from replay --seal (SealOptions.Replay)
//
// The statement is compact JSON in struct order with sorted map keys. An
// extracted file verifies with stock cosign:
//
//	cosign verify-blob-attestation --key benchseal.pub --signature attestation.dsse.json \
//	    --type https://benchseal.dev/evidence/v1 --insecure-ignore-tlog records/a/c16-r1.jsonl
//
// benchseal.pub (PKIX PEM) is present only when an ephemeral key signed:
// it proves the bundle intact, not who sealed it.
//
// # Determinism
//
// The same run directory, options and key give the same bytes, on any
// machine and any GOMAXPROCS (a time-stamped seal aside: its token holds the
// authority's time): names, order, headers, the statement and the
// compression depend on nothing else, and file and in-memory keys sign
// deterministically (ECDSA per RFC 6979, RSA PKCS #1 v1.5, ed25519). An
// ephemeral key, or a KMS key that signs with randomness, changes the
// signature (and so the bundle) on every seal; everything else is equal.
//
// # Keys
//
// LoadSigner reads PEM key files (benchseal keygen, cosign
// generate-key-pair: ENCRYPTED SIGSTORE/COSIGN PRIVATE KEY; unencrypted
// PKCS #8, SEC 1, PKCS #1) and KMS references SCHEME://KEY. benchseal
// links no cloud SDK: KMS references are served by sigstore's plugin
// mechanism, an executable sigstore-kms-SCHEME on PATH (awskms, gcpkms,
// azurekms, hashivault work through such plugins, as with cosign).
//
// # Reading
//
// Reader and Open never touch the file system. They refuse, with an
// *EntryError naming the entry, anything but regular files, names that are
// not local clean slash paths (or hold backslashes or control characters),
// duplicates, and archives beyond Limits: entry count, entry size, total
// size, zstd window and decoder memory, decompressed bytes, and
// decompression ratio (a bomb is refused after RatioAfter bytes, not
// unpacked). A truncated stream fails with ErrTruncated.
//
// # Imports
//
// It owns the archive format (deterministic tar+zstd), its hardened reader,
// the in-toto statement, DSSE and keys. Must never import: perturb, verify,
// internal/bench, internal/sim, internal/claims, internal/fingerprint. Why:
// the seal knows files and digests, never what a run measured nor how.
package bundle
