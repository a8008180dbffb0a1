// Package verify checks a sealed benchseal bundle (or an unsealed run
// directory) and returns the whole checklist of docs/DESIGN.md, "verify:
// the checklist": every check runs, every problem is collected, none stops
// the others.
//
//	1 archive    regular files only, mode exactly 0644, local clean paths, no
//	             duplicates, size caps, exactly one zstd frame (no skippable
//	             frame before or after it), not empty (bundle.Reader);
//	             attestation.dsse.json first
//	2 signature  the DSSE envelope verifies with the given key; with none, the
//	             key the bundle carries (WARN: the signer is unpinned), or, when
//	             it carries none, "not checked: this bundle needs its sealer's
//	             public key" (UNCHECKED, ErrNeedKey); another key than the one that
//	             signed is "signed by a different key" (ErrOtherKey), a valid
//	             signature over something else "not a benchseal statement"
//	             (ErrNotBenchseal); the predicate names the key that signed
//	3 subjects   every file is a subject with its SHA-256, none missing, none
//	             extra; the predicate's file count, bytes and no_audio agree
//	4 schemas    every document validates against its schema: run.json, claims.json,
//	             records (each line), telemetry JSONL, and every JSON document whose
//	             "schema" is benchseal.<name>/v1; the signed predicate
//	5 variants   through the run's task (internal/task.ForRun: its Input,
//	             Positions, Seconds and RecordSeconds; ASR's below): each record's
//	             sample_index is perturb.Plan{Seed: run.seed}.Index(clip
//	             sha256, samples, variant); flipping it re-derives the recorded
//	             input_sha256 and byte_offset from the clip; variant numbers of a
//	             clip and input hashes are distinct across the run; each
//	             clip's seconds are its frames over its sample rate (as the
//	             WAV says) and each record's audio_seconds its clip's (tts:
//	             the produced seconds its recorded output says, and records
//	             whose outputs name the same audio SHA-256 the same samples
//	             and RMS), since RTFx sums them; and the schedule (internal/bench, "Protocol"):
//	             seq i of a step's phase sends clip i mod the corpus, and each
//	             clip's variants are numbered over the whole run in schedule
//	             order, warm-ups included (every planned request keeps its
//	             number, a stopped target's skipped steps too), so a request,
//	             repeat or step taken out of the middle (or records renumbered
//	             or moved) leaves a gap; a retried warm-up (seq w+n+k) sends
//	             warm-up k mod w's clip and variant again, the only bytes
//	             that may be sent twice; a tts item without a reference clip
//	             (run.json perturb "none: no reference clip") has nothing to
//	             perturb: its records must say variant, sample_index and
//	             byte_offset -1 and input_sha256 "", and check 5 WARNs
//	             (KindNoReference) how many were sent unchanged
//	6 claims     internal/claims.Recompute over the records equals claims.json and
//	             the predicate, field by field, exactly (integers, and float64
//	             after a JSON round trip); the cache counters of
//	             telemetry/steps.jsonl (from which cache_hits come) equal those
//	             read again from the raw scrapes servers/<t>/metrics/*.prom,
//	             none left out, and so are those of
//	             telemetry/cache-probes.jsonl (from which probes[].
//	             counter_growth comes; a line or scrape of a probe run.json
//	             asks for removed FAILs); REPORT.md, regenerated from the sealed
//	             run.json, claims.json, env/ and probes as benchseal run writes
//	             it (Options.RenderReport), is byte for byte the one sealed:
//	             FAIL when its last line names the renderer's report rules
//	             (schemas.ReportRules, Options.RenderReportRules: any build
//	             with those rules renders the same bytes) or run.json names
//	             the renderer's own build, WARN when it names other rules
//	             or none; either way the finding counts the lines that
//	             differ (a line diff) and quotes the first three; not
//	             observed without a renderer. When claims.json matched and something
//	             else failed (REPORT.md, a scrape), the summary says
//	             "... equal claims.json, but <what failed>", and the hint is
//	             that failure's (KindReport, KindScrape), not the claims' one
//	7 protocol   one records file per target, level and repeat, each with the
//	             declared warm-ups and measured requests, and at most
//	             protocol.warmup_retries retried warm-ups, only after every
//	             planned one failed, one at a time, each after the one before
//	             it failed, seqs w+n.. in order; the run's task's
//	             success rule (task.Rule), the one run.json names, held by
//	             every record (ok only with HTTP 200, no error_class and
//	             an output the rule calls a success: for ASR a non-empty
//	             text_scored; text_scored what the rule scores text as; a
//	             failure names its class); seqs distinct; start <=
//	             first byte <= end; a worker sends one request at a time; warm-ups
//	             end before measurement starts; never more than C in flight
//	             (FAIL); while measuring, peak in-flight == C (or the step's
//	             request count when smaller; the summary then says
//	             "min(C, measured requests)" and names the level, which does
//	             not measure concurrency C): below it is a WARN (a fast server
//	             answers before the last worker has started), a FAIL when a worker
//	             that finished a request stayed idle (over 10 ms) while another
//	             started one; steps do not overlap, in the declared order.
//	             Steady state, recomputed from the records
//	             (claims.SteadyState): a step whose mean in flight (Σ latency
//	             / window, Little's law) is below 0.9·C, or whose window had
//	             all C busy for less than 80 % of it, WARNs (KindNotSteady)
//	             with both figures and the measured requests a repeat would
//	             need (claims.SteadyRequests): its throughput is partly ramp
//	             and drain. A claims.json sealed without mean_in_flight and
//	             full_concurrency_share is "not computed by the build that
//	             sealed it" in check 6 (WARN, never FAIL).
//	             An open-loop run (protocol.mode "open") is held to its
//	             schedule instead of C and the closed loop: each phase's
//	             planned offsets re-derive from the seed, request_rates,
//	             burstiness, the repeat and the phase's count
//	             (internal/schedule), and every record's planned_ns is its
//	             phase's start plus its own offset within 1 µs (a shifted,
//	             swapped or unplanned request FAILs, KindSchedule), never
//	             after its start_ns; sent more than 10 ms late WARNs
//	             (KindLate) with the lateness p50/p99 and the worst; never
//	             more than max_concurrency in flight (FAIL). With a warm-up
//	             ramp (protocol.ramp_up) the warm-ups' offsets are the
//	             ramp's and their count must be its; with a fixed schedule
//	             (protocol.fixed_schedule) the measured offsets are the
//	             trace's, in order, of the level's count and mean rate. A
//	             rate search (protocol.find_rate, findrate.go) re-derives
//	             every level's verdict from its records and every next
//	             rate from the verdicts before it (KindRateSearch FAIL).
//	             A tts run's round trip (protocol.round_trip, run
//	             --asr-target; roundtrip.go): every roundtrip/<target>.jsonl
//	             line names a measured successful answer of its target, of
//	             the audio its record names (SHA-256), sent after the last
//	             request of the sweep and its probes; roundtrip/asr.json's
//	             counts are its lines' (KindRoundTrip FAIL); answers not sent
//	             WARN when asr.json says why (an interrupt), FAIL otherwise.
//	             The closed loop, always and in both phases: every worker
//	             0..C-1 took part (unless the phase was over before a late
//	             worker could start), each sent its next request within 50 ms
//	             of its previous one's end (benchseal's median is 0.05-0.07
//	             ms), none idle while another started a request; stalls
//	             beyond 50 ms WARN with their share of the phase's worker
//	             time (a busy client pauses now and then) and FAIL when they
//	             add up to more than 5 % of it (the loop was open). Each
//	             telemetry/steps.jsonl window is its step's measured window
//	             (first start, last end), one line per step. The server's own
//	             count (engine.RequestCountersFor the run's task: vllm:request_success_total,
//	             SGLang-Omni's sglang_omni_http_requests_total on the
//	             transcription route, none for its tts, which has no
//	             /metrics: not observed; sglang:num_requests_total) grew between
//	             the scrapes before and after the step by no less than the
//	             records that succeeded (FAIL; a stream that began with 200
//	             and failed midway may be counted or not) and no more than the
//	             records (WARN: other traffic), or, for a counter of engine
//	             requests (vLLM's), than the engine requests they may have
//	             become (chunks.go: the row's Chunking, each record's audio
//	             length, the run's model and language field); such a FAIL, and check 9's,
//	             quotes how the recorder waited for the server to count them
//	             (steps.jsonl settle: engines count just after answering).
//	             A step's scrape missing while
//	             the target's other steps have theirs, or while its
//	             steps.jsonl line records when it was taken (so deleting
//	             every scrape of a target hides nothing), is a scrape removed
//	             (FAIL, KindScrape), unless telemetry/steps.jsonl's
//	             scrape_errors records that the recorder's scrape failed
//	             (WARN) or the run stopped during that step; a target with no
//	             scrape at all is not observed; the same for the scrape
//	             after the warm-ups (-measure.prom), demanded where the
//	             target's other steps have theirs (continuity.go). Across
//	             steps (continuity.go): every record's request_id is its own
//	             <prefix>-c<C>-r<R>-s<seq> (a probe's c1-r0; FAIL: ids moved
//	             between records); from one step's scrape after to the
//	             target's next step's scrape before, its request counter
//	             and stage-histogram counts grow by no more than the
//	             requests benchseal sent that server in between (records of
//	             every target at the same URL that started in the gap) plus
//	             the step's requests not yet counted when it was scraped
//	             (WARN: other traffic, or steps taken out of the run). The
//	             time between consecutive steps (and from the sweep's end to
//	             each cache probe) is at most the recorded "after" and
//	             "before" scrapes between them (steps.jsonl scrapes, settle
//	             included) + StepGapSlack + StepGapPerRequest per request of
//	             the later step (gaps.go lists what else the runner does
//	             there): longer WARNs (KindStepGap: a step taken out, or the
//	             client paused); scrape times outside that gap FAIL; a run
//	             recorded before scrape times is not observed ("not computed
//	             by the build that sealed it"). The client as a suspect
//	             (saturation.go, internal/claims' saturation.go), from its
//	             own evidence: a step whose workers' gaps show it stalled
//	             (idle over 2 % of their time, with a dispatch-gap p99
//	             above 1 ms or a stall of the stall rule in the measured
//	             phase) is one WARN
//	             (KindClientSaturated) naming each sign's steps and worst,
//	             the host's too: latencies include client-side queueing; a
//	             busy host alone (a measured window whose CPU mean is at
//	             least 90 %, a 1-minute load average above env/host.json's
//	             cpus at the start of a level) whose workers kept up is a
//	             milder WARN (KindClientBusy) with benchseal's own CPU
//	             share (client_cpu_mean, getrusage) and its workers' idle
//	             share: the load it sent is not in doubt. A step measured
//	             again (attempts.go: the runner applies the stall rule,
//	             claims.Stalls, after each step) has its discarded attempts
//	             in records/<t>/attempts/, named by steps.jsonl lines
//	             marked discarded: each must be there (none hidden), be
//	             named, have broken the stall rule and have ended before
//	             the next began; the step's own file holds the last
//	             attempt, all of it (claims from a discarded attempt
//	             FAIL); a step has at most 1 + claims.MaxRemeasures
//	             attempts. Its e2e latency histogram, when
//	             it counted exactly those requests, holds no more seconds than
//	             the client waited and at each bucket bound at least as many
//	             requests as the records (FAIL: the records' latencies are
//	             shorter than the server's own). A step whose measured requests
//	             succeeded below MinSuccessShare WARNs; below half it says
//	             that the figures describe the survivors, with none "the step
//	             has no figures". Telemetry samples or ended_at more than a
//	             minute after the last step ended WARN (steps dropped at the end).
//	             The cache probe run.json asks for (protocol.cache_probe: N
//	             pairs): records/<t>/probe-1.jsonl of every target, with
//	             claims.ProbeWarmup + 2N records, one at a time after the
//	             sweep's last step, each seq a repeat or a variant as
//	             claims.ProbeIsRepeat says; missing or short FAILs in a
//	             complete run (KindCacheProbe: removed after the run), WARNs
//	             in an incomplete one; a probe file in a run that records no
//	             probe WARNs
//	8 fairness   with two or more targets: the same GPU model (env/gpu.json and
//	             each target's gpus; held only when every target names its
//	             GPUs, as --gpu does, and each was sampled in
//	             telemetry/gpu.jsonl: env/gpu.json alone describes the host
//	             benchseal ran on, so otherwise the model is "not observed",
//	             WARN KindGPUNotObserved), the same engine knobs (max running requests:
//	             max_num_seqs / max_running_requests; memory fraction:
//	             gpu_memory_utilization / mem_fraction_static; dtype; prefix
//	             caching: enable_prefix_caching / not disable_radix_cache), each
//	             value with its source (a max running requests M is held
//	             against the server's own inference histogram, knobload.go:
//	             over a step with more than M in flight, the summed
//	             inference time is at most M x the step's wall time, +1 %
//	             and 2 ms a request; FAIL when M is served, WARN when
//	             declared; and from below, over a step that never had
//	             more than M in flight, the server's mean queue time is at
//	             most 5 ms or a tenth of its mean inference time: a server
//	             that admits all of them does not queue; each vLLM
//	             preemption widens both laws by the step's longest request,
//	             skipping neither): served (vLLM's dev-mode
//	             /server_info?config_format=json, vllm:cache_config_info in
//	             /metrics, SGLang's /get_server_info), declared (the launch
//	             command's flags) or absent, from probes-before and
//	             probes-after alike (a change between them WARNs); a knob no
//	             target exposes is WARN "not observed" with how to expose it,
//	             never equal; for every target, no cache hits counted in
//	             claims (cache_hits, the growth over the step, warm-ups
//	             included, of the counter claims.json's cache_hits_counter
//	             names, else the one claims.CacheDelta picks from the step's
//	             steps.jsonl line); what a unit of it is comes from its row in
//	             internal/engine (CacheCounter.Counts, with its source), as
//	             for claims and the report: vllm:mm_cache_hits_total counts
//	             whole multimodal inputs answered from the cache (multi-modal
//	             data items, vllm/v1/metrics/stats.py@28ed1fb8), which a
//	             perturbed run never sends
//	             twice, so its growth FAILs (KindCacheHit: "the server answered
//	             N perturbed requests from its cache"), and is a loud WARN in a
//	             run without perturbation; prefix-cache counters count tokens
//	             ("in terms of number of cached tokens", loggers.py@005a810b;
//	             sglang:cached_tokens_total), which a prompt prefix shared by
//	             distinct audio grows honestly: WARN (KindCacheTokens), never
//	             FAIL and never "answered from its cache". "Not
//	             observable" (WARN) where the server exposes no cache counter,
//	             worded from the target's engine (internal/engine's row named
//	             by its /v1/models owned_by), with its cache probe's verdict
//	             or "not probed". Each target's cache probe, read through
//	             claims.ProbeBearingOf as the report reads it: caching with
//	             perturbation off is "inflated by caching" (WARN), caching
//	             with perturbation on is held (the sweep never sent audio
//	             twice), no verdict WARNs, an undecided probe (its
//	             interval straddles 1.1: a cache neither shown nor
//	             excluded) WARNs with perturbation off and is held with it
//	             on, and counter_agrees false (the
//	             server's vllm:mm_cache_hits_total and the latencies tell
//	             different stories) WARNs naming both. And the recorded
//	             environment agrees with itself: every GPU sampled in
//	             telemetry/gpu.jsonl is one env/gpu.json lists, each step's
//	             GPUs are its target's in run.json, the targets' GPUs are the
//	             recorded command line's --gpu, env/client.json's command line
//	             is run.json's, each target's model is among those its
//	             /v1/models listed (FAIL, KindModelUnlisted; WARN when the
//	             recorded command line asked to request an unlisted model),
//	             and servers/ holds only what the run
//	             captures there (WARN for anything else)
//	9 server     the server as a second witness over each step's measured
//	             phase: the deltas of its stage histograms (claims.ServerOf,
//	             what claims' server block holds: engine.StageFamilies, from
//	             the scrape after the warm-ups to the one after the step, or
//	             from the one before the step when there is none, warm-ups and
//	             their records included) against the records: each stage's
//	             count at least the successful measured requests (FAIL: the
//	             records claim requests the server never saw) and at most the
//	             measured requests, or the engine requests they may have
//	             become (chunks.go) where the engine counts those (WARN:
//	             other traffic); each stage's time summed over its requests
//	             no more than the client's latencies summed over the step's
//	             requests, each counted as many times, plus latencySlack a request
//	             (FAIL: the records' latencies are shorter than the server's
//	             own); a histogram that went down is noted and not held. No
//	             stage family in the scrapes: SKIP "not observed", with the
//	             families looked for and how to get them.
//	             A task that the server counts (task.ServerCounter; tts:
//	             its produced seconds, summed per step) equals the
//	             server's own histogram (vLLM-Omni's
//	             vllm_omni:audio_duration_s) growth within 1 ms a request
//	             + 0.1 % where it counted exactly the decodable answers
//	             (taskchecks.go checkServerAudio; FAIL: audio seconds
//	             edited, however consistently). A task whose requests
//	             are connections the server counts
//	             (task.ConnectionCounter; realtime: vLLM's
//	             vllm:websocket_connections_total) holds each step's
//	             sessions the server opened to the counter's growth over
//	             the step (checkServerSessions; FAIL: fewer accepted than
//	             the records say).
//	10 events    the server's per-request account (events.go): each
//	             servers/<t>/stages/c<C>-r<R>.jsonl re-derives, with
//	             internal/serverevents, from the sealed OTLP exports
//	             (servers/<t>/otlp/) or request-profiler event files
//	             (servers/<t>/events/c<C>-r<R>/) and the records (FAIL
//	             otherwise); every measured record that claims success is
//	             in the server's account, by request id (FAIL: a request the
//	             server never saw), or by count where the server keeps its
//	             own ids (SGLang-Omni, non-streamed); no server time of a
//	             request (e2e, queue, prefill, decode, inference, first
//	             token) exceeds the client's latency for the same id by
//	             more than 2 ms + 1 % (FAIL: the latency was lowered), nor
//	             a step's median request's e2e its client latency by more
//	             than 0.1 ms + 0.1 % (medianMarginSlack: the server's
//	             interval lies inside the client's; FAIL: every record
//	             shaved within the per-request slack), nor a record's
//	             first byte come earlier after its send than the server's
//	             time to first token after arrival, beyond the same slack
//	             (FAIL: the first byte was moved); a closed-loop step the
//	             records put at steady state must stay there by the
//	             server's account, each joined latency trimmed to its e2e
//	             plus twice the median overhead of the requests a closed
//	             loop cannot lengthen unseen, plus 5 ms (FAIL below
//	             0.85·C: latencies lengthened to fill a drain); a
//	             benchseal id of the step in the server's evidence that no
//	             record carries FAILs (a record removed), other ids WARN.
//	             Over the whole run (ids.go): every benchseal id of a
//	             target's prefix in its OTLP spans belongs to one of its
//	             records, a step's or its probe's (FAIL: steps or records
//	             removed, the spans left; WARN in an incomplete run); and
//	             the joined spans' starts fit one clock offset per target:
//	             vLLM starts a span at the request's arrival, within the
//	             client's [start, end], so each successful record bounds
//	             the offset to [S-T-L, S-T]; these must share a point, each
//	             widened by 2 ms + 1 % of L and the offset allowed to
//	             drift 500 ppm (the most NTP slews a clock) with time. The
//	             estimate named in a FAIL is the median of S-T. A clock
//	             stepped (not slewed) during the run would break it.
//	             A target on loopback (127.0.0.0/8, ::1, localhost) shares
//	             the client's clock: every interval must hold 0 (within
//	             1 ms; FAIL: the records' times were moved, as a started_at
//	             shifted past a plan stamped later). The summary prints
//	             each target's fitted offset.
//	             A target without such evidence is "not observed"
//	             (KindEventsNotObserved)
//	11 timestamp a pre-registered run's trusted times (timestamps.go):
//	             timestamps/plan.tsr over plan.json and attestation.tsr
//	             over attestation.dsse.json verify (internal/tsa) against
//	             Options.TSAChain, else the chain the run sealed (WARN
//	             KindTSAUnpinned); the plan equals run.json and names the
//	             sealing key; run.json's seed is schemas.TokenSeed of its
//	             plan_seed (the plan's) and the plan's token, so no record
//	             was drawn before the stamp (no plan_seed: FAIL); a bundle
//	             with a plan carries the seal's token; plan time <= first
//	             request <= last request <= seal time within ClockTolerance
//	             + each token's accuracy, and the first request within
//	             planLead of the plan (the first step's recorded scrape,
//	             its variants, StepGapSlack, PlanLogSlack with a log entry)
//	             (FAIL KindTimestamp otherwise). Not time-stamped: SKIP
//	             "not observed"
//
// # Verdicts
//
// A check is PASS, SKIP, WARN, UNCHECKED or FAIL and takes the worst
// status of its findings. FAIL and UNCHECKED make a report not OK (the
// exit status 1 of benchseal verify): UNCHECKED is a check that applies
// but could not run (check 2 without the sealer's public key), so nothing
// was found false, yet a bundle whose signature was not checked proves
// nothing. A failing check's hint (Check.Hint) is its first failing
// finding's kind's when that kind has one, else the checklist row's. WARN means the evidence holds
// but proves less than it could: an unpinned signer; audio left out (seal
// --no-audio) so variants are not re-derived and the clips' lengths
// (seconds, sample rate, frames), hence RTFx, rest on run.json alone
// (Options.AudioDir brings the clips back, matched by SHA-256); a run
// without perturbation (--no-perturb, said loudly; its clips' bytes and
// lengths are still checked against the WAVs); tts items without a
// reference clip, sent unchanged (no-reference); an incomplete run (seal
// --allow-incomplete, said loudly); steps that measured few successes; a
// server that counted more requests than the records (other traffic); a
// fairness comparison whose data the run did not capture ("not
// available") or that does not hold (knobs differ, cache hits); files
// under servers/ that the run does not capture. Targets on different GPU
// models FAIL: such a comparison measures the hardware. FAIL is for two
// files written by benchseal that contradict each other, or a file that
// contradicts its signature.
//
// What could not be compared because the evidence is absent (no
// steps.jsonl, no request counter in a step's scrapes, no cache counter,
// no REPORT.md) is neither PASS nor FAIL: the check's summary keeps each
// part's state, "held: ...; not observed: ..." (check 8: "held: ...;
// not compared: one target"), and never reports it as held.
//
// When the archive is refused (check 1 FAIL: "damaged" when it is cut
// short, corrupt or empty, "unsafe" when it holds what a hostile archive
// does), nothing in it is evidence: checks 2-8 are SKIP ("not run: the
// archive is damaged") with no findings of their own, so a reader gets
// one failure and one hint. When the signature fails, checks 3-8 still run
// on the unverified statement so that the report says everything that is
// wrong; a signed payload that is not a benchseal statement leaves check 3
// SKIP. Dir refuses a folder without run.json (NotRunDirError) before
// reading anything beneath it. A folder holding attestation.dsse.json is
// an extracted bundle (extracted.go): checks 2 and 3 run on its files as
// on the archive's entries (a file changed, removed or added FAILs check
// 3), check 1 is SKIP (no archive), the others as for a bundle.
//
// # The evidence boundary
//
// The checks above aim at edits that another file of the run contradicts:
// a key holder who changes records, claims, telemetry or a scrape and
// re-seals with their own key leaves another sealed file disagreeing (the
// doctored-bundle corpus, corpus_test.go and thirdpass_test.go, has 77
// kinds, each held to its check and verdict). Checks 9 and 10 add the server's own account (its
// stage histograms; its spans or profiler events, joined by request id),
// so that records edited alone now contradict what the server recorded. They cannot catch a fabrication made
// consistently across every file that describes the same fact, because
// every one of those files is the sealer's own word:
//
//   - records, steps.jsonl windows, the /metrics scrapes and the server's
//     spans or event files rewritten together (latencies shortened and
//     the server's histograms, counters and per-request times edited to
//     match), or a whole run invented with a simulator standing in for the
//     engine: the scrapes, spans and events are what the client received
//     and saved;
//   - the last repeat or the last steps of a run dropped with
//     protocol.repeats (or the levels) lowered to match, the telemetry
//     samples and ended_at trimmed with them, and the server's spans and
//     counters rewritten too: nothing after those steps numbers its
//     variants from theirs (left as they were, the OTLP exports name the
//     removed requests' ids and the counters grow across the gap);
//   - GPU facts (env/gpu.json and its samples) written for hardware the
//     run never used, as long as they agree with each other;
//   - a server's self-description (probes, /v1/models, knobs) edited
//     everywhere it appears.
//
// What would catch them lies outside the bundle: the server's own logs with
// the requests' ids and times kept by someone else (benchseal sends each
// request's id as X-Request-Id, which vLLM carries into its logs and spans),
// a third party scraping the server's /metrics during the
// run (a second, independent copy of the counters), a replay of the run
// against the same engine (benchseal replay) whose numbers must come out
// alike, or a signature by a key the reader trusts to belong to someone
// who would not fabricate (the signature proves who sealed, not that what
// was sealed happened).
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
//
// # Imports
//
// It owns the checklist (checklist.go) and its findings over a bundle or a
// run directory. Must never import: internal/bench, internal/sim,
// internal/report. Why: a verifier never runs a load generator or a server,
// so it cannot re-measure where it must re-derive; the report depends on
// verify, not the reverse.
package verify
