package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/bundle"
)

// The checks, numbered as in docs/DESIGN.md ("verify: the checklist"). The
// numbers are the rows of checklist below and must stay in its order.
const (
	CheckArchive = iota + 1
	CheckSignature
	CheckSubjects
	CheckSchemas
	CheckVariants
	CheckClaims
	CheckProtocol
	CheckFairness
	CheckServer
	CheckEvents
	CheckTimestamps
)

// check is one row of the checklist. Everything that names or describes
// a check lives in its row: the report's list, the "not run" marks, the
// CLI's hint and help, and the checks tables of README.md and
// docs/verify.md are generated from it (TestChecklistDocs holds the docs
// to it). Adding a check is a row here and its function.
type check struct {
	ID   int
	Name string
	// Help is what the check looks at, as `benchseal verify --help` lists
	// it; Proves is what holds when it passes, as the docs' tables say.
	// Neither names a flag: the CLI's words are the CLI's.
	Help, Proves string
	// Hint says what to do when the check fails.
	Hint string
	// needsRun: the check works on run.json; without it the check is
	// FAIL "not run" rather than a pass over nothing.
	needsRun bool
	// Run fills rep's check of this ID. Its error only stops verifying
	// altogether (ctx cancelled, a spilled file unreadable).
	Run func(ctx context.Context, rep *Report, ev *evidence) error
}

var checklist = []check{
	{ID: CheckArchive, Name: "archive",
		Help:   "regular files of mode 0644, safe names, no duplicates, within size caps, exactly one zstd frame",
		Proves: "regular files only, local clean paths, no duplicates, within size caps; the attestation first",
		Hint:   "the archive is damaged or unsafe: do not extract it; fetch the bundle again from its source",
		Run:    runArchive},
	{ID: CheckSignature, Name: "signature",
		Help:   "valid for the key given (without one: the key the bundle carries, WARN unpinned; a bundle that carries none needs its sealer's public key)",
		Proves: "the DSSE envelope verifies with the key given (see \"pinned\" below)",
		Hint:   "the signature does not hold: check that the key given is the public key of whoever sealed the bundle",
		Run:    runSignature},
	{ID: CheckSubjects, Name: "subjects",
		Help:   "every file is a subject of the signed statement with a matching digest",
		Proves: "every file is a subject of the signed statement with a matching SHA-256; none missing, none extra",
		Hint:   "files were changed, added or removed after sealing: this is not the bundle that was signed",
		Run:    runSubjects},
	{ID: CheckSchemas, Name: "schemas",
		Help:   "every document validates against its schema",
		Proves: "every document (run.json, claims.json, each record, telemetry, probes) validates against its schema",
		Hint:   "a document does not match its schema: it was edited, or written by an incompatible tool",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { return checkSchemas(rep, ev) }},
	{ID: CheckVariants, Name: "variants", needsRun: true,
		Help:   "every record's variant re-derives from its clip; all inputs distinct; clips and variant numbers follow the runner's schedule",
		Proves: "every record's variant re-derives from its clip (seed, clip hash, variant number -> sample index -> one flipped bit -> the recorded SHA-256); all inputs distinct; the clips' lengths match their WAVs",
		Hint:   "records name inputs that do not re-derive from the clips: the records or the clips were edited",
		Run: func(ctx context.Context, rep *Report, ev *evidence) error {
			if err := checkVariants(ctx, rep, ev, ev.audioDir); err != nil {
				return err
			}
			checkSchedule(rep.Check(CheckVariants), ev)
			return nil
		}},
	{ID: CheckClaims, Name: "claims", needsRun: true,
		Help:   "claims recomputed from the records equal claims.json and the predicate; cache counters equal the raw /metrics scrapes; REPORT.md follows; a sealed replay's signed comparison follows from its claims (and the original's, given the original bundle)",
		Proves: "claims recomputed from the records equal claims.json and the signed predicate, exactly; a sealed replay's signed comparison (figures, changes, verdicts) recomputes from the replay's claims, and from the original's when the original bundle is given",
		Hint:   "what was published (claims.json, the predicate, REPORT.md, the counters read from the scrapes) does not follow from the sealed records and scrapes: see the findings",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { checkClaims(rep, ev); return nil }},
	{ID: CheckProtocol, Name: "protocol", needsRun: true,
		Help:   "counts, warm-ups, repeats, peak in-flight == C, steady state (mean in flight ≥ 0.9·C, all C busy ≥ 80 % of the window), timestamps in order, a closed loop of C workers, step windows, the server's own request counts and latencies against the records",
		Proves: "one records file per target, level and repeat with the declared counts; the success rule held; timestamps in order; never more than C in flight, and C (or a level's measured requests, when fewer) reached while measuring; steps in the declared order, back to back (the time between two fits their recorded scrapes); a saturated client host WARNs; the cache probe run.json asks for, whole, one request at a time right after the sweep; a tts round trip's transcripts each of a measured answer, of its audio, sent after the sweep",
		Hint:   "the records do not show the declared protocol: the numbers were not measured as claimed",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { checkProtocol(rep, ev); return nil }},
	{ID: CheckFairness, Name: "fairness", needsRun: true,
		Help:   "same GPU model, same server knobs, no requests answered from a server's cache; GPUs, command line and model agree across env/, telemetry and servers/",
		Proves: "with several targets: the same GPU model, the same engine knobs (max running requests, memory fraction, dtype, prefix caching); for a tts run, the same `initial_codec_chunk_frames` (the first audio's chunk, read from each target's request fields or launch command; not observed is a WARN); between targets that are benchseal's simulator, the same simulator settings its `/v1/models` publishes (`benchseal_sim_settings`: limits, latencies, rates, cache; one that differs is a WARN of kind `simulator-settings`, \"not shown fair: max running requests 8 vs 48 (simulator settings)\"); for every target, no request answered from the server's cache (with perturbation on, a counted hit of whole inputs FAILs); each target's cache probe read as the report reads it (caching with perturbation off: inflated by caching) and agreeing with the server's cache counter",
		Hint:   "the recorded environment contradicts itself or the targets ran on different hardware: the comparison does not measure the engines alone",
		Run: func(_ context.Context, rep *Report, ev *evidence) error {
			checkFairness(rep, ev)
			checkEnvironment(rep, ev)
			return nil
		}},
	{ID: CheckServer, Name: "server", needsRun: true,
		Help:   "the server's own stage histograms over each step's measured phase (queue, prefill, decode, e2e, ...) against the records: its counts cover every successful request, its times fit inside the client's latencies",
		Proves: "the server counted at least every measured request the records call successful, and no stage took it longer in sum than the client waited (not observed where the server exposes no stage histogram); a realtime step opened no more sessions than vLLM counted accepted WebSockets",
		Hint:   "the records disagree with what the server itself counted and timed: they were fabricated or edited after the run",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { checkServer(rep, ev); return nil }},
	{ID: CheckEvents, Name: "events", needsRun: true,
		Help:   "the server's per-request evidence (OTLP spans, request-profiler events) against the records: joined stage times re-derive from it, every success was seen by the server, no server time exceeds the client's latency",
		Proves: "the per-request stage times follow from the server's sealed spans or events; every measured request that claims success was seen by the server (by request id, or by count where the server keeps its own ids); no server time of a request is longer than the client's latency for it",
		Hint:   "the server's own account of the requests contradicts the records: the records (or the server evidence) were edited after the run",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { checkEvents(rep, ev); return nil }},
	{ID: CheckTimestamps, Name: "timestamp", needsRun: true,
		Help:   "a pre-registered run's time-stamps: plan.json's token and the seal's verify against the authority's chain; the plan equals the run; plan time <= first request <= last request <= seal time",
		Proves: "the plan (protocol, seed, corpus, targets, sealing key, build) existed, as run.json states it, no later than the authority's first time, before the first request; the sealed evidence existed no later than its second time (not observed for a run that was not time-stamped)",
		Hint:   "a time-stamp does not hold: the plan was changed after it was stamped, the run did not follow it, or the times contradict the records",
		Run:    func(_ context.Context, rep *Report, ev *evidence) error { checkTimestamps(rep, ev); return nil }},
}

