package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// recomputeClaims rewrites claims.json from the (damaged) records, as a
// forger who re-seals would: the claims then agree with the records.
func recomputeClaims(t testing.TB, dir string) {
	t.Helper()
	run, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(dir))
	must(t, err)
	c, err := claims.Compute(run, recs, claims.WithTelemetry(tel))
	must(t, err)
	b, err := json.MarshalIndent(c, "", "  ")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "claims.json"), append(b, '\n'), 0o644))
}

// TestAudioSecondsInflated: RTFx is audio seconds over the window, summed
// from the records' audio_seconds. Records (or run.json's corpus) that
// claim longer clips than the WAVs hold, with claims recomputed to match
// and re-sealed, must FAIL check 5, not pass with a doubled RTFx.
func TestAudioSecondsInflated(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		damage     func(t testing.TB, dir string)
	}{
		{"records", "audio_seconds", doubleAudioSeconds},
		{"corpus", "seconds", halveSampleRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := damagedRun(t, func(dir string) { tc.damage(t, dir); recomputeClaims(t, dir) })
			s := testSigner(t)
			b := seal(t, dir, s, bundle.SealOptions{})
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{PublicKey: s.PublicKey()})
			must(t, err)
			c := rep.Check(verify.CheckVariants)
			if c.Status != verify.Fail {
				t.Fatalf("check 5 is %s with inflated %s, want FAIL", c.Status, tc.name)
			}
			found := false
			for _, f := range c.Findings {
				found = found || strings.Contains(f.Reason, tc.text)
			}
			if !found {
				t.Errorf("no finding names %s: %+v", tc.text, c.Findings)
			}
		})
	}
}

// TestSuccessRule: a failed request turned into a success (ok: true with
// status 500), claims recomputed and re-sealed, must FAIL check 7.
func TestSuccessRule(t *testing.T) {
	dir := damagedRun(t, func(dir string) {
		editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
			if i == 3 {
				l = setField(t, l, "status", 500)
			}
			return l
		})
		recomputeClaims(t, dir)
	})
	s := testSigner(t)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})), verify.Options{PublicKey: s.PublicKey()})
	must(t, err)
	if c := rep.Check(verify.CheckProtocol); c.Status != verify.Fail {
		t.Errorf("check 7 is %s with an ok record of status 500, want FAIL: %+v", c.Status, c.Findings)
	}
}

// TestSuccessRuleOfTask: run.json names the success rule its task
// applies; a run.json naming another rule (the schema no longer pins
// one) must FAIL check 7, so a run cannot publish successes under a rule
// verify never applied.
func TestSuccessRuleOfTask(t *testing.T) {
	dir := damagedRun(t, func(dir string) {
		editRun(t, dir, func(r *schemas.Run) { r.Protocol.SuccessRule = "http_200" })
		recomputeClaims(t, dir)
	})
	s := testSigner(t)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})), verify.Options{PublicKey: s.PublicKey()})
	must(t, err)
	c := rep.Check(verify.CheckProtocol)
	if c.Status != verify.Fail || !strings.Contains(fmt.Sprint(c.Findings), `the rule of task "asr" is "http_200_nonempty_text"`) {
		t.Errorf("check 7 is %s with success_rule http_200, want FAIL naming the task's rule: %+v", c.Status, c.Findings)
	}
}

// TestTextScoredRederived: a record whose text_scored is not what its text
// scores as (a transcript the server never sent, scored in its place), with
// claims recomputed and re-sealed, must FAIL check 7.
func TestTextScoredRederived(t *testing.T) {
	dir := damagedRun(t, func(dir string) {
		editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
			if i == 3 {
				l = setField(t, l, "text_scored", "a transcript nobody sent")
			}
			return l
		})
		recomputeClaims(t, dir)
	})
	s := testSigner(t)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})), verify.Options{PublicKey: s.PublicKey()})
	must(t, err)
	c := rep.Check(verify.CheckProtocol)
	if c.Status != verify.Fail {
		t.Fatalf("check 7 is %s with an edited text_scored, want FAIL: %+v", c.Status, c.Findings)
	}
	if !strings.Contains(fmt.Sprint(c.Findings), "a transcript nobody sent") {
		t.Errorf("findings do not name the edited text_scored: %+v", c.Findings)
	}
}

// TestNoPerturbClipLengthsChecked: with perturbation off there are no
// variants to re-derive, but the clips' lengths are still checked against
// the WAVs, or halving run.json's sample rate (and doubling seconds) would
// double RTFx unseen.
func TestNoPerturbClipLengthsChecked(t *testing.T) {
	_, src := unperturb.get(t)
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, src, dir)
	halveSampleRate(t, dir)
	doubleAudioSeconds(t, dir) // the forger keeps the records consistent with the doctored corpus
	recomputeClaims(t, dir)
	s := testSigner(t)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})), verify.Options{PublicKey: s.PublicKey()})
	must(t, err)
	c := rep.Check(verify.CheckVariants)
	if c.Status != verify.Fail || !strings.Contains(fmt.Sprint(c.Findings), "Hz") {
		t.Fatalf("check 5 is %s with a halved sample rate under --no-perturb, want FAIL naming it: %+v", c.Status, c.Findings)
	}
}

// halveSampleRate doctors run.json's corpus: half the sample rate, twice
// the seconds, consistent with each other but not with the WAVs.
func halveSampleRate(t testing.TB, dir string) {
	p := filepath.Join(dir, "run.json")
	b, err := os.ReadFile(p)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	for _, c := range m["corpus"].([]any) {
		c := c.(map[string]any)
		c["seconds"] = c["seconds"].(float64) * 2
		c["sample_rate"] = c["sample_rate"].(float64) / 2
	}
	b, err = json.MarshalIndent(m, "", "  ")
	must(t, err)
	must(t, os.WriteFile(p, b, 0o644))
}

// doubleAudioSeconds doctors every record's audio_seconds.
func doubleAudioSeconds(t testing.TB, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	for _, f := range files {
		editLines(t, f, func(i int, l []byte) []byte {
			var r schemas.Record
			must(t, json.Unmarshal(l, &r))
			return setField(t, l, "audio_seconds", r.Seconds*2)
		})
	}
}
