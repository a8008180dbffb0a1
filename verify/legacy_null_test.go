package verify

import (
	"encoding/json"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// Claims sealed before latencies became null when nothing succeeded
// published 0 there: still consistent with the records. Any other field,
// or a non-zero number, still differs.
func TestLegacyZeroLatency(t *testing.T) {
	var want, old, wrong schemas.Metrics
	json.Unmarshal([]byte(`{"latency_p50_s":null,"rtfx":null,"ttfb_p50_s":null}`), &want)
	json.Unmarshal([]byte(`{"latency_p50_s":0,"rtfx":0,"ttfb_p50_s":0}`), &old)
	json.Unmarshal([]byte(`{"latency_p50_s":0.5,"rtfx":0,"ttfb_p50_s":0}`), &wrong)
	var c Check
	if n := compareDocs(&c, "claims.json", "claims.json", want, old); n != 0 {
		t.Errorf("old zeros: %d differences: %+v", n, c.Findings)
	}
	if n := compareDocs(&c, "claims.json", "claims.json", want, wrong); n != 1 {
		t.Errorf("a made-up latency: %d differences, want 1", n)
	}
}
