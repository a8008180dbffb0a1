package verify_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/tlog"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// stampedFixture is the corpus's base run made pre-registered, as run
// --tsa makes it: the plan written and stamped by a local authority as
// the last thing before the sweep (session.Preregister's hooks), the run
// re-seeded from the token, the chain beside it.
type stampedFixture struct {
	once   sync.Once
	dir    string
	a      *tsa.Authority
	signer *bundle.Signer
}

var stampedBase = &stampedFixture{}

func (f *stampedFixture) get(tb testing.TB) (string, *tsa.Authority, *bundle.Signer) {
	f.once.Do(func() {
		a, err := tsa.NewAuthority()
		must(tb, err)
		srv := httptest.NewServer(a)
		defer srv.Close()
		f.a, f.signer = a, testSigner(tb)
		base, err := os.MkdirTemp(tmpRoot, "stamped-")
		must(tb, err)
		p := &session.Preregister{URL: srv.URL, Chain: a.ChainPEM(), Key: f.signer.Fingerprint(), Client: srv.Client()}
		makeFullRun(tb, base, p.Hooks())
		f.dir = filepath.Join(base, "run")
	})
	if f.dir == "" || !exists(filepath.Join(f.dir, schemas.PlanToken)) {
		tb.Fatal("the pre-registered base run failed to build")
	}
	return f.dir, f.a, f.signer
}

// stampedRun is a copy of the pre-registered base run; edit, when given,
// changes its plan, which a is then asked to stamp again (the run keeps
// the seed the first token drew).
func stampedRun(t *testing.T, edit func(dir string, plan *schemas.Plan)) string {
	t.Helper()
	src, a, _ := stampedBase.get(t)
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, src, dir)
	if edit == nil {
		return dir
	}
	var plan schemas.Plan
	getJSON(t, filepath.Join(dir, schemas.PlanFile), &plan)
	edit(dir, &plan)
	pb, err := json.MarshalIndent(plan, "", "  ")
	must(t, err)
	pb = append(pb, '\n')
	must(t, os.WriteFile(filepath.Join(dir, schemas.PlanFile), pb, 0o644))
	a.Now = nil
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.PlanToken)), respond(t, a, pb), 0o644))
	return dir
}

func respond(t *testing.T, a *tsa.Authority, data []byte) []byte {
	t.Helper()
	srv := newTSAServer(t, a)
	tsr, err := tsa.Stamp(context.Background(), srv.Client(), srv.URL, data)
	must(t, err)
	return tsr
}

// sealStamped seals dir with s, the seal stamped by a at sealAt.
func sealStamped(t *testing.T, dir string, s *bundle.Signer, a *tsa.Authority, sealAt time.Time) []byte {
	t.Helper()
	return seal(t, dir, s, bundle.SealOptions{Timestamp: func(ctx context.Context, env []byte) ([]byte, error) {
		a.Now = func() time.Time { return sealAt }
		return respond(t, a, env), nil
	}})
}

