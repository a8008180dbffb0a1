package verify

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/tlog"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
)

// ClockTolerance is how far the client's clock (run.json's started_at,
// the anchor of every record's offsets) may stand from the authority's
// before an order check fails, on top of the accuracy each token states:
// a host kept by NTP is within milliseconds; two seconds forgives a
// client that is not, and no more.
const ClockTolerance = 2 * time.Second

// checkTimestamps is check 11: the pre-registered plan and the seal's
// time-stamp (docs/verify.md, "Trusted time").
func checkTimestamps(rep *Report, ev *evidence) {
	c := rep.Check(CheckTimestamps)
	hasPlan, hasPlanTok := ev.f.has(schemas.PlanFile), ev.f.has(schemas.PlanToken)
	sealTok := ev.sealToken()
	if !hasPlan && !hasPlanTok && sealTok == nil {
		c.Status, c.Summary = Skip, "not time-stamped: nothing dates the plan or the seal on a clock other than the sealer's (not observed)"
		return
	}
	roots, inter, pinned, where := ev.tsaRoots()
	fail := func(path string, err error, format string, args ...any) {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: path, Err: err, Reason: fmt.Sprintf(format, args...)})
	}
	first, last, haveTimes := ev.requestSpan()

	var planned, sealed *tsa.Token
	switch {
	case hasPlan && !hasPlanTok:
		fail(schemas.PlanToken, nil, "plan.json is here but its time-stamp is not: nothing dates the plan")
	case hasPlanTok && !hasPlan:
		fail(schemas.PlanFile, nil, "a plan time-stamp without plan.json: the plan was removed")
	case hasPlan:
		planned = verifyToken(c, ev, schemas.PlanToken, schemas.PlanFile, roots, inter, where)
		if b, err := ev.f.read(schemas.PlanFile); err == nil {
			checkPlan(c, ev, b)
		}
	}
	if sealTok != nil {
		sealed = verifyTokenBytes(c, bundle.TimestampName, sealTok, ev.envelope(), bundle.AttestationName, roots, inter, where)
	}
	var logged *tlog.Checked
	if hasPlan && ev.f.has(schemas.LogEntry) {
		logged = checkLogEntry(c, ev, first, haveTimes)
	}
	if planned != nil && haveTimes {
		if slack := tolerance(planned); planned.Time.After(first.Add(slack)) {
			fail(schemas.PlanToken, nil, "the plan was time-stamped at %s, after the first request (%s): it was not fixed before measuring",
				stamp(planned.Time), stamp(first))
		} else if bound, ok := planLead(ev, planned, logged != nil); ok && first.Sub(planned.Time) > bound {
			fail(schemas.PlanToken, nil, "the first request (%s) came %.1f s after the plan was time-stamped (%s), more than the %.1f s the runner records between them (the first step's scrape before it, %v of slack, the clocks' tolerance): the plan was stamped for another, earlier run, or the run's times were moved",
				stamp(first), first.Sub(planned.Time).Seconds(), stamp(planned.Time), bound.Seconds(), StepGapSlack)
		}
	}
	if planned != nil && ev.bundle != nil && sealTok == nil {
		fail(bundle.TimestampName, nil, "the plan is time-stamped but the seal is not: nothing dates when the records were sealed (run --tsa stamps both; the seal's time-stamp was removed)")
	}
	if sealed != nil && haveTimes {
		if slack := tolerance(sealed); sealed.Time.Before(last.Add(-slack)) {
			fail(bundle.TimestampName, nil, "the seal was time-stamped at %s, before the last request ended (%s): the records were written after the seal's time",
				stamp(sealed.Time), stamp(last))
		}
	}
	if planned != nil && sealed != nil && sealed.Time.Before(planned.Time) {
		fail(bundle.TimestampName, nil, "the seal's time-stamp (%s) is before the plan's (%s)", stamp(sealed.Time), stamp(planned.Time))
	}
	if c.Status == Fail {
		c.Summary = "the time-stamps do not hold: see the findings"
		return
	}
	if !pinned && (planned != nil || sealed != nil) {
		c.add(Finding{Status: Warn, Kind: KindTSAUnpinned, Path: where,
			Reason: "authority unpinned: the tokens verify against the certificates the bundle carries, which proves them intact, not who issued them"})
	}
	c.Summary = timesSummary(ev, planned, sealed, first, last, haveTimes)
	if logged != nil {
		c.Summary += fmt.Sprintf("; plan entered in the transparency log at index %d, %s", logged.LogIndex, stamp(logged.IntegratedTime))
	}
}

