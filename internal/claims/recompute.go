package claims

import (
	"io/fs"

	"github.com/benchseal/benchseal/schemas"
)

// Recompute is claims.json of a run from its records and telemetry, the
// one way the runner writes it and sealing, a verifier and a replay
// recompute it: Compute with the telemetry and the metric of the run's
// task (task.ForRun), so every caller computes the same figures.
func Recompute(run schemas.Run, recs []schemas.Record, tel Telemetry) (schemas.Claims, error) {
	return Compute(run, recs, WithTelemetry(tel))
}

// RecomputeDir reads a run directory or an extracted bundle
// (LoadDirTelemetry) and Recomputes its claims; it returns the run and
// records it read with them.
func RecomputeDir(fsys fs.FS) (schemas.Run, []schemas.Record, schemas.Claims, error) {
	run, recs, tel, err := LoadDirTelemetry(fsys)
	if err != nil {
		return run, recs, schemas.Claims{}, err
	}
	cl, err := Recompute(run, recs, tel)
	return run, recs, cl, err
}
