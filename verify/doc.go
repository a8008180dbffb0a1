// Package verify checks a sealed benchseal bundle (or an unsealed run
// directory) and returns the whole checklist of DESIGN.md, "verify: the
// checklist": every check runs, every problem is collected, none stops
// the others.
//
//	1 archive    regular files only, local clean paths, no duplicates, size caps
//	             (bundle.Reader); attestation.dsse.json first
//	2 signature  the DSSE envelope verifies with the given key; with none, the
//	             key the bundle carries (WARN: the signer is unpinned); the
//	             predicate names the key that signed
//	3 subjects   every file is a subject with its SHA-256, none missing, none
//	             extra; the predicate's file count, bytes and no_audio agree
//	4 schemas    every document validates against its schema: run.json, claims.json,
//	             records (each line), telemetry JSONL, and every JSON document whose
//	             "schema" is benchseal.<name>/v1; the signed predicate
//	5 variants   each record's sample_index is perturb.Plan{Seed: run.seed}.Index(clip
//	             sha256, samples, variant); flipping it re-derives the recorded
//	             input_sha256 and byte_offset from the clip; variant numbers of a
//	             clip and input hashes are distinct across the run; each
//	             clip's seconds are its frames over its sample rate (as the
//	             WAV says) and each record's audio_seconds its clip's, since
//	             RTFx sums them
//	6 claims     internal/claims.Compute over the records equals claims.json and
//	             the predicate, field by field, exactly (integers, and float64
//	             after a JSON round trip)
//	7 protocol   one records file per target, level and repeat, each with the
//	             declared warm-ups and measured requests; the success rule held
//	             by every record (ok only with HTTP 200, no error_class and a
//	             non-empty text_scored; a failure names its class); seqs distinct; start <=
//	             first byte <= end; a worker sends one request at a time; warm-ups
//	             end before measurement starts; never more than C in flight
//	             (FAIL); while measuring, peak in-flight == C (or the step's
//	             request count when smaller): below it is a WARN (a fast server
//	             answers before the last worker has started), a FAIL when a worker
//	             that finished a request stayed idle (over 10 ms) while another
//	             started one; steps do not overlap, in the declared order
//	8 fairness   with two or more targets: the same GPU model (env/gpu.json and
//	             each target's gpus), the same engine knobs (max running requests:
//	             max_num_seqs / max_running_requests; memory fraction:
//	             gpu_memory_utilization / mem_fraction_static; dtype; prefix
//	             caching: enable_prefix_caching / not disable_radix_cache) from the
//	             captured /server_info or /get_server_info; for every target, no
//	             cache hits counted in claims (cache_hits)
//
// # Verdicts
//
// A check is PASS, WARN or FAIL (SKIP for checks 1-3 of a run directory)
// and takes the worst status of its findings. Only FAIL makes a report
// not OK. WARN means the evidence holds but proves less than it could:
// an unpinned signer; audio left out (seal --no-audio) so variants are
// not re-derived and the clips' lengths (seconds, sample rate, frames),
// hence RTFx, rest on run.json alone (Options.AudioDir brings the clips
// back, matched by SHA-256); a run without perturbation (--no-perturb, said
// loudly; its clips' bytes and lengths are still checked against the WAVs); an
// incomplete run (seal --allow-incomplete, said loudly); a fairness
// comparison whose data the run did not capture ("not available") or that
// does not hold (knobs differ, cache hits). Targets on different GPU
// models FAIL: such a comparison measures the hardware.
//
// When the archive is unsafe, nothing in it is trusted: checks 2-8 FAIL
// as "not run". When the signature fails, checks 3-8 still run on the
// unverified statement so that the report says everything that is wrong.
//
// # Resources
//
// Bundle reads its input once, in archive order (bundle/doc.go): the
// clips (inputs/) stream past before the records and run.json that say
// which variants to re-derive from them, so the clips are kept until then:
// in memory while the files kept so far fit in Options.MemoryLimit
// (DefaultMemoryLimit, 16 MiB), beyond it appended to one temporary file
// under Options.TempDir (written by a goroutine of its own, so that the
// copies overlap decompressing and hashing), removed before Bundle
// returns. bundle.Reader hashes every file as it streams; its digests
// serve check 3 and the comparison of each clip with run.json, so no file
// is hashed again for its digest.
//
// Check 5 then takes the clips one by one (a clip with many records is
// shared by several cores): it reads a spilled clip back into a reused
// buffer, re-derives its records' variants through a perturb.Hasher (each
// variant hashes the clip from its changed byte on) and drops it. So peak
// memory is about
//
//	min(MemoryLimit, files) + a clip per core + what grows with the requests
//
// and does not grow with the audio. What grows with the requests is what
// the checks need per record: the decoded records (claims.Compute needs
// them all), a map entry per input hash and per variant number, and the
// records files while they are validated; a few hundred bytes to a
// kilobyte per request. A check keeps at most MaxFindings findings and
// counts the rest.
package verify