// kindHints say what to do about a failing finding of a kind, where the
// check's own hint would describe another failure: a check's row hint is
// for the check as a whole, these for what actually failed.
var kindHints = map[Kind]string{
	KindClaim:         "the published claims are not what the records give: do not trust those numbers",
	KindReport:        "REPORT.md says what the sealed data does not: read the figures from claims.json, which the records give, not from REPORT.md",
	KindScrape:        "a /metrics scrape of the server, or the counters read from it, was changed or removed after the run: what the server itself counted is not established",
	KindCacheHit:      "the server answered requests from its cache, so these figures are not uncached serving: measure again against a freshly started server",
	KindCacheProbe:    "the cache probe the run asked for is missing, cut short or contradicted by the server's own cache counter: whether the server answers identical audio from a cache is not established",
	KindModelUnlisted: "the model run.json names is not one the server listed: the records may measure another model than the run says",
	KindReplay:        "the signed replay comparison is not what the replay and the original measured: do not trust its verdict; compare the two bundles yourself",
}

// Hint says what to do about the check's verdict: the hint of the kind of
// its first finding of the check's status when that kind has one of its
// own, else the check's (the checklist row's). It names no flag.
func (c Check) Hint() string {
	for _, f := range c.Findings {
		if f.Status != c.Status {
			continue
		}
		if h, ok := kindHints[f.Kind]; ok {
			return h
		}
		break
	}
	for _, k := range checklist {
		if k.ID == c.ID {
			return k.Hint
		}
	}
	return ""
}

