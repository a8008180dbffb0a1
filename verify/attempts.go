package verify

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Attempts (issue 36): the runner holds each closed-loop step to the
// stall rule check 7 holds it to (claims.Stalls) and measures a step
// whose loop stalled again, at most claims.MaxRemeasures times. Every
// attempt is sealed: a discarded attempt k's records are
// records/<t>/attempts/c<C>-r<R>-a<k>.jsonl and its steps.jsonl line says
// attempt k, discarded; the last attempt, the one measured, is the step's
// own records file, its records saying its attempt (absent: 1).
//
// checkAttempts holds that to the records: every discarded attempt
// steps.jsonl names has its records (none hidden), every attempts file
// is named there, attempts are numbered 1, 2, ... with the kept one last
// and its records all of it (claims drawn from a discarded attempt's
// records FAIL), each attempt ran after the one before it ended, and each
// discarded attempt broke the stall rule (an attempt discarded although
// its loop held is a measurement thrown away for its figures). A run made
// before attempts has none of this, and verifies as it did.

// attemptFile is one attempt of a step: its records file and number.
type attemptFile struct {
	file      string
	attempt   int
	discarded bool
}

// keptAttempt is the number of a step's last attempt: one past its
// highest discarded attempt (steps.jsonl's lines, the attempts files),
// or what its own records or steps.jsonl line say, whichever is highest.
func keptAttempt(ev *evidence, k stepKey) int {
	kept := 1
	for _, r := range ev.records[k.file()] {
		kept = max(kept, r.AttemptOf())
	}
	for _, l := range ev.tel.Discarded {
		if (stepKey{l.Target, l.Concurrency, l.Repeat}) == k {
			kept = max(kept, max(l.Attempt, 1)+1)
		}
	}
	for _, l := range ev.tel.Steps {
		if (stepKey{l.Target, l.Concurrency, l.Repeat}) == k {
			kept = max(kept, l.Attempt)
		}
	}
	for a := range ev.attempts[k] {
		kept = max(kept, a+1)
	}
	return kept
}

// attemptFiles are a step's attempts in the order they ran: its
// discarded ones (whether their file is there or not) and its kept one.
func attemptFiles(ev *evidence, k stepKey) []attemptFile {
	kept := keptAttempt(ev, k)
	out := make([]attemptFile, 0, kept)
	for a := 1; a < kept; a++ {
		out = append(out, attemptFile{schemas.AttemptRecordsPath(k.target, k.concurrency, k.repeat, a), a, true})
	}
	return append(out, attemptFile{k.file(), kept, false})
}

// parseAttemptPath reads a step and attempt from an attempts file's name,
// false when it is not AttemptRecordsPath's.
func parseAttemptPath(name string) (stepKey, int, bool) {
	parts := strings.Split(name, "/")
	if len(parts) != 4 {
		return stepKey{}, 0, false
	}
	var k stepKey
	var a int
	k.target = parts[1]
	if n, err := fmt.Sscanf(path.Base(name), "c%d-r%d-a%d.jsonl", &k.concurrency, &k.repeat, &a); err != nil || n != 3 ||
		schemas.AttemptRecordsPath(k.target, k.concurrency, k.repeat, a) != name {
		return stepKey{}, 0, false
	}
	return k, a, true
}

// plannedVariants is how many variants of each clip (by SHA-256) the
// protocol numbers, the cache probe's included (internal/bench's
// variantsNeeded): a re-measured attempt numbers its own past them.
func plannedVariants(run *schemas.Run) map[string]int64 {
	p := run.Protocol
	need := map[string]int64{}
	if len(run.Corpus) == 0 {
		return need
	}
	add := func(i int, n int64) {
		if c := run.Corpus[i%len(run.Corpus)]; !c.NoInput() {
			need[c.SHA256] += n
		}
	}
	for li := range p.Levels {
		per := int64(p.Repeats * len(run.Targets))
		warm := per
		if p.WarmupOnce {
			warm = int64(len(run.Targets))
		}
		for i := range p.Warmup[li] {
			add(i, warm)
		}
		for i := range p.Requests[li] {
			add(i, per)
		}
	}
	if p.CacheProbe > 0 && !run.Corpus[0].NoInput() {
		need[run.Corpus[0].SHA256] += int64(len(run.Targets) * (p.CacheProbe + 1))
	}
	return need
}

