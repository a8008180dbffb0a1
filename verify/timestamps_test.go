package verify_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/tlog"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// stampedRun is a copy of the corpus's base run pre-registered with a
// local authority: plan.json as run --tsa writes it, stamped at the run's
// anchor (before its first request), and the chain beside it.
func stampedRun(t *testing.T, a *tsa.Authority, keyFP string, edit func(dir string, plan *schemas.Plan)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, full.get(t), dir)
	b, err := os.ReadFile(filepath.Join(dir, schemas.RunFile))
	must(t, err)
	var run schemas.Run
	must(t, json.Unmarshal(b, &run))
	plan := schemas.PlanOf(&run, keyFP, "http://127.0.0.1/tsa", run.StartedAt)
	if edit != nil {
		edit(dir, &plan)
	}
	pb, err := json.MarshalIndent(plan, "", "  ")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, schemas.PlanFile), pb, 0o644))
	at := run.StartedAt
	a.Now = func() time.Time { return at }
	tsr := respond(t, a, pb)
	must(t, os.MkdirAll(filepath.Join(dir, "timestamps"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.PlanToken)), tsr, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(schemas.TSAChain)), a.ChainPEM(), 0o644))
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
	a, err := tsa.NewAuthority()
	must(t, err)
	other, err := tsa.NewAuthority()
	must(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	must(t, err)
	s, err := bundle.NewSigner(key)
	must(t, err)
	fp := s.Fingerprint()
	later := time.Now().Add(time.Minute) // after every request of the base run

	for _, tc := range []struct {
		name   string
		edit   func(dir string, plan *schemas.Plan)
		after  func(dir string) // the run directory, once stamped
		sealAt time.Time
		chain  *tsa.Authority // pinned; nil: unpinned
		want   verify.Status
		text   string
	}{
		{name: "pinned", chain: a, want: verify.Pass, text: "plan stamped "},
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
			dir := stampedRun(t, a, fp, tc.edit)
			if tc.after != nil {
				tc.after(dir)
			}
			sealAt := later
			if !tc.sealAt.IsZero() {
				sealAt = tc.sealAt
			}
			b := sealStamped(t, dir, s, a, sealAt)
			opts := verify.Options{PublicKey: key.Public(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256}
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
				if other.ID != verify.CheckTimestamps && !passes(other) && tc.after == nil {
					t.Errorf("check %d: %s (%s)", other.ID, other.Status, other.Summary)
				}
			}
		})
	}
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
	a, err := tsa.NewAuthority()
	must(t, err)
	l, err := tlog.NewLocal()
	must(t, err)
	l.Now = func() time.Time { return time.Now().Add(-time.Hour) } // before the base run's first request
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	sealer := testSigner(t)
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
			dir := stampedRun(t, a, sealer.Fingerprint(), nil)
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
