package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestClaimsDuplicateEntry: claims.json that lists a target (or a level)
// twice, a made-up copy before the true one, must not pass check 6 because
// the true copy comes last: a report would show the made-up numbers.
func TestClaimsDuplicateEntry(t *testing.T) {
	for _, tc := range []struct {
		name string
		dup  func(c *schemas.Claims)
	}{
		{"target", func(c *schemas.Claims) {
			fake := c.Targets[0]
			fake.Levels = append([]schemas.LevelClaims(nil), fake.Levels...)
			fake.Levels[0].Median.ReqPerS *= 10
			c.Targets = append([]schemas.TargetClaims{fake}, c.Targets...)
		}},
		{"level", func(c *schemas.Claims) {
			fake := c.Targets[0].Levels[0]
			fake.Median.ReqPerS *= 10
			c.Targets[0].Levels = append([]schemas.LevelClaims{fake}, c.Targets[0].Levels...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := damagedRun(t, func(dir string) {
				p := filepath.Join(dir, "claims.json")
				var c schemas.Claims
				b, err := os.ReadFile(p)
				must(t, err)
				must(t, json.Unmarshal(b, &c))
				tc.dup(&c)
				nb, err := json.MarshalIndent(c, "", "  ")
				must(t, err)
				must(t, os.WriteFile(p, nb, 0o644))
			})
			s := testSigner(t)
			b := seal(t, dir, s, bundle.SealOptions{})
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{PublicKey: s.PublicKey()})
			must(t, err)
			if got := rep.Check(verify.CheckClaims).Status; got != verify.Fail {
				t.Errorf("check 6 is %s with a duplicated %s in claims.json, want FAIL", got, tc.name)
			}
		})
	}
}
