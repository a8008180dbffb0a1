package verify_test

// The corpus's fourth pass (issue 38): edits a key holder made to honest
// runs that the checks before it let through.

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, fourthPassKinds) }

func fourthPassKinds() []kind {
	fail := verify.Fail
	return []kind{
		// run.json's started_at moved (as a plan stamped after the run
		// needs): every record's time moves with it, and the server's
		// spans, on the client's own clock (the targets are on loopback),
		// now start 1838 s from their records, all by the same amount,
		// which one drifting offset would fit.
		{name: "clock-moved-loopback", class: "events", check: verify.CheckEvents, status: fail, text: "is on loopback, on the client's own clock",
			doctor: func(tb testing.TB, dir string) {
				var run schemas.Run
				getJSON(tb, filepath.Join(dir, schemas.RunFile), &run)
				run.StartedAt = run.StartedAt.Add(-1838 * time.Second)
				putJSON(tb, filepath.Join(dir, schemas.RunFile), run)
			}},
	}
}