// PlanLogSlack is what entering the plan in a transparency log (run
// --log, after the authority answered) may add between the plan's stamp
// and the first request: the log client's timeout.
const PlanLogSlack = 30 * time.Second

// planLead bounds the time from the plan's stamp to the first request by
// what the runner does in between (the plan is the last thing before the
// sweep, internal/session preregisterHooks): the log entry when there is
// one, the first step's variants (StepGapPerRequest each) and its
// recorded "before" scrape, StepGapSlack, and the clocks' tolerance. ok is
// false when the first step records no scrape times (a build before
// them): the lead is not bounded.
func planLead(ev *evidence, planned *tsa.Token, logged bool) (time.Duration, bool) {
	items := gapItems(ev)
	if len(items) == 0 || !items[0].timed {
		return 0, false
	}
	it := items[0]
	bound := tolerance(planned) + StepGapSlack + time.Duration(it.requests)*StepGapPerRequest
	if it.before != nil {
		bound += time.Duration(it.before.DurNs)
	}
	if logged {
		bound += PlanLogSlack
	}
	return bound, true
}

// timesSummary says what the tokens establish, in one line: each token's
// time and accuracy beside the records' times on the client's clock.
func timesSummary(ev *evidence, planned, sealed *tsa.Token, first, last time.Time, haveTimes bool) string {
	var parts []string
	switch {
	case planned == nil:
		parts = append(parts, "the plan is not time-stamped (not observed)")
	case haveTimes:
		parts = append(parts, fmt.Sprintf("plan stamped %s, first request %s (%.1f s later)", tokenTime(planned), stamp(first), first.Sub(planned.Time).Seconds()))
	default:
		parts = append(parts, "plan stamped "+tokenTime(planned))
	}
	switch {
	case sealed != nil && haveTimes:
		parts = append(parts, fmt.Sprintf("last request %s, seal stamped %s", stamp(last), tokenTime(sealed)))
	case sealed != nil:
		parts = append(parts, "seal stamped "+tokenTime(sealed))
	case ev.bundle == nil:
		parts = append(parts, "a run directory: no seal to date")
	default:
		parts = append(parts, "the seal is not time-stamped (not observed)")
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(" (in order within the clocks' tolerance, %v + each token's accuracy)", ClockTolerance)
}

// tokenTime is a token's time with its accuracy.
func tokenTime(t *tsa.Token) string {
	if t.Accuracy > 0 {
		return fmt.Sprintf("%s ±%v", stamp(t.Time), t.Accuracy)
	}
	return stamp(t.Time)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func tolerance(t *tsa.Token) time.Duration { return ClockTolerance + t.Accuracy }

// verifyToken checks the token file tokName over the document docName.
func verifyToken(c *Check, ev *evidence, tokName, docName string, roots, inter []*x509.Certificate, where string) *tsa.Token {
	tsr, err := ev.f.read(tokName)
	if err != nil {
		c.failf(tokName, err, "cannot read: %v", err)
		return nil
	}
	doc, err := ev.f.read(docName)
	if err != nil {
		c.failf(docName, err, "cannot read: %v", err)
		return nil
	}
	return verifyTokenBytes(c, tokName, tsr, doc, docName, roots, inter, where)
}

func verifyTokenBytes(c *Check, tokName string, tsr, doc []byte, docName string, roots, inter []*x509.Certificate, where string) *tsa.Token {
	claimed, certs, perr := tsa.Parse(tsr)
	if perr != nil {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: tokName, Err: perr, Reason: "not a granted RFC 3161 time-stamp: " + perr.Error()})
		return nil
	}
	if len(roots) == 0 {
		// Unpinned and the bundle carries no chain: the token's own
		// certificates are all there is.
		roots, inter = tsa.Chain(certs)
	}
	tok, err := tsa.Verify(tsr, doc, roots, inter)
	if err != nil {
		reason := fmt.Sprintf("does not verify against the authority's chain (%s): %v", where, err)
		if sum := fmt.Sprintf("%x", sha256.Sum256(doc)); claimed.Digest != sum {
			reason = fmt.Sprintf("the token is over another document (sha256 %s, %s is %s): %s was changed after it was time-stamped",
				claimed.Digest, docName, sum, docName)
		}
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: tokName, Err: err, Reason: reason})
		return nil
	}
	return tok
}

