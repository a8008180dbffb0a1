package schemas

import "fmt"

// ReplayDiffSchema names env/replay-diff.json.
const ReplayDiffSchema = "benchseal.replay_diff/v1"

// States of a ReplayDiffRow.
const (
	DiffSame        = "same"         // observed on both sides, equal
	DiffDiffers     = "differs"      // observed on both sides, not equal
	DiffNotObserved = "not observed" // one side or both did not say; Missing says which and why
)

// DiffItemLaunchCommand is the item of the row that compares a target's
// launch command (run.json launch_command) on both sides; a replay
// started with another command says so in its ReplayFrom.
const DiffItemLaunchCommand = "launch command"

// ReplayDiff is env/replay-diff.json: the environment a replay measured
// in, item by item against the sealed run's, taken before anything was
// measured (from the sealed run's env/ and servers/<target>/probes-before.json
// and the replay's own).
type ReplayDiff struct {
	Schema string          `json:"schema"` // ReplayDiffSchema
	Rows   []ReplayDiffRow `json:"rows"`
}

// ReplayDiffRow is one item: a target's engine, engine version, model,
// model revision or server knob, or a machine's GPU model, driver, count,
// memory or host cores (Target "").
type ReplayDiffRow struct {
	Target string `json:"target,omitempty"`
	Item   string `json:"item"`
	// Hardware: a difference here makes the replay's figures not
	// comparable with the sealed ones (GPU model, count, memory, host
	// cores), rather than a DIFF of the server.
	Hardware bool   `json:"hardware"`
	Sealed   string `json:"sealed,omitempty"` // "" when not observed
	Replay   string `json:"replay,omitempty"`
	// SealedFrom and ReplayFrom say where each value was read (a file and
	// key, "served"/"declared" for knobs as the fairness check says).
	SealedFrom string `json:"sealed_from,omitempty"`
	ReplayFrom string `json:"replay_from,omitempty"`
	State      string `json:"state"`             // DiffSame, DiffDiffers or DiffNotObserved
	Missing    string `json:"missing,omitempty"` // with DiffNotObserved: what was missing, where
}

// HardwareDiffers words each hardware row that differs: "gpu model
// (sealed NVIDIA H100 80GB HBM3, replay NVIDIA A100-SXM4-80GB)". A replay
// on other hardware cannot reproduce or contradict a figure that moved.
func (d ReplayDiff) HardwareDiffers() []string {
	var out []string
	for _, r := range d.Rows {
		if r.Hardware && r.State == DiffDiffers {
			out = append(out, fmt.Sprintf("%s (sealed %s, replay %s)", r.Item, r.Sealed, r.Replay))
		}
	}
	return out
}
