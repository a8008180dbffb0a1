package schemas

import "time"

// LaunchSchema names servers/<target>/launch.json.
const LaunchSchema = "benchseal.launch/v1"

// Launch is servers/<target>/launch.json: how a server started with --launch
// lived. The times are wall-clock UTC.
type Launch struct {
	Schema    string    `json:"schema"` // LaunchSchema
	Target    string    `json:"target"`
	Command   string    `json:"command"` // as run by /bin/sh -c, redacted
	Log       string    `json:"log"`     // run-directory path of launch.log
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	// ReadyAt is when it first answered /health or /v1/models with 200;
	// absent when it never did.
	ReadyAt     *time.Time `json:"ready_at,omitempty"`
	ReadyAfterS *float64   `json:"ready_after_s,omitempty"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	ExitCode    *int       `json:"exit_code,omitempty"` // absent when killed by a signal
	Signal      string     `json:"signal,omitempty"`    // the signal that ended it
	// StoppedBy says who ended it: "sigterm" (benchseal, at the end),
	// "sigkill" (benchseal, after the grace period), "" (it exited on its
	// own: a crash when DiedEarly).
	StoppedBy string `json:"stopped_by,omitempty"`
	DiedEarly bool   `json:"died_early"` // exited before benchseal stopped it
	// StoppedAnswering: the server refused connections when benchseal
	// came to stop it, yet had not exited within the grace period.
	StoppedAnswering bool   `json:"stopped_answering,omitempty"`
	Error            string `json:"error,omitempty"`
}