func TestTimestamps(t *testing.T) {
	_, a, s := stampedBase.get(t)
	other, err := tsa.NewAuthority()
	must(t, err)
	later := time.Now().Add(time.Minute) // after every request of the base run

	for _, tc := range []struct {
		name        string
		base        func(t *testing.T) string // the run directory; nil: stampedRun(t, edit)
		edit        func(dir string, plan *schemas.Plan)
		after       func(dir string) // the run directory, once stamped
		sealAt      time.Time
		noSealStamp bool
		chain       *tsa.Authority // pinned; nil: unpinned
		want        verify.Status
		text        string
	}{
		{name: "pinned", chain: a, want: verify.Pass, text: "plan stamped "},
		// Issue 38's forgeries: a run made first and a plan stamped after
		// it, run.json's started_at moved past the stamp.
		{name: "stamped-after-the-run", chain: a, want: verify.Fail, text: "run.json has no plan_seed",
			base: func(t *testing.T) string { return stampAfter(t, a, s, nil) }},
		{name: "seed-not-from-token", chain: a, want: verify.Fail, text: "is not the one the plan's seed",
			base: func(t *testing.T) string {
				return stampAfter(t, a, s, func(run *schemas.Run) { seed := run.Seed; run.PlanSeed = &seed })
			}},
		// One plan stamped for a run made 104 s later (the seed drawn
		// from its token, as a key holder who kept the token could).
		{name: "plan-reused-later", chain: a, want: verify.Fail, text: "s after the plan was time-stamped",
			base: func(t *testing.T) string { return stampedEarly.get(t) }},
		{name: "seal-stamp-removed", chain: a, noSealStamp: true, want: verify.Fail, text: "the plan is time-stamped but the seal is not"},
		{name: "unpinned", want: verify.Warn, text: "authority unpinned"},
		{name: "untrusted-chain", chain: other, want: verify.Fail, text: "does not verify against the authority's chain"},
		{name: "plan-edited-after-stamping", chain: a, want: verify.Fail, text: "plan.json was changed after it was time-stamped",
			after: func(dir string) {
				editJSON(t, filepath.Join(dir, schemas.PlanFile), func(m map[string]any) { m["seed"] = 7 })
			}},
		{name: "token-over-another-digest", chain: a, want: verify.Fail, text: "the token is over another document",
			after: func(dir string) {
				must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.PlanToken)), respond(t, a, []byte("another plan")), 0o644))
			}},
		{name: "run-not-as-planned", chain: a, want: verify.Fail, text: "the plan's corpus is not the run's",
			edit: func(_ string, p *schemas.Plan) { p.Corpus = p.Corpus[:1] }},
		{name: "other-sealing-key", chain: a, want: verify.Fail, text: "the plan names key sha256:00",
			edit: func(_ string, p *schemas.Plan) { p.Key = "sha256:" + strings.Repeat("00", 32) }},
		{name: "token-removed", chain: a, want: verify.Fail, text: "nothing dates the plan",
			after: func(dir string) { must(t, os.Remove(filepath.Join(dir, filepath.FromSlash(schemas.PlanToken)))) }},
		{name: "seal-before-last-request", chain: a, sealAt: time.Now().Add(-time.Hour), want: verify.Fail,
			text: "before the last request ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dir string
			if tc.base != nil {
				dir = tc.base(t)
			} else {
				dir = stampedRun(t, tc.edit)
			}
			if tc.after != nil {
				tc.after(dir)
			}
			sealAt := later
			if !tc.sealAt.IsZero() {
				sealAt = tc.sealAt
			}
			b := sealStamped(t, dir, s, a, sealAt)
			if tc.noSealStamp {
				b = seal(t, dir, s, bundle.SealOptions{})
			}
			opts := verify.Options{PublicKey: s.PublicKey(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256}
			if tc.chain != nil {
				opts.TSAChain = []*x509Cert{tc.chain.Leaf, tc.chain.Root}
			}
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), opts)
			must(t, err)
			c := rep.Check(verify.CheckTimestamps)
			got := c.Summary
			for _, f := range c.Findings {
				got += "\n" + f.String()
			}
			if c.Status != tc.want || !strings.Contains(got, tc.text) {
				t.Errorf("check 11: %s %q, want %s with %q", c.Status, got, tc.want, tc.text)
			}
			// Only check 11 judges the tokens: every other check reads the
			// stamped run as the base run (the seal's token is no subject).
			for _, other := range rep.Checks {
				if other.ID != verify.CheckTimestamps && !passes(other) && tc.after == nil && tc.base == nil {
					t.Errorf("check %d: %s (%s)", other.ID, other.Status, other.Summary)
				}
			}
		})
	}
}

