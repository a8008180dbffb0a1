package report

import (
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// Input is everything a report shows. Run and Claims are required; the
// rest is shown when present.
type Input struct {
	Run    schemas.Run
	Claims schemas.Claims

	// BundleSHA256 is the hex SHA-256 of the bundle file, and BundleName
	// its file name as a reader will download it ("evidence.tar.zst" when
	// empty). Both are empty for a report of a run directory.
	BundleSHA256 string
	BundleName   string
	// KeyFingerprint is the signing key's "sha256:<hex>" from the
	// statement's predicate; KeyEphemeral says the bundle carries its own
	// public key (its signer is unpinned).
	KeyFingerprint string
	KeyEphemeral   bool
	// Verify is benchseal verify's checklist of the same bundle or run
	// directory, nil when no verification ran. Its failure is the
	// report's first line, its warnings and failures (fairness above
	// all) are the caveats, and its checklist is in "Evidence".
	Verify *verify.Report

	// Records are the run's request records (records/*/*.jsonl), nil
	// when the report did not read them. With them, the conclusion's
	// interval also resamples requests within repeats (internal/verdict).
	Records []schemas.Record
	// Stages are the servers' per-request stage times by target
	// (servers/<t>/stages/c<C>-r<R>.jsonl: OTLP spans or SGLang-Omni's
	// request profiler, joined to the records by request id), nil when
	// the report did not read them. They are used only with Records:
	// joining them and client − server need both; without, the stage
	// percentiles come from the histograms. The REPORT.md that run writes
	// (and verify regenerates) has neither.
	Stages map[string][]schemas.RequestStages

	// MinEffect is the conclusion's minimum effect (internal/verdict's
	// Options.MinEffect, a fraction): a lead not above it is "within
	// noise". 0 takes verdict.DefaultMinEffect, which the REPORT.md that
	// run writes (and verify regenerates) uses.
	MinEffect float64
	// Drift is the drift measured between this run and repeated runs of
	// its setup (MeasureDrift; benchseal report --with), nil where none
	// was given: where it exceeds MinEffect, it is the conclusion's noise
	// bound, and the rule says so.
	Drift *Drift

	// Lang is the report's language, one of Languages ("" is English).
	Lang string

	GPU  *schemas.GPUInfo  // env/gpu.json
	Host *schemas.HostInfo // env/host.json
	// Servers are the targets' own descriptions of themselves
	// (servers/<t>/probes-before.json), in any order.
	Servers []schemas.ServerCapture

	// LinkCharts makes Markdown link the chart files (ChartFiles) written
	// next to it; without it, Markdown has no images.
	LinkCharts bool
}
