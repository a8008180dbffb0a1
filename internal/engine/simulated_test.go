package engine

import "testing"

func TestSimulated(t *testing.T) {
	for body, want := range map[string]string{
		`{"object":"list","data":[{"id":"m"}],"benchseal_sim":"vllm"}`: "vllm",
		`{"object":"list","data":[{"id":"m","owned_by":"vllm"}]}`:      "",
		`{"benchseal_sim":3}`:    "",
		`not json benchseal_sim`: "",
	} {
		if got := Simulated(body); got != want {
			t.Errorf("Simulated(%s) = %q, want %q", body, got, want)
		}
	}
}