// stampAfter is the forgery of a plan stamped after its run: the
// unstamped base run, a plan of it written and stamped now (after every
// request), run.json's started_at moved past the stamp and edited by
// edit.
func stampAfter(t *testing.T, a *tsa.Authority, s *bundle.Signer, edit func(*schemas.Run)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, full.get(t), dir)
	var run schemas.Run
	getJSON(t, filepath.Join(dir, schemas.RunFile), &run)
	plan := schemas.PlanOf(&run, s.Fingerprint(), "http://127.0.0.1/tsa", time.Now())
	pb, err := json.MarshalIndent(plan, "", "  ")
	must(t, err)
	a.Now = nil
	must(t, os.WriteFile(filepath.Join(dir, schemas.PlanFile), pb, 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "timestamps"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.PlanToken)), respond(t, a, pb), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.TSAChain)), a.ChainPEM(), 0o644))
	run.StartedAt = time.Now().Add(time.Second)
	if edit != nil {
		edit(&run)
	}
	putJSON(t, filepath.Join(dir, schemas.RunFile), run)
	return dir
}

// stampedEarly is the pre-registered base run made by the fixture's
// authority and signer with the authority's clock 104 s behind: the plan
// stamped 104 s before the run that re-seeds from its token.
var stampedEarly = &earlyFixture{}

type earlyFixture struct {
	once sync.Once
	dir  string
}

func (f *earlyFixture) get(t *testing.T) string {
	_, a, s := stampedBase.get(t)
	f.once.Do(func() {
		early := *a
		early.Now = func() time.Time { return time.Now().Add(-104 * time.Second) }
		srv := httptest.NewServer(&early)
		defer srv.Close()
		base, err := os.MkdirTemp(tmpRoot, "early-")
		must(t, err)
		p := &session.Preregister{URL: srv.URL, Chain: a.ChainPEM(), Key: s.Fingerprint(), Client: srv.Client()}
		makeFullRun(t, base, p.Hooks())
		f.dir = filepath.Join(base, "run")
	})
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, f.dir, dir)
	return dir
}

type x509Cert = x509.Certificate

func newTSAServer(t *testing.T, a *tsa.Authority) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv
}

// editJSON rewrites a JSON document through edit.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	edit(m)
	b, err = json.MarshalIndent(m, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, b, 0o644))
}

// A plan's Rekor entry: held when the sealing key signed it and the log's
// key verifies it; FAIL when another key signed the plan.
func TestTimestampsLog(t *testing.T) {
	_, a, sealer := stampedBase.get(t)
	l, err := tlog.NewLocal()
	must(t, err)
	l.Now = func() time.Time { return time.Now().Add(-time.Hour) } // before the base run's first request
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name   string
		signer *bundle.Signer
		want   verify.Status
		text   string
	}{
		{"sealing-key", sealer, verify.Pass, "plan entered in the transparency log at index"},
		{"another-key", testSigner(t), verify.Fail, "the log entry is signed by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stampedRun(t, nil)
			plan, err := os.ReadFile(filepath.Join(dir, schemas.PlanFile))
			must(t, err)
			sig, err := tc.signer.Sign(plan)
			must(t, err)
			pub, err := cryptoutils.MarshalPublicKeyToPEM(tc.signer.PublicKey())
			must(t, err)
			entry, err := tlog.Submit(context.Background(), srv.Client(), srv.URL, plan, sig, pub, l.PublicKeyPEM())
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.LogEntry)), entry, 0o644))
			must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.LogKey)), l.PublicKeyPEM(), 0o644))
			b := sealStamped(t, dir, sealer, a, time.Now().Add(time.Minute))
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{PublicKey: sealer.PublicKey(),
				TSAChain: []*x509Cert{a.Leaf, a.Root}, LogKey: l.PublicKeyPEM()})
			must(t, err)
			c := rep.Check(verify.CheckTimestamps)
			got := c.Summary
			for _, f := range c.Findings {
				got += "\n" + f.String()
			}
			if c.Status != tc.want || !strings.Contains(got, tc.text) {
				t.Errorf("check 11: %s %q, want %s with %q", c.Status, got, tc.want, tc.text)
			}
		})
	}
}
