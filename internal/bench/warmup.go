package bench

import (
	"fmt"

	"github.com/benchseal/benchseal/schemas"
)

// WarmupRetries is how many times, at most, a step whose warm-ups all
// failed with an error that can pass (a 5xx, a timeout, a reset, a bad
// answer) sends one of them again before its measured requests: one at a
// time, the same variant (retry k sends warm-up k mod the step's warm-ups),
// seqs after the step's measured ones, phase warmup, stopping at the first
// that succeeds. run.json's protocol.warmup_retries records it, and a
// verifier holds the records to it. At a 15 % failure rate, four
// tries all fail once in about 2,000 steps.
const WarmupRetries = 3

// passing reports whether a failed request's error may pass when it is
// sent again: not a refused connection (no server), not an interrupt, not
// a 4xx other than 408 and 429 (the server says the request is wrong).
func passing(rec *schemas.Record) bool {
	switch rec.ErrorClass {
	case schemas.ErrConnect, schemas.ErrCanceled:
		return false
	case schemas.ErrHTTP:
		return rec.Status >= 500 || rec.Status == 408 || rec.Status == 429
	}
	return true
}

// allFailed reports whether every record was sent and none succeeded.
func allFailed(recs []schemas.Record) bool {
	if len(recs) == 0 {
		return false
	}
	for i := range recs {
		if recs[i].Target == "" || recs[i].OK {
			return false // not all sent (interrupted), or one succeeded
		}
	}
	return true
}

// firstError is the error of the record that started first.
func firstError(recs []schemas.Record) string {
	first := recs[0]
	for _, w := range recs[1:] {
		if w.StartNs < first.StartNs {
			first = w
		}
	}
	if first.Error != "" {
		return first.Error
	}
	return first.ErrorClass
}

// judgeWarmups decides what a step whose warm-ups (planned and retried,
// warmups) all failed does next, and returns whether the target was
// stopped. A target is stopped when it has not shown, earlier in the run,
// that it can answer, or when the last warm-up's error cannot pass (a
// refused connection: no server): its measured requests would fail the
// same way for as long as the sweep lasts. A target that answered before
// goes on to its measured requests (an event says its warm-ups failed),
// and is stopped only if they all fail too (stopMeasuredFailed).
func (r *runner) judgeWarmups(s Step, warmups []schemas.Record, planned int) bool {
	if !allFailed(warmups) {
		return false
	}
	why := firstError(warmups)
	what := fmt.Sprintf("all %d warm-up requests of %s failed", len(warmups), stepName(s))
	if retried := len(warmups) - planned; retried > 0 {
		what = fmt.Sprintf("all %d warm-up requests of %s failed (%d planned, %d retries)", len(warmups), stepName(s), planned, retried)
	}
	if r.answered[s.Target] && passing(&warmups[len(warmups)-1]) {
		msg := fmt.Sprintf("target %s: %s; the first: %s; it answered earlier in the run, so its measured requests go on", s.Target, what, why)
		r.d.Event(s.Target, "warmup_failed", msg)
		r.d.Run.Notes = append(r.d.Run.Notes, msg)
		r.cfg.progress.Warnf("%s", msg)
		return false
	}
	r.stopTarget(s.Target, why, fmt.Sprintf("target %s stopped: %s; the first: %s", s.Target, what, why))
	return true
}

// stopMeasuredFailed stops a target whose step failed every warm-up and
// then every measured request: it answered earlier, but no longer does.
func (r *runner) stopMeasuredFailed(s Step, measured []schemas.Record) {
	why := firstError(measured)
	r.stopTarget(s.Target, why, fmt.Sprintf("target %s stopped: every warm-up request of %s failed, then all %d measured requests; the first: %s", s.Target, stepName(s), len(measured), why))
}

func (r *runner) stopTarget(target, why, msg string) {
	if r.warmFailed == nil {
		r.warmFailed = map[string]string{}
	}
	r.warmFailed[target] = why
	r.d.Event(target, "warmup_all_failed", msg+"; its remaining steps were skipped")
	r.d.Run.Notes = append(r.d.Run.Notes, msg)
	r.cfg.progress.Warnf("%s", msg)
}

// retry reports whether a step's warm-ups so far (planned, then
// retried) call for a retry: every one failed, fewer than WarmupRetries
// were retried, and the last retry's error, or before any retry one of the
// planned warm-ups' errors, may pass.
func retry(warmups []schemas.Record, planned int) bool {
	if !allFailed(warmups) || len(warmups)-planned >= WarmupRetries {
		return false
	}
	if len(warmups) > planned {
		return passing(&warmups[len(warmups)-1])
	}
	for i := range warmups {
		if passing(&warmups[i]) {
			return true
		}
	}
	return false
}
