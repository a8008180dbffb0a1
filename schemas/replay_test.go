package schemas

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// run.json of a replay names the sealed run it re-ran; its digests are
// checked like every other digest of the schema.
func TestRunReplayOf(t *testing.T) {
	r := validRun()
	r.ReplayOf = &ReplayOf{Source: "evidence.tar.zst", BundleSHA256: strings.Repeat("ab", 32),
		KeyFingerprint: "sha256:" + strings.Repeat("cd", 32), KeyPinned: true,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Overrides: []string{"target a url http://127.0.0.1:9"}}
	b, _ := json.Marshal(r)
	if err := Validate("run", b); err != nil {
		t.Fatalf("a replay's run.json: %v", err)
	}
	for name, bad := range map[string]func(*ReplayOf){
		"bundle digest": func(o *ReplayOf) { o.BundleSHA256 = "not-a-digest" },
		"fingerprint":   func(o *ReplayOf) { o.KeyFingerprint = strings.Repeat("cd", 32) },
		"source":        func(o *ReplayOf) { o.Source = "" },
	} {
		r2 := r
		o := *r.ReplayOf
		bad(&o)
		r2.ReplayOf = &o
		b, _ := json.Marshal(r2)
		if err := Validate("run", b); err == nil {
			t.Errorf("replay_of with a bad %s validates", name)
		}
	}
	plain, _ := json.Marshal(validRun())
	if strings.Contains(string(plain), "replay_of") {
		t.Errorf("a run that is no replay says replay_of: %s", plain)
	}
}