// checkPlan holds run.json and the signing key to plan.json.
func checkPlan(c *Check, ev *evidence, b []byte) {
	var plan schemas.Plan
	if err := json.Unmarshal(b, &plan); err != nil {
		c.failf(schemas.PlanFile, err, "cannot be read: %v", err)
		return
	}
	checkPlanSeed(c, ev, plan.Seed)
	want := schemas.PlanOf(ev.run, plan.Key, plan.Authority, plan.PlannedAt)
	for _, d := range []struct {
		what      string
		got, want any
	}{
		{"tool", plan.Tool, want.Tool}, {"seed", plan.Seed, want.Seed}, {"protocol", plan.Protocol, want.Protocol},
		{"scoring", plan.Scoring, want.Scoring}, {"targets", plan.Targets, want.Targets}, {"corpus", plan.Corpus, want.Corpus},
	} {
		g, _ := json.Marshal(d.got)
		w, _ := json.Marshal(d.want)
		if !bytes.Equal(g, w) {
			c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.PlanFile,
				Reason: fmt.Sprintf("the plan's %s is not the run's: the plan says %s, run.json %s", d.what, clip(g), clip(w))})
		}
	}
	if ev.st != nil && ev.st.Predicate.Key.Fingerprint != plan.Key {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.PlanFile,
			Reason: fmt.Sprintf("the plan names key %s, but %s sealed the run", plan.Key, ev.st.Predicate.Key.Fingerprint)})
	}
}

// checkPlanSeed holds the run's variant seed to the plan's token: run
// --tsa draws it as schemas.TokenSeed(plan seed, token) once the
// authority answered, so records that re-derive from it were sent after
// the plan was stamped. A seed not drawn so proves nothing of the
// order: the whole run could have been made first and a plan stamped
// after it (FAIL).
func checkPlanSeed(c *Check, ev *evidence, planSeed uint64) {
	if ev.run.PlanSeed == nil {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.RunFile,
			Reason: "run.json has no plan_seed: its variant seed was not drawn from the plan's time-stamp, so the records could have been made before the plan was stamped (a build before seeds were bound to the token pre-registers nothing a key holder cannot redo)"})
		return
	}
	tsr, err := ev.f.read(schemas.PlanToken)
	if err != nil {
		return // the token's own finding says so
	}
	if want := schemas.TokenSeed(*ev.run.PlanSeed, tsr); ev.run.Seed != want || *ev.run.PlanSeed != planSeed {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.RunFile,
			Reason: fmt.Sprintf("run.json's seed %d is not the one the plan's seed %d and its time-stamp derive (%d; run.json's plan_seed %d): the variants were not drawn from the token, so the records may precede the plan",
				ev.run.Seed, planSeed, want, *ev.run.PlanSeed)})
	}
}

func clip(b []byte) string {
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}

