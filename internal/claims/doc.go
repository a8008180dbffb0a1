// Package claims turns records into claims: every number of claims.json
// is computed here, the task's own figures through the task's
// accumulator (internal/task's Figurer), which claims feeds. (Numbers
// drawn from claims elsewhere are not claims.json's: the verdicts' ratios
// and intervals, internal/verdict; the peers' figures under their own
// definitions, internal/task/seedtts and ttscompat.) The runner, sealing,
// the verifier and a replay all call Recompute (Compute with the run's
// telemetry and its task's metric), so a claim recomputed from the
// records of a bundle is the same number, bit for bit, as the one the
// run published.
//
// claims computes the core every task shares (counts, window,
// throughput, RTFx, latency, in-flight, telemetry, the server's stages,
// the cache probe) and owns no task's rule: whether a request succeeded
// is its record's ok (the task's success rule, applied by the runner and
// checked again by verify), the seconds RTFx counts are its record's
// (the task's Seconds), and the quality figure (claims.json's "wer") is
// the task's Quality (internal/task: for ASR its WER), picked with
// task.ForRun from run.json's protocol.task.
//
// # Definitions
//
// Each metric is computed per target, per concurrency level, per repeat,
// over the records of phase "measure" (warm-ups are never counted, except
// in warmup_peak_in_flight, below):
//
//   - requests, succeeded, failed: counts of measured records; a record
//     succeeded when ok is true (its task's success rule; ASR's: HTTP 200
//     and non-empty text).
//   - window_s: last end_ns minus first start_ns over every measured
//     record, successful or not: a failed request occupied the server and
//     the client as much as a successful one, and leaving it out would
//     shrink the window a failing server is judged on.
//   - req_per_s: succeeded / window_s (0 when the window is empty).
//   - rtfx: the seconds of the successful requests (their records'
//     audio_seconds, as the task counts them) / window_s: for ASR, how
//     many seconds of audio the server transcribed per wall-clock second.
//     Null when no request succeeded (or the window is empty).
//   - latency_*_s: end_ns - start_ns of the successful requests. The mean
//     is the arithmetic mean; percentiles are exact, with numpy's default
//     linear interpolation: on the ascending sorted values x[0..n-1], the
//     p-th percentile is at rank r = p/100*(n-1), the value
//     x[floor(r)] + (x[ceil(r)]-x[floor(r)]) * (r-floor(r)). No successful
//     request: every latency is null (nothing was measured; claims made
//     before this published 0, which verify still accepts as the same).
//   - latency_percentiles: only when run.json's protocol.percentiles
//     asks for them (run --percentiles), one {p, latency_s} per asked
//     percentile, in its order, by the same definition over the same
//     latencies (null with no successful request); the median, min and
//     max over repeats are taken percentile by percentile. compare and
//     replay (Compare) compare those both sides have, beside p50 and
//     p99, as schemas.LatencyPercentileName (latency_p99_9_s).
//   - ttfb_p50_s: the median (same definition) of first_byte_ns - start_ns
//     over successful requests where a byte arrived (first_byte_ns > 0);
//     null when there is none.
//   - the run's task's figures (internal/task's Figurer, figures.go: an
//     accumulator fed the repeat's records, members named by the task,
//     absent when not observed and in other tasks' runs); tts's:
//     rtf_p50, rtf_p95: the percentiles of each successful request's
//     real-time factor, latency ÷ the seconds of audio it produced (its
//     audio_seconds; under 1 is faster than real time; rtfx is then the
//     produced audio seconds per second); first_audio_p50/p95/p99_s: of
//     first_byte_ns - start_ns over the successes read as a stream (their
//     output's task.Audio.Stream, raw or SSE: first_byte_ns is then their
//     first non-empty PCM bytes), absent when none was (a whole body's first
//     byte is its headers: not observed); audio_s_per_char: the
//     successes' produced seconds ÷ the Unicode code points of the texts
//     they spoke (run.json's corpus speak), absent when run.json has no
//     text for one of them. chat-audio's: ttft_p50/p95/p99_s,
//     itl_p50/p95_s, output_tokens_per_s (internal/task chat_roles.go).
//   - peak_in_flight: the largest number of measured requests in flight
//     at once, swept over their start and end events; an end at the same
//     nanosecond as a start is counted first, because a closed-loop worker
//     starts its next request only after the previous one ended. Warm-ups
//     are left out: a C=32 level over an 8-clip corpus sends 32 warm-ups
//     at once, but its measured phase never has more than 8 in flight.
//   - warmup_peak_in_flight: the same sweep over the warm-up requests of
//     the level/repeat on their own; absent when it had none.
//   - mean_in_flight: the sum of the measured requests' latencies
//     (end_ns - start_ns, successful or not: a failed request held its
//     worker too) over window_s, the mean number in flight by Little's
//     law; full_concurrency_share: the share of window_s during which at
//     least C measured requests were in flight (the same sweep as
//     peak_in_flight). Together they say whether the level reached steady
//     state (Steady: mean at least 0.9·C and share at least 80 %; steady.go
//     says why, and SteadyRequests how many requests would reach it).
//     Absent in claims sealed by a build that did not compute them.
//   - wer: when at least one clip of the corpus has a reference text, the
//     task's quality figure over the measured requests (task.Quality).
//     ASR's: the corpus rate of internal/score over the measured
//     requests whose clip has a reference (hypothesis: text_scored), with
//     the run's Scoring options; it holds CER when the scoring unit is
//     "char". Null without references, and null when no reference unit
//     was scored (every such request failed and failures are excluded):
//     unknown, not 0.
//   - errors: failed measured requests by error_class.
//   - An open loop's figures (OpenLoop): offered and send rate, send
//     lateness and latency from the planned arrival p50/p99, goodput_per_s
//     with an SLO (Goodput), and whether the server kept up (keepup.go):
//     arrival_latency_growth, the median latency from arrival of the last
//     third of the measured requests by planned time over the first
//     third's (absent under KeepUpMinThird successes a third), and
//     backlog_growth, the mean requests arrived and not ended at each
//     planned arrival, last third less first. KeepUpOf turns a level's
//     medians into kept up, did not keep up, or not observed.
//
// Over repeats, median, min and max are taken field by field, each field
// independently (the median row is not one of the repeats). The median of
// an even count is the mean of the two middle values; for integer fields
// that mean is rounded down. Errors take the median/min/max per class, a
// class missing from a repeat counting as 0, and classes whose value is 0
// are left out. rtfx, the latencies, ttfb_p50_s, wer,
// warmup_peak_in_flight and the optional telemetry fields use only the repeats where they are present, and stay null (or
// absent) when none has them.
//
// # Telemetry
//
// With WithTelemetry (LoadTelemetry reads the run directory's telemetry/),
// each level/repeat also gets gpu_util_mean, gpu_util_max,
// gpu_mem_peak_bytes, gpu_power_peak_w (sums over the target's GPUs at one
// sampling instant), gpu_peaks (each GPU's own peaks, for a target on more
// than one GPU), host_cpu_mean and client_cpu_mean (the mean proc_cpu_pct
// of the host samples: benchseal's own share of the CPUs, getrusage;
// absent in runs whose samples predate it), recomputed from the raw samples of
// telemetry/gpu.jsonl and host.jsonl whose t_ns lies in the measured
// window (first start_ns to last end_ns of the measured records, widened
// to the edge samples sample_start_ns and sample_end_ns of its steps.jsonl
// line) for the target's run.json gpus, and cache_hits, recomputed from the
// raw counter values cache_before/cache_after of its telemetry/steps.jsonl
// line (CacheDelta, over engine.CacheHitCounters); a cache probe's
// counter_growth likewise from its telemetry/cache-probes.jsonl line
// (ProbeGrowth). steps.jsonl holds no
// summary: this package is the only one that computes these figures. A
// window with fewer than 2 sampling instants in a sampled run has no
// sampled field and telemetry_note TelemetryNotObserved; the median, min
// and max carry the note when every repeat has it (applyTelemetry has the
// exact definitions). A field with no sample or no counter stays absent
// (null): cache_hits absent means not observable (SGLang-Omni exposes no
// cache counter although it caches by audio content; plain SGLang's
// sglang:cached_tokens_total appears only after its first hit), never zero
// hits; readers must say "not observable".
//
// # The server block
//
// Each repeat (never the median, min or max) also gets server: the
// server's own account of the measured phase, from the raw /metrics
// scrapes servers/<target>/metrics/c<C>-r<R>-{before,measure,after}.prom
// of the steps steps.jsonl names (LoadTelemetry reads their stage
// families; ParseScrape, through Prometheus's text parser). Definitions
// (applyServer has them exactly):
//
//   - the deltas run from the measure scrape (after the warm-ups) to the
//     after scrape, scope "measured"; without a measure scrape that parses
//     and holds a stage family, from the before scrape, warm-ups included,
//     and no scope; no after scrape, or no start: no server block;
//   - a stage reads the first family of engine.StageFamilies for it that
//     is in both scrapes (each engine's families are in its row of
//     internal/engine's table, with when the engine observes them and its
//     buckets), its series summed over their labels (only those matching
//     the family's Match: SGLang-Omni's transcription route);
//   - count is the delta of the histogram's count; mean_s the delta of its
//     sum over count (exact); p50_le_s and p95_le_s QuantileBound of
//     the delta's buckets: the upper bound of the bucket holding the
//     rank, so the percentile is at most that (null when the rank is in
//     +Inf). Not histogram_quantile's interpolation, which would publish
//     a value no observation showed (vLLM's finest latency bucket is
//     0.3 s: a queue of exactly 0 would read p50 0.15 s). The times are
//     null when count is 0;
//   - a family that went down between the two scrapes (count, sum or a
//     bucket: a restart) or changed its buckets is not computed and note
//     says so;
//   - a server that exposes none of the families has no server block:
//     absent, never zeros.
//
// verify recomputes the block with the rest (check 6) and holds it to the
// records (check 9, claims.ServerOf).
//
// A verifier must pass the same telemetry to recompute claims.json, as
// Recompute and RecomputeDir do:
//
//	run, recs, tel, err := claims.LoadDirTelemetry(fsys)
//	cl, err := claims.Recompute(run, recs, tel)
//
// Levels appear in run order, repeats in order, targets in run.json order.
// A level/repeat without measured records (an interrupted run) is left out;
// a level with none at all is left out too.
//
// # The stall rule
//
// Stalls (stall.go) is the closed loop's stall rule, the one check 7 of
// verify holds a step's records to and the runner applies after each
// step to measure a stalled one again (at most MaxRemeasures times): in
// each phase, worker gaps longer than DispatchTolerance and a worker left
// idle while another took a request add up to at most MaxStallShare of
// C times the phase's window. A discarded attempt's records
// (records/<t>/attempts/) are never read by LoadDir, and its steps.jsonl
// line is in Telemetry.Discarded, not Steps: no claim comes from it.
//
// # Records
//
// ReadRecords decodes a records JSONL file. The runner flushes one complete
// line per request, so a crash loses at most the line being written: a
// last line that is cut short (no trailing newline and not valid JSON) is
// reported as ErrTruncatedLine together with every complete record before
// it, so a caller can decide to keep them. Any other bad line is a
// *LineError.
//
// # Imports
//
// It owns the one metrics implementation: records and telemetry to claims.
// It imports internal/task for the task's metric (task never imports it).
// Must never import: internal/bench, internal/sim, verify, internal/report.
// Why: the runner and the verifier both recompute claims with it; it
// depends on neither.
package claims
