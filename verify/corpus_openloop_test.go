package verify_test

// Doctored kinds of issue 29: the open-loop schedule (check 7), sealed.
// Their base is openRun (openloop_test.go): the runner in open-loop mode
// against a loopback simulated vLLM, rates 30 and 60 req/s, Poisson.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, openLoopKinds) }

// openStepFile is the open-loop step the kinds doctor: level 2 (60 req/s),
// repeat 1.
const openStepFile = "records/a/c2-r1.jsonl"

// sendLate moves a record's send (and with it its whole exchange) d later,
// its latency unchanged.
func sendLate(r *schemas.Record, d int64) {
	r.StartNs += d
	r.EndNs += d
	if r.FirstByteNs != 0 {
		r.FirstByteNs += d
	}
}

func openLoopKinds() []kind {
	fail, warn := verify.Fail, verify.Warn
	doctor := func(fn func(tb testing.TB, rs []schemas.Record)) func(tb testing.TB, dir string) {
		return func(tb testing.TB, dir string) {
			editOpenRecords(tb, dir, openStepFile, func(rs []schemas.Record) []schemas.Record {
				fn(tb, rs)
				return rs
			})
		}
	}
	return []kind{
		// A request sent 30 ms late, its planned_ns moved with it so that
		// it looks on time: the schedule re-derived from the seed says where
		// it was planned.
		{name: "openloop-lateness-hidden", class: "open-loop", check: 7, status: fail, base: openRun,
			text: "measure seq 6 planned",
			doctor: doctor(func(tb testing.TB, rs []schemas.Record) {
				r := &rs[measuredAt(tb, rs, 4)]
				sendLate(r, 30e6)
				r.PlannedNs += 30e6
			})},
		// Two measured requests' planned offsets swapped.
		{name: "openloop-planned-swapped", class: "open-loop", check: 7, status: fail, base: openRun,
			text: "a request shifted, reordered or missing",
			doctor: doctor(func(tb testing.TB, rs []schemas.Record) {
				i, j := measuredAt(tb, rs, 3), measuredAt(tb, rs, 8)
				rs[i].PlannedNs, rs[j].PlannedNs = rs[j].PlannedNs, rs[i].PlannedNs
			})},
		// A request sent 5 ms before its planned time.
		{name: "openloop-sent-early", class: "open-loop", check: 7, status: fail, base: openRun,
			text: "measure seq 9 sent 5.",
			doctor: doctor(func(tb testing.TB, rs []schemas.Record) {
				r := &rs[measuredAt(tb, rs, 7)]
				sendLate(r, r.PlannedNs-r.StartNs-5e6)
			})},
		// A request sent 30 ms late, nothing hidden: a WARN that says how
		// late, never a FAIL (a slow client is no forgery).
		{name: "openloop-sent-late", class: "open-loop", check: 7, status: warn, base: openRun,
			text: "requests sent more than 10ms after their planned time",
			doctor: doctor(func(tb testing.TB, rs []schemas.Record) {
				sendLate(&rs[measuredAt(tb, rs, 6)], 30e6)
			})},
	}
}

// TestCorpusOpenLoopBase: the honest open-loop run, sealed, passes check 7;
// a WARN is allowed only for lateness or client saturation, which a loaded
// host may honestly show, and never a schedule finding.
func TestCorpusOpenLoopBase(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	must(t, err)
	s, err := bundle.NewSigner(key)
	must(t, err)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, openRun(t), s, bundle.SealOptions{})), verify.Options{PublicKey: key.Public()})
	must(t, err)
	c := rep.Check(verify.CheckProtocol)
	if c.Status == verify.Fail {
		t.Errorf("check 7 of the sealed open-loop run: FAIL: %+v", c.Findings)
	}
	for _, f := range c.Findings {
		if f.Status == verify.Pass {
			continue
		}
		if f.Kind != verify.KindLate && f.Kind != verify.KindClientSaturated && f.Kind != verify.KindClientBusy {
			t.Errorf("check 7 of the sealed open-loop run: %s %s %s: %s", f.Status, f.Kind, f.Path, f.Reason)
			continue
		}
		t.Logf("allowed on a loaded host: %s %s: %s", f.Status, f.Path, f.Reason)
	}
	t.Logf("check 7 of the sealed open-loop run: %s: %s", c.Status, c.Summary)
	// An open loop has no C: a passing summary says what was held instead.
	if c.Status == verify.Pass && (strings.Contains(c.Summary, "== C") || !strings.Contains(c.Summary, "schedule re-derived from the seed")) {
		t.Errorf("open-loop check 7 summary holds what it did not check: %s", c.Summary)
	}
}
