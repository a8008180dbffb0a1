// Package report turns a run's claims into the pages a person publishes:
// Markdown and HTML with hand-written SVG charts.
//
// # Contract
//
// Markdown and HTML are built once (content.go) and written twice.
// report.html shows everything; REPORT.md, the report a reader pastes,
// leaves out the reference detail marked for the page alone (htmlOnly)
// and says in a line where it is (mdOnly; mdBlocks and htmlBlocks pick
// each format's blocks): the verdict tables' one-line headlines; the
// rule's thresholds of no lead and not comparable (a pointer to the page
// and docs/report.md); the RTFx table and chart; in "Where the time
// goes", the chart, the tables of means and the histograms' percentiles
// (each target's findings, what is not observed, the flags that give
// per-request evidence, and exact per-request percentiles stay); a
// task's table beyond its chart's two figures (tts: time to first audio
// p50 and p99); a Telemetry table that holds only the
// client host's CPU (REPORT.md: one line of Environment, its range); the
// host's OS release, kernel and cores; each target's facts as one line,
// its probes' status codes and /version's body only (the page lists each
// fact and probe body); and the cache sentence's gloss. Every number a
// verdict rests on, every caveat, and every "not observed" with how to
// provide it are in both. The first screen says who is faster where, by
// how much, how sure, and what may make that unfair:
//
//   - when benchseal verify failed (Input.Verify), the first line says so,
//     with the failed checks;
//   - the title, then a run without perturbation, or one that did not
//     complete, flagged in bold;
//   - the title names the targets in the conclusion's order (the one
//     faster at more levels first), so "a vs b" reads the same in both;
//   - "Conclusion" (conclusion.go): for each pair of targets (the one
//     faster at more levels first) and each level, the ratio of median
//     successful requests per second (the first-named over the second at
//     every level, as the ratio column names them: one fixed direction,
//     so a level where the second is faster reads below 1×), its
//     bootstrap interval and a verdict in words, all by internal/verdict's
//     rule (a lead not above Input.MinEffect, default 5 %, is "within
//     noise"; where Input.Drift, the drift measured between this run and
//     repeated runs of its setup (drift.go, benchseal report --with), is
//     larger, it is the bound, and the rule says which bound applied and
//     the drift), with (report.html) a one-line summary
//     grouping levels of the same verdict. The interval's column header
//     and the rule paragraph say what the interval rests on and that it
//     covers this run's repeats only (the drift between runs is what the
//     minimum effect stands for): over requests within repeats and over
//     repeats when Input.Records is set ("interval from requests within
//     this run's 2 repeats" below 3 repeats), else a bootstrap over
//     repeats with 5 or more ("95 % interval within this run's
//     repeats"), and with fewer the range of the ratio over repeats, no
//     bootstrap ("range over this run's 3 repeats",
//     verdict.RangeOverRepeats). With perturbation on, a target whose
//     cache counters grew is "not comparable: X counted N cache hits",
//     only for a counter of whole inputs answered from a cache
//     (claims.CacheHitsAnswered, internal/engine's row): prefix-cache
//     tokens reused are a caveat ("Prefix cache: X reused N prompt
//     tokens"), never a verdict;
//   - below the verdicts, one line on fairness (fairness_view.go): "Not
//     shown fair" where verify's fairness check found a fact that differs
//     between the targets (a knob set otherwise, another GPU model); where
//     the only such facts are simulator settings, which the banner under
//     the title lists, the line says so and names beside it what was not
//     observed;
//     where it only found settings, GPUs or cache counters not observed,
//     "Fairness not observable: GPU model (…); max running requests,
//     dtype (on no target); prefix caching (on b)", each such finding
//     said there once and not again in the box (in the box's first line
//     when a fact also differs);
//   - "Caveats": facts, one line each, each said once, most important
//     first: verify's other fairness findings as verify words them
//     (server settings and their source, GPUs, caches), whole, never
//     clipped, less the advice a finding carries (verify.Finding.Advice),
//     and less what the report says from the same data (the simulator,
//     a saturated client, survivors, steady state, a probe whose counter
//     disagrees), then what the claims show
//     (targets that failed more than 1 % of a level's requests, levels
//     with fewer requests than C or not at steady state, a saturated
//     client (its workers' gaps: claims.ClientStalled, or verify's
//     finding) or, milder, a busy client host whose workers kept up
//     (its CPU mean, with benchseal's own client_cpu_mean and its
//     workers' idle share), one
//     repeat, cache hits, prefix-cache tokens, cache counters not
//     observable, the last only when verify's fairness check did not run,
//     since it says the same; every probed target's cache-probe verdict in
//     one line), then verify's other warnings and failures
//     (an unpinned key, unless it is the ephemeral key the evidence's key
//     paragraph names); "Not verified" when verify did not run. Below the
//     box, once, how to observe what was not observed, one line per engine
//     of the targets (internal/engine's Knobs.Expose, with the targets it
//     serves, from their /v1/models);
//
// then the summary (targets, models and GPU only where the title does not
// already name them all, corpus, protocol, perturbation;
// the cache-proof premise only as far as it was observed: within this run
// every request was distinct, but those of tts items without a reference
// clip, named as sent unchanged (a cache keyed by the text and voice could
// answer them); no answer came from a cache only where every
// target counts cache hits and none grew; where hits were counted the
// premise failed; without a counter it is not observable; and a run with
// the same seed, named from run.json, re-sends the same variants)
// and the numbers: requests per second and RTFx (in ×) as "median
// [min–max]" over repeats with "(N % failed)" beside every cell of a level
// where requests failed; latency p50/p90/p99, one row per level and
// target, each "median [min–max]", with the failed share beside the
// target's name (the errors table counts them), a
// percentile marked "*" where a repeat has fewer successful requests than
// claims.StableRequests (pⁿ ≤ 0.025, the rule replay and compare call
// UNSTABLE by: p99 needs 368), the count named once in the caption; "—"
// wherever a level had no successful request (never 0); WER or CER with
// how many clips have a reference (a tts round trip whose recogniser heard
// no speech, a median WER at or above 100 % as an empty transcript scores,
// is "not heard" in its cell and a "Not heard" line, never an accuracy
// figure); errors by class; cache hits ("not
// observable" without a counter; one sentence where every target's is
// the same at every level); telemetry (one figure, host CPU alone: a
// row per level with every target's, as throughput; memory and power peaks of
// a target on several GPUs marked as sums with each GPU's own peak beside
// them; a window claims marks "not observed" says so in its cells); the environment; the servers'
// own descriptions; and "Evidence": its SHA-256 and key fingerprint in one
// paragraph (with what an ephemeral key does and does not prove), the
// benchseal verify command, what the evidence shows and cannot (a
// consistent fabrication by the key holder is caught only where
// server-side evidence exists; the files the bundle holds are
// docs/bundle.md's and stock cosign's recipe docs/verify.md's, named, not
// repeated), check 11's time-stamps (their summary there when the check
// passed, in the checklist otherwise), verify's checklist (the passed
// checks in one line, the others with verify's summary, the fairness
// warnings and an ephemeral key's unpinned signature, said above, by
// number), and the benchseal
// version and binary that measured; where no repeat of any target carries
// a server block, "Evidence" says "Server-side stages: not observed", why,
// and which families each engine exposes (and with which flag).
//
// "Where the time goes" (stages.go), after Latency, only where some repeat
// carries claims.json's server block (the servers' own Prometheus
// histograms over the measured phase, internal/claims): one line saying
// what the numbers are (and, where some target's percentiles are the
// histograms', the flags that give exact ones); the Stages chart; then per target its knee and a
// table per level, in milliseconds: client latency, server e2e, queue,
// prefill (first forward), decode, client − server. Each stage cell is the
// median over repeats of the stage's mean (StageStat.MeanS); client
// latency is the median of latency_mean_s over the same repeats (those
// with a server block, so both sides describe the same steps); client −
// server is the difference of those two medians (network, upload, client
// overhead), so a row adds up; a stage column not observed at any level
// is left out and said in a sentence ("Not observed: queue, …", or the
// caption's "Not observed at any level: …"), as is client − server from
// the histograms (the section's first paragraph says once how
// per-request evidence gives it). A cell over fewer repeats than the level's
// says "(k of n repeats)". Every cell is one of three states:
//
//   - a number;
//   - "not observed": the server exposes no such family (the paragraph
//     above the table names the families that would carry it), or no
//     scrape bracketed that level (a whole row);
//   - "broken: why": a family that grew by nothing in a repeat whose
//     requests succeeded ("counted no request"), a mean that is not a
//     duration, a server e2e below the sum of its stages ("less than its
//     stages", beyond 1 % + 1 ms of rounding), a family internal/claims
//     did not compute because it went down during the step (the server
//     block's note: "histogram reset during the step"), or a server time
//     above the client's latency; the caveats name each broken cell,
//     since data that cannot be right belongs on the first screen.
//
// A level whose server block has no "measured" scope (no scrape after the
// warm-ups) is named in the table's caption: its stages include the
// warm-ups, the client's latency does not.
//
// Below each target's means, a second table gives p50 / p95 of the same
// columns (reqstages.go), and its paragraph and caption say where they
// come from:
//
//   - "from N requests joined by request id": where Input.Stages (the
//     run's servers/<t>/stages/c<C>-r<R>.jsonl: vLLM's OpenTelemetry
//     spans or SGLang-Omni's request profiler, internal/serverevents)
//     has lines naming successful measured records of Input.Records.
//     The percentiles are exact (claims.Percentile: numpy's linear
//     interpolation, as claims.json's latency percentiles) over the
//     level's joined requests, every repeat together; client − server is
//     taken per request (record latency end − start minus the line's
//     e2e). A column "requests joined" says "k of n successes". A stage
//     no joined line carries is "not observed"; a time that is not a
//     duration is "broken: not a duration"; a request whose server e2e
//     exceeds its own client latency by more than 2 ms + 1 % (verify's
//     slack) makes client − server "broken: server time exceeds client
//     latency"; a level with no joined request is a row of "not
//     observed". Broken cells join the caveats.
//   - "from the histograms": otherwise. A stage's cell is the median over
//     the repeats with a server block of each repeat's p50 and p95 upper
//     bounds (StageStat.P50LeS, P95LeS: the bound of the bucket holding
//     the rank; a median of bounds bounds the median of the percentiles),
//     shown "≤ X", or "above the buckets" where a repeat's rank lay in
//     +Inf; the client's percentiles are the latency table's, not
//     repeated. A column whose every cell is one bound, p50 and p95 alike,
//     is a sentence ("≤ 300 ms at every level, one bucket"), and a
//     table of nothing else is one short sentence that says no more
//     ("one bucket at every level, too coarse to say more"). They are as fine as the buckets, and the paragraph
//     says how fine of the families the target's table is read from, in
//     the words of internal/engine's table (vLLM's finest latency bucket
//     is 0.3 s, SGLang-Omni's 0.005 s; nothing for a family it does not
//     know), and client − server is "not observed
//     (needs per-request evidence)": the percentile of a difference needs
//     the pairs. The paragraph names the flags that give per-request
//     evidence.
//
// Where a target's lines carry only the server's own ids (RequestID "":
// SGLang-Omni returns its id on streamed answers only, so a non-streamed
// run joins by count), the paragraph says the per-request join is not
// available and why (from SGLang-Omni's profiler: "a run with --stream
// joins them"; otherwise: none of N lines names a record's id), and the
// percentiles are the histograms'. The means stay the histograms' in
// every case: a histogram's mean is exact.
//
// Input.Stages are used only with Input.Records (the join and client −
// server need both): the REPORT.md that benchseal run writes, and verify
// regenerates from run.json, claims.json, env and probes, has neither, so
// its percentiles are the histograms'; benchseal report reads both
// (Keeps, Records, RequestStages) and shows the joined ones.
//
// Where a server exposes only its HTTP handler's duration (SGLang-Omni's
// sglang_omni_http_request_duration_seconds) and no e2e, it stands in for
// server e2e: the column reads "server e2e (HTTP handler)" and the
// paragraph says so. Inference and TTFT stay in
// claims.json: they repeat prefill + decode and queue + prefill. The knee
// is the first level where queue time exceeds half the server time
// (kneeShare: more than every other server stage together), as one
// sentence per target: "from C = 16, queue time dominates: 574 ms of 923
// ms server time", "at C = 4 queue time first dominates (not at every
// higher level)", "queue time never exceeds half the server time; its
// largest share is …", or what is missing to tell. Then the throughput
// knee (knee.go: the first level where throughput grows by less than a
// quarter of the concurrency step while latency grows by more than 10 %)
// with one attribution of the latency growth: "about all of it is queue
// (+304 ms of +336 ms; …)" where one stage grew by 90 % of it or more
// and nothing else by over 10 %, else whole-percent shares of the stages
// and "elsewhere" that add up to 100 %. Where the knee attributes the
// growth, the "never exceeds half" sentence is not said beside it, and a
// stage the requests joined by request id carry is not listed "not
// observed" for want of a histogram: no sentence the next contradicts
// (TestNoContradictions reads every test report's paragraphs for such
// pairs).
//
// Charts (SVG, see Chart; ChartsOf lists a report's) plot requests per
// second, latency p50 and p99, and RTFx against concurrency on a log2 axis
// with a tick at each level,
// one line per target with markers, min–max whiskers over repeats, 1-2-5
// value ticks from zero, a legend, and the Okabe–Ito colour-blind-safe
// palette with a distinct marker shape per target (legible in grey too).
// Markers sit side by side around each tick, one slot per target (and per
// percentile on the latency chart), so that no marker hides another. A
// level without a successful request is not plotted. Every chart,
// Stages too, carries a stamp at its foot so that one pasted alone keeps
// what it is of: "bundle sha256:<16 hex>… (<file>)" with the whole digest
// in its <title> and data-bundle-sha256 ("run directory, not sealed"
// without a bundle), after "simulated servers" (or "simulated: a, b")
// where benchseal's simulator answered. HTML embeds them
// inline; Markdown links ChartFiles when Input.LinkCharts is set. The HTML
// fits a phone: charts scale, wide tables scroll in their own box.
//
// Stages (stages.svg) is a stacked bar per level and target, one panel per
// target with a server block on one shared millisecond axis (so heights
// compare across targets), on the same log2 concurrency axis: queue
// (vermillion, the knee's stage), prefill, decode, the server time no
// observed stage accounts for ("server, not split": vLLM's time outside
// the engine, or all of an HTTP-handler-only server's), and client −
// server in grey; a bar is the table's medians, so it is as tall as the
// client latency where server time is observed. Each segment carries a
// <title> with its value, the chart a <desc>; absent or broken cells draw
// nothing. Where a target's percentiles are per request, a short dark
// line across each bar marks the level's queue p95 ("queue p95 (exact)"
// in the legend): the bars are means, and a queue's tail grows before its
// mean. WriteDir writes it only when ChartsOf lists it.
//
// An open loop (run.json mode "open") has its own section (openloop.go):
// a table per level and target in order of offered rate, with whether the
// target kept up (internal/claims.KeepUpOf on the level's medians: its
// latency from arrival grew at most 1.5× from the first third of the
// level to the last, at most 1 % failed) and each target's knee, the
// first offered rate it did not keep up with; and two charts against
// offered rate on a log2 axis, OpenLatency (latency from the planned
// arrival, p50 solid, p99 dashed) and Goodput (the successes meeting the
// SLO per second; every success without one). Its conclusion
// (openloop_verdict.go), the target that kept up at more rates (then the
// one faster from arrival) named first: where one target kept up with a
// rate and the other did not, the verdict is "X kept up, Y did not
// (latency from arrival grew N×)", never a ratio (past its knee a
// target's queue grows through the level, so a ratio grows with the
// level's length); "neither kept up" where both did not; at the rates
// both kept up with, latency from arrival and, where run.json has an
// SLO, goodput at it, each by verdict.Compare over the repeats, so a
// lead within noise or from one repeat is not claimed; the rule once,
// below the table.
//
// # A task's own part (figures.go)
//
// The report never asks which task a run is: it composes the sentences
// where tasks differ from the run's task's words (internal/task.Words:
// the title, the input and output, the work, what a cache repeats, the
// success rule's sentence, what a bundle cannot show; ASR's for a task
// that names none), in the report's language (each word a task.Phrase
// per language). A task with figures (task.Figurer: tts's RTF, time to
// first audio and seconds per character; chat-audio's TTFT, ITL and
// output tokens per second) has one section after the latency table,
// named by the task, one row per level and target of the medians of its
// figures (seconds shown in ms), "not observed" where a level with
// successes did not observe one (never 0; requests per second and
// failures are the throughput and errors tables', not repeated); and
// TaskFigure (task_figure.svg, p50 solid, p99 dashed, as the latency
// chart) of the figure its Chart names, where some target observed it.
// Its caveats: the chart's figure not observed for a target (the task's
// sentence why), and what a perturbed run still sent as it is (the
// task's Unperturbed: tts's text, chat-audio's prompt).
//
// # SUMMARY.md
//
// Summary (summary.go) is what a reader pastes, at most SummaryMaxWords
// (250) words, TestSummary holding every test input to it: the title; a
// failed verify, perturbation off, an incomplete run and the simulated
// servers, one line each; the verdict tables without their headlines or
// rule; the fairness line; only the caveats that change a verdict (not
// verified, inflated by caching, cache hits, a saturated client); the
// bundle's SHA-256 and signer fingerprint ("Not sealed" for a run
// directory); the one benchseal verify command; REPORT.md named for the
// rest. WriteDir writes it beside REPORT.md, and report.html carries its
// text in a closed block to copy from, below the title's banners. It is
// not written into a run directory (benchseal run's REPORT.md): a file
// there is sealed, and verify regenerates REPORT.md only.
//
// # Languages
//
// Input.Lang picks the words (lang.go): every string is an English fmt
// format looked up in one table per language (lang_zh.go); numbers, their
// formatting and the verdict rule are shared. Verify's findings are
// translated by their Kind where the kind fixes the words (an unpinned
// signer, perturbation off); any other finding is shown in verify's
// English behind a lead-in that says so, never half-translated silently.
// The telemetry section goes through the same table. TestLangComplete
// fails on a string without a translation.
//
// Output is deterministic: the same Input gives the same bytes. Nothing
// reads the clock, maps are walked in sorted order, the bootstrap is
// seeded, and numbers are formatted with fixed rules. Every string from
// the input (target names, models, server bodies, findings) is escaped for
// the format it lands in: HTML and SVG by entity, Markdown by backslash
// and entity, so a target named <script> is text everywhere.
//
// The package computes no metric of its own: claims.json (internal/claims)
// is the one source of every number shown; the ratio and interval are
// internal/verdict's, over the claims' per-repeat values. The one
// exception is "Where the time goes": claims.json has no median of the
// per-repeat server block, so the report takes it (as internal/claims
// takes medians: the mean of the middle two for an even count) and the
// differences of those medians, and, where the servers accounted for
// requests one by one, the percentiles of the joined per-request times
// (claims.Percentile, the definition claims.json's latency percentiles
// use).
//
// Tests: golden files for Markdown, HTML and SVG in English and Chinese,
// for the fixture and for it with server stages (testdata/stages/), and
// for a run of two real sims (testdata/simrun/run, made by
// testdata/simrun/drive.py: a vllm persona's OTLP spans joined by request
// id, an sglang-omni persona's profiler joined by count; its goldens in
// testdata/simrun/); go test ./internal/report -update rewrites them.
// TestBrowserLayout (on the fixture with server stages and on the sim
// run),
// which renders the HTML in headless Chromium, wide and narrow, checks
// the screenshot is not blank, that no chart element leaves its chart and
// that the page never scrolls sideways (skipped without chromium).
//
// # Imports
//
// It owns the Markdown and HTML reports with their charts. Must never
// import: internal/bench, internal/sim. Why: a report renders sealed data,
// it never measures.
package report
