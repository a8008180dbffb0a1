package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// ClaimError is a published number that the records do not give back.
// Field is a path in the document ("targets[a].levels[c=16].repeats[r=2].req_per_s");
// Want is what the records recompute to, Got what the document says
// (JSON literals, "" when absent).
type ClaimError struct {
	Doc   string // "claims.json" or "predicate"
	Field string
	Want  string
	Got   string
}

func (e *ClaimError) Error() string {
	switch {
	case e.Got == "":
		return fmt.Sprintf("%s %s: missing, recomputed %s", e.Doc, e.Field, e.Want)
	case e.Want == "":
		return fmt.Sprintf("%s %s: %s, but the records give no such value", e.Doc, e.Field, e.Got)
	}
	return fmt.Sprintf("%s %s: %s, recomputed %s", e.Doc, e.Field, e.Got, e.Want)
}

// checkClaims is check 6: claims.Recompute over the records, compared
// exactly (integers and float64 after a JSON round trip, which is how
// claims.json was written) with claims.json and the statement's predicate.
func checkClaims(rep *Report, ev *evidence) {
	c := rep.Check(CheckClaims)
	var all []schemas.Record
	for _, f := range ev.recFiles {
		all = append(all, ev.records[f]...)
	}
	tel, err := ev.tel, ev.telErr
	if err != nil {
		c.failf("telemetry", err, "telemetry cannot be read, so its claims cannot be recomputed: %v", err)
	}
	got, err := claims.Recompute(*ev.run, all, tel) // refuses a run of an unknown task, and says so
	if err != nil {
		c.failf("", err, "claims cannot be recomputed: %v", err)
		c.Summary = "not recomputed"
		return
	}
	n := 0
	if ev.claims == nil {
		c.failf("claims.json", nil, "missing or unreadable: nothing to compare with")
	} else {
		n += compareDocs(c, "claims.json", "claims.json", got, *ev.claims)
	}
	if ev.st != nil {
		want := schemas.PredicateFromRun(ev.run, &got)
		n += compareDocs(c, bundle.AttestationName, "predicate.run", want.Run, ev.st.Predicate.Run)
		n += compareDocs(c, bundle.AttestationName, "predicate.claims", want.Claims, ev.st.Predicate.Claims)
	}
	var no notObserved
	replayed := checkReplay(c, ev, got, &no)
	checkCacheScrapes(c, ev, &no)
	checkProbeScrapes(c, ev, &no)
	checkReport(c, ev, &no)
	where := "claims.json"
	if ev.st != nil {
		where += " and the signed predicate"
	}
	levels := 0
	for _, t := range got.Targets {
		levels += len(t.Levels)
	}
	what := failedKinds(c, KindClaim, Kind(c.Name), KindSchema)
	if c.Status != Fail || (n == 0 && ev.claims != nil && what != "") {
		c.Summary = fmt.Sprintf("%d target levels (every repeat, median, min, max) recomputed from %d records equal %s", levels, len(all), where)
		if what != "" {
			c.Summary += ", but " + what
		}
	} else {
		c.Summary = fmt.Sprintf("%d value(s) differ between the records and %s", n, where)
	}
	c.Summary += replayed
	c.Summary = no.summary(c, c.Summary)
	if s := telemetryNotObserved(got); s != "" {
		if len(no) == 0 && c.Status != Fail {
			c.Summary = "held: " + c.Summary
		}
		c.Summary += "; " + s
	}
}

// compareDocs compares two values field by field after a JSON round trip
// and adds a finding per difference; it returns how many there were.
func compareDocs(c *Check, path, doc string, want, got any) int {
	wf, wk, err1 := flatten(want)
	gf, gk, err2 := flatten(got)
	if err1 != nil || err2 != nil {
		c.failf(path, nil, "%s cannot be compared: %v", doc, firstErr(err1, err2))
		return 1
	}
	n := 0
	var diffs []*ClaimError
	older := claims.Predates(gk) // fields added later, absent from the whole of got
	skipped := map[string]bool{}
	for _, k := range wk {
		if f := claims.LaterOf(k); f != nil && older[f.What] {
			skipped[f.What] = true
			continue
		}
		if g, ok := gf[k]; !ok || g != wf[k] && !legacyZero(k, wf[k], g) {
			diffs = append(diffs, &ClaimError{Doc: doc, Field: k, Want: wf[k], Got: g})
			n++
		}
	}
	for _, k := range gk {
		if _, ok := wf[k]; !ok {
			diffs = append(diffs, &ClaimError{Doc: doc, Field: k, Got: gf[k]})
			n++
		}
	}
	// A repeat's server block is one account (the deltas of one pair of
	// scrapes): one finding for it, not one per field.
	more := map[string]int{}
	for _, e := range diffs {
		if b := serverBlock(e.Field); b != "" {
			if more[b]++; more[b] > 1 {
				continue
			}
		}
		c.add(Finding{Status: Fail, Path: path, Reason: e.Error(), Err: e})
	}
	for _, f := range claims.LaterFamilies {
		if skipped[f.What] {
			c.add(Finding{Status: Warn, Kind: KindClaim, Path: path, Reason: fmt.Sprintf("%s has no %s (not computed by the build that sealed it): not compared; %s", doc, f.What, insteadOf(f.What))})
		}
	}
	for i := range c.Findings {
		f := &c.Findings[i]
		var e *ClaimError
		if errors.As(f.Err, &e) && e.Doc == doc && more[serverBlock(e.Field)] > 1 {
			f.Reason += fmt.Sprintf(" (and %d more field(s) of this server block)", more[serverBlock(e.Field)]-1)
		}
	}
	return n
}

// laterInstead says, for each of claims.LaterFamilies, what checks its
// fields from the raw evidence when a sealed claims.json predates it.
var laterInstead = map[string]string{
	"server block": "check 9 holds the server's stage histograms to the records itself",
	"steady-state figures (mean_in_flight, full_concurrency_share)":          "check 7 recomputes them from the records itself",
	"cache_hits_counter (which counter cache_hits is the growth of)":         "check 8 reads the counter from telemetry/steps.jsonl itself",
	"cache probe counter growth":                                             "the probe's scrapes are compared with telemetry/cache-probes.jsonl below",
	"tts figures (rtf_p50/p95, first_audio_p50/p95/p99_s, audio_s_per_char)": "check 5 holds each record's audio_seconds to its output and check 7 re-applies the success rule",
}

// insteadOf is laterInstead's sentence for family what; a task's figure
// follows from records checks 5 and 7 hold.
func insteadOf(what string) string {
	if s, ok := laterInstead[what]; ok {
		return s
	}
	return "the records it follows from are held by checks 5 and 7"
}

// serverBlock is claims.ServerBlock.
func serverBlock(field string) string { return claims.ServerBlock(field) }

// nullSinceV2 are the metrics claims publish as null when no request
// succeeded; claims made before that published 0 there, which says the
// same (nothing measured) and is accepted.
var nullSinceV2 = map[string]bool{"rtfx": true, "latency_mean_s": true, "latency_p50_s": true, "latency_p90_s": true,
	"latency_p95_s": true, "latency_p99_s": true, "latency_max_s": true, "ttfb_p50_s": true}

func legacyZero(key, want, got string) bool {
	if want != "null" || got != "0" {
		return false
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	return nullSinceV2[key]
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// flatten marshals v and lists its leaves (claims.Leaves).
func flatten(v any) (map[string]string, []string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return claims.Leaves(b)
}