// requestSpan is the wall-clock time of the first request's start and
// the last one's end, warm-ups and probes included, from run.json's
// anchor and the records' offsets.
func (ev *evidence) requestSpan() (first, last time.Time, ok bool) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, recs := range ev.records {
		for _, r := range recs {
			lo, hi = min(lo, r.StartNs), max(hi, r.EndNs)
		}
	}
	if ev.run == nil || lo > hi {
		return time.Time{}, time.Time{}, false
	}
	a := ev.run.StartedAt
	return a.Add(time.Duration(lo)), a.Add(time.Duration(hi)), true
}

// tsaRoots are the certificates the tokens are checked against: pinned
// (Options.TSAChain), else the chain sealed with the plan, else none
// (each token then brings its own). where names them for a finding.
func (ev *evidence) tsaRoots() (roots, inter []*x509.Certificate, pinned bool, where string) {
	if ev.tsaChain != nil {
		roots, inter = tsa.Chain(ev.tsaChain)
		return roots, inter, true, "the chain given"
	}
	if b, err := ev.f.read(schemas.TSAChain); err == nil {
		if certs, err := tsa.ParseChain(b); err == nil {
			roots, inter = tsa.Chain(certs)
			return roots, inter, false, schemas.TSAChain
		}
	}
	return nil, nil, false, "the certificates the token carries"
}

// sealToken is attestation.tsr: the bundle's entry, or the file beside
// an extracted bundle's attestation.
func (ev *evidence) sealToken() []byte {
	if !ev.f.has(bundle.TimestampName) {
		return nil
	}
	b, err := ev.f.read(bundle.TimestampName)
	if err != nil {
		return nil
	}
	return b
}

// envelope is attestation.dsse.json's bytes.
func (ev *evidence) envelope() []byte {
	if ev.bundle != nil && ev.bundle.Envelope != nil {
		return ev.bundle.Envelope
	}
	b, _ := ev.f.read(bundle.AttestationName)
	return b
}

// checkLogEntry holds a plan's Rekor entry: it verifies offline with the
// log's key (pinned: Options.LogKey; else the one the run sealed, WARN),
// registers plan.json signed by the key that sealed the bundle, and was
// integrated before the first request.
func checkLogEntry(c *Check, ev *evidence, first time.Time, haveTimes bool) *tlog.Checked {
	entry, err1 := ev.f.read(schemas.LogEntry)
	plan, err2 := ev.f.read(schemas.PlanFile)
	if err1 != nil || err2 != nil {
		c.failf(schemas.LogEntry, errors.Join(err1, err2), "cannot read: %v", errors.Join(err1, err2))
		return nil
	}
	key := ev.logKey
	if key == nil {
		b, err := ev.f.read(schemas.LogKey)
		if err != nil {
			c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.LogKey, Err: err, Reason: "the log's key is missing: the entry cannot be checked"})
			return nil
		}
		key = b
		c.add(Finding{Status: Warn, Kind: KindLogUnpinned, Path: schemas.LogKey,
			Reason: "log unpinned: the entry verifies with the log key the bundle carries, which proves it intact, not that the public log holds it"})
	}
	got, err := tlog.Verify(entry, plan, key)
	if err != nil {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.LogEntry, Err: err, Reason: "the plan's log entry does not hold: " + err.Error()})
		return nil
	}
	if fp, _ := bundle.Fingerprint(got.PublicKey); ev.st != nil && fp != ev.st.Predicate.Key.Fingerprint {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.LogEntry,
			Reason: fmt.Sprintf("the log entry is signed by %s, but %s sealed the run", fp, ev.st.Predicate.Key.Fingerprint)})
	}
	if haveTimes && got.IntegratedTime.After(first.Add(ClockTolerance+time.Second)) {
		c.add(Finding{Status: Fail, Kind: KindTimestamp, Path: schemas.LogEntry,
			Reason: fmt.Sprintf("the log integrated the plan at %s, after the first request (%s)", stamp(got.IntegratedTime), stamp(first))})
	}
	return got
}