// failedKinds describes the failing findings of a check by kind, for a
// summary that must name what failed rather than what did not; "" when a
// finding of one of the skipped kinds failed.
func failedKinds(c *Check, skip ...Kind) string {
	var out []string
	seen := map[Kind]bool{}
	for _, f := range c.Findings {
		if f.Status != Fail || seen[f.Kind] {
			continue
		}
		if slices.Contains(skip, f.Kind) {
			return ""
		}
		seen[f.Kind] = true
		switch f.Kind {
		case KindReport:
			out = append(out, "REPORT.md does not follow from the sealed data")
		case KindScrape:
			out = append(out, "the /metrics scrapes and telemetry/steps.jsonl disagree")
		case KindReplay:
			out = append(out, "the signed replay comparison does not follow")
		default:
			out = append(out, string(f.Kind))
		}
	}
	return strings.Join(out, "; ")
}

// CheckInfo describes one check of the checklist, for a CLI's help and
// for the docs.
type CheckInfo struct {
	ID                 int
	Name, Help, Proves string
	// Hint says what to do when the check fails; it names no flag.
	Hint string
}

// Checklist returns the checks in the order verify runs them.
func Checklist() []CheckInfo {
	out := make([]CheckInfo, len(checklist))
	for i, k := range checklist {
		out[i] = CheckInfo{ID: k.ID, Name: k.Name, Help: k.Help, Proves: k.Proves, Hint: k.Hint}
	}
	return out
}

func newChecks() []Check {
	cs := make([]Check, len(checklist))
	for i, k := range checklist {
		cs[i] = Check{ID: k.ID, Name: k.Name}
	}
	return cs
}

// runChecklist runs every check of the table over ev, marking those that
// cannot run as "not run" with the reason, and counts the verdicts.
func runChecklist(ctx context.Context, rep *Report, ev *evidence, opts Options) error {
	for _, k := range checklist {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := rep.Check(k.ID)
		switch {
		case ev.unsafe != nil && k.ID != CheckArchive:
			// Nothing in it can be read as evidence: the other checks are
			// not run, and say so (SKIP), rather than fail on what they
			// never saw.
			c.Status, c.Summary = Skip, "not run: the archive is "+archiveProblem(ev.unsafe)
			continue
		case k.needsRun && ev.run == nil:
			c.add(Finding{Status: Fail, Kind: KindNotRun, Path: "run.json", Reason: "not run: run.json is missing or unreadable"})
			c.Summary = "not run"
			continue
		}
		opts.stage("check %d of %d: %s", k.ID, len(checklist), k.Name)
		if err := k.Run(ctx, rep, ev); err != nil {
			return err
		}
	}
	rep.tally()
	return nil
}

// runArchive is check 1: the reader's refusal of a bundle, or what a run
// directory holds that seal would refuse.
func runArchive(_ context.Context, rep *Report, ev *evidence) error {
	c := rep.Check(CheckArchive)
	if ev.bundle == nil || ev.extracted {
		what := "a run directory"
		if ev.extracted {
			what = "an extracted bundle"
		}
		c.Status, c.Summary = Skip, fmt.Sprintf("%s: no archive (%d files)", what, len(ev.f.names))
		for _, f := range ev.odd {
			c.add(f)
		}
		if c.Status == Fail {
			c.Summary = "the " + strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an ") + " holds files that cannot be sealed"
		}
		return nil
	}
	if ev.unsafe != nil {
		var ee *bundle.EntryError
		f := Finding{Status: Fail, Reason: ev.unsafe.Error(), Err: ev.unsafe}
		if errors.As(ev.unsafe, &ee) {
			f.Path, f.Reason = ee.Name, ee.Reason.Error()
		}
		c.add(f)
		c.Summary = archiveProblem(ev.unsafe) + " archive: refused at the first problem"
		return nil
	}
	c.Summary = fmt.Sprintf("%d entries: regular files, safe names, no duplicates, within limits", len(ev.bundle.Entries))
	return nil
}

const notSealed = "a run directory: not sealed, nothing signed"

func runSignature(_ context.Context, rep *Report, ev *evidence) error {
	if ev.bundle == nil {
		c := rep.Check(CheckSignature)
		c.Status, c.Summary = Skip, notSealed
		return nil
	}
	ev.st = checkSignature(rep, ev.bundle, ev.key)
	return nil
}

func runSubjects(_ context.Context, rep *Report, ev *evidence) error {
	if ev.bundle == nil {
		c := rep.Check(CheckSubjects)
		c.Status, c.Summary = Skip, notSealed
		return nil
	}
	checkSubjects(rep, ev.bundle, ev.st, ev.f)
	if ev.extracted {
		// bundle.DigestError speaks of an archive; here it is a folder.
		c := rep.Check(CheckSubjects)
		for i := range c.Findings {
			c.Findings[i].Reason = strings.Replace(c.Findings[i].Reason, "the archive", "the folder", 1)
		}
	}
	return nil
}