// checkAttempts is check 7's hold on re-measured steps (see above). It
// returns the steps measured again, for the summary.
func checkAttempts(c *Check, ev *evidence) []string {
	if len(ev.attemptFiles) == 0 && len(ev.tel.Discarded) == 0 && !anyAttempt(ev) {
		return nil
	}
	named := map[string]bool{}
	for _, l := range ev.tel.Discarded {
		a := max(l.Attempt, 1)
		f := schemas.AttemptRecordsPath(l.Target, l.Concurrency, l.Repeat, a)
		if named[f] {
			c.failf(schemas.StepsFile, nil, "%s c=%d repeat %d: attempt %d is discarded twice", l.Target, l.Concurrency, l.Repeat, a)
		}
		named[f] = true
	}
	for _, f := range ev.attemptFiles {
		if _, _, ok := parseAttemptPath(f); !ok {
			c.failf(f, nil, "not a discarded attempt's records file (%s)", schemas.AttemptRecordsPath("<target>", 1, 1, 1))
			continue
		}
		if !named[f] {
			c.failf(f, nil, "a discarded attempt's records, but %s names no such discarded attempt", schemas.StepsFile)
		}
	}
	var again []string
	for _, k := range schedule(ev.run) {
		ats := attemptFiles(ev, k)
		if len(ats) == 1 {
			continue
		}
		again = append(again, fmt.Sprintf("%s (%d attempts)", k, len(ats)))
		if len(ats) > claims.MaxRemeasures+1 {
			c.failf(k.file(), nil, "%s has %d attempts; the runner measures a step again at most %d times", k, len(ats), claims.MaxRemeasures)
		}
		var prevEnd int64 = -1
		prevFile := ""
		for _, at := range ats {
			recs, ok := ev.records[at.file]
			if at.discarded {
				recs, ok = ev.attemptRecs[at.file]
			}
			if !ok || len(recs) == 0 {
				switch {
				case at.discarded && named[at.file]:
					c.failf(at.file, nil, "missing: %s says attempt %d of %s was measured and discarded (its stalls broke the rule), but its records are not in the bundle: an attempt was hidden",
						schemas.StepsFile, at.attempt, k)
				case at.discarded:
					c.failf(at.file, nil, "missing: the last attempt of %s is %d (its records or %s say so), so attempt %d was measured before it, but neither its records nor its %s line are in the bundle: an attempt was hidden",
						k, len(ats), schemas.StepsFile, at.attempt, schemas.StepsFile)
				}
				continue
			}
			first, last := recs[0].StartNs, recs[0].EndNs
			for i, r := range recs {
				first, last = min(first, r.StartNs), max(last, r.EndNs)
				if r.Target != k.target || r.Concurrency != k.concurrency || r.Repeat != k.repeat || r.AttemptOf() != at.attempt {
					why := "a record of another step or attempt"
					if !at.discarded && r.AttemptOf() != at.attempt {
						why = fmt.Sprintf("the step's last attempt is %d, so its records must all be attempt %d: claims drawn from a discarded attempt", at.attempt, at.attempt)
					}
					c.add(Finding{Status: Fail, Path: at.file, Line: i + 1, Reason: fmt.Sprintf("record of %s c=%d repeat %d attempt %d in attempt %d of %s: %s",
						r.Target, r.Concurrency, r.Repeat, r.AttemptOf(), at.attempt, k, why)})
					break
				}
			}
			if prevEnd >= 0 && first < prevEnd {
				c.failf(at.file, nil, "attempt %d of %s started (%d ns) before attempt %d ended (%d ns, %s): a step's attempts run one after the other",
					at.attempt, k, first, at.attempt-1, prevEnd, prevFile)
			}
			prevEnd, prevFile = last, at.file
			if !at.discarded {
				continue
			}
			planned := make([]schemas.Record, 0, len(recs))
			for _, r := range recs {
				if _, retry := retryOf(ev.run.Protocol, r); !retry {
					planned = append(planned, r)
				}
			}
			if st, stalled := claims.WorstStall(planned, k.concurrency); !stalled || !st.Open() {
				share := 0.0
				if stalled {
					share = st.Share
				}
				c.failf(at.file, nil, "attempt %d of %s was discarded, but its stalls add up to %.1f %%, within the %.0f %% the stall rule allows: the runner measures a step again only when its loop broke the rule, so a good measurement was thrown away",
					at.attempt, k, 100*share, 100*claims.MaxStallShare)
			}
		}
	}
	return again
}

// anyAttempt says whether a step's own records name an attempt past 1.
func anyAttempt(ev *evidence) bool {
	for _, f := range ev.recFiles {
		for _, r := range ev.records[f] {
			if r.Attempt > 1 {
				return true
			}
		}
	}
	return false
}

// indexAttempts files ev.attemptFiles by step and attempt.
func indexAttempts(ev *evidence) {
	ev.attempts = map[stepKey]map[int]string{}
	for _, f := range ev.attemptFiles {
		k, a, ok := parseAttemptPath(f)
		if !ok {
			continue
		}
		if ev.attempts[k] == nil {
			ev.attempts[k] = map[int]string{}
		}
		ev.attempts[k][a] = f
	}
	slices.Sort(ev.attemptFiles)
}
