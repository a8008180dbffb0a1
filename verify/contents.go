package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/par"
	"github.com/benchseal/benchseal/schemas"
)

// evidence is what checks 5 to 8 work on: run.json, claims.json and the
// records, decoded once.
type evidence struct {
	f      *files
	run    *schemas.Run    // nil when run.json is missing or unreadable
	claims *schemas.Claims // nil likewise
	// records by file, in file order; recFiles sorted.
	records  map[string][]schemas.Record
	recFiles []string
	st       *bundle.Statement // nil for a run directory
	// tel is telemetry/ decoded (empty when the run has none); telErr why
	// it could not be.
	tel        claims.Telemetry
	telErr     error
	render     func(map[string][]byte) ([]byte, error) // Options.RenderReport
	renderTool string                                  // Options.RenderReportTool
}

// schemaOf names the schema a file of the run directory must match: by
// the document's own "schema" field for JSON (benchseal.<name>/v1), by its
// path for JSONL (which carries none). "" means no benchseal schema binds it.
func schemaOf(name string, doc []byte) string {
	switch {
	case isRecords(name):
		return "record"
	case name == "telemetry/gpu.jsonl":
		return "gpu_sample"
	case name == "telemetry/host.jsonl":
		return "host_sample"
	case name == "telemetry/steps.jsonl":
		return "step_telemetry"
	case name == "run.json":
		return "run"
	case name == "claims.json":
		return "claims"
	case !strings.HasSuffix(name, ".json"):
		return ""
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(doc, &head) != nil {
		return ""
	}
	s, ok := strings.CutPrefix(head.Schema, "benchseal.")
	if !ok {
		return ""
	}
	s, ok = strings.CutSuffix(s, "/v1")
	if !ok || strings.ContainsAny(s, "/.") {
		return "?" + head.Schema
	}
	return s
}

// checkContents runs checks 4 to 8 over the files.
func checkContents(ctx context.Context, rep *Report, fl *files, st *bundle.Statement, opts Options) error {
	ev := &evidence{f: fl, records: map[string][]schemas.Record{}, st: st, render: opts.RenderReport, renderTool: opts.RenderReportTool}
	if err := checkSchemas(rep, ev); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if ev.run == nil {
		for _, id := range []int{CheckVariants, CheckClaims, CheckProtocol, CheckFairness} {
			c := rep.Check(id)
			c.failf("run.json", nil, "not run: run.json is missing or unreadable")
			c.Summary = "not run"
		}
		return nil
	}
	ev.tel, ev.telErr = claims.LoadTelemetry(fsys{ev.f})
	if err := checkVariants(ctx, rep, ev, opts.AudioDir); err != nil {
		return err
	}
	checkSchedule(rep.Check(CheckVariants), ev)
	checkClaims(rep, ev)
	checkProtocol(rep, ev)
	checkFairness(rep, ev)
	checkEnvironment(rep, ev)
	return nil
}

// checkSchemas is check 4; it also decodes run.json, claims.json and the
// records for the checks after it.
func checkSchemas(rep *Report, ev *evidence) error {
	c := rep.Check(CheckSchemas)
	docs, lines, other := 0, 0, 0
	known := map[string]bool{}
	for _, n := range schemas.Names() {
		known[n] = true
	}
	if !ev.f.has("run.json") {
		c.failf("run.json", nil, "missing")
	}
	if !ev.f.has("claims.json") {
		c.failf("claims.json", nil, "missing")
	}
	var runDoc []byte
	for _, name := range ev.f.names {
		if name == bundle.PublicKeyName {
			continue
		}
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".jsonl") {
			other++
			continue
		}
		if isRecords(name) {
			lines++ // validated below, with their decoding
			continue
		}
		b, err := ev.f.read(name)
		if err != nil {
			return err
		}
		sc := schemaOf(name, b)
		switch {
		case sc == "":
			other++
			continue
		case strings.HasPrefix(sc, "?") || !known[sc]:
			c.warnf(name, "names schema %q, which this verifier does not know", strings.TrimPrefix(sc, "?"))
			continue
		}
		if strings.HasSuffix(name, ".jsonl") {
			lines++
			if err := schemas.ValidateLines(sc, b); err != nil {
				f := Finding{Status: Fail, Path: name, Reason: err.Error(), Err: err}
				var le *schemas.LineError
				if errors.As(err, &le) {
					f.Line, f.Reason = le.Line, le.Err.Error()
				}
				c.add(f)
			}
		} else {
			docs++
			if err := schemas.Validate(sc, b); err != nil {
				c.failf(name, err, "%v", err)
			}
		}
		switch {
		case name == "run.json":
			runDoc = b
		case name == "claims.json":
			var cl schemas.Claims
			if err := json.Unmarshal(b, &cl); err != nil {
				c.failf(name, err, "cannot be decoded: %v", err)
			} else {
				ev.claims = &cl
			}
		}
	}
	if runDoc != nil {
		var run schemas.Run
		if err := json.Unmarshal(runDoc, &run); err != nil {
			c.failf("run.json", err, "cannot be decoded: %v", err)
		} else {
			ev.run = &run
		}
	}
	// Records last: whether a truncated last line is tolerated depends on
	// run.json. They are most of the JSON, so each file is validated and
	// decoded on its own core; the findings keep the files' order.
	var recFiles []string
	for _, name := range ev.f.names {
		if isRecords(name) {
			recFiles = append(recFiles, name)
		}
	}
	found := make([][]Finding, len(recFiles))
	recs := make([][]schemas.Record, len(recFiles))
	errs := make([]error, len(recFiles))
	par.For(len(recFiles), func(_, k int) bool {
		found[k], recs[k], errs[k] = checkRecordsFile(recFiles[k], ev.f, ev.run)
		return true
	})
	for k, name := range recFiles {
		if errs[k] != nil {
			return errs[k]
		}
		for _, f := range found[k] {
			c.add(f)
		}
		ev.records[name] = recs[k]
		ev.recFiles = append(ev.recFiles, name)
	}
	slices.Sort(ev.recFiles)
	if ev.st != nil {
		p, err := json.Marshal(ev.st.Predicate)
		if err == nil {
			err = schemas.Validate("predicate", p)
		}
		docs++
		if err != nil {
			c.failf(bundle.AttestationName, err, "predicate: %v", err)
		}
	}
	if c.Status == Pass {
		c.Summary = fmt.Sprintf("%d documents and %d JSONL files valid; %d other files carry no schema", docs, lines, other)
	} else {
		c.Summary = fmt.Sprintf("%d documents and %d JSONL files checked", docs, lines)
	}
	return nil
}

// checkRecordsFile validates one records file line by line and decodes
// it. err is only for a file that cannot be read.
func checkRecordsFile(name string, fl *files, run *schemas.Run) (found []Finding, recs []schemas.Record, err error) {
	b, err := fl.read(name)
	if err != nil {
		return nil, nil, err
	}
	if err := schemas.ValidateLines("record", b); err != nil {
		f := Finding{Status: Fail, Path: name, Reason: err.Error(), Err: err}
		var le *schemas.LineError
		if errors.As(err, &le) {
			f.Line, f.Reason = le.Line, le.Err.Error()
		}
		found = append(found, f)
	}
	recs, err = claims.ReadRecords(name, bytes.NewReader(b))
	if err != nil {
		var le *claims.LineError
		line := 0
		if errors.As(err, &le) {
			line = le.Line
		}
		switch {
		case errors.Is(err, claims.ErrTruncatedLine) && run != nil && !run.Complete:
			found = append(found, Finding{Status: Warn, Path: name, Line: line, Reason: "last line cut short (the run did not complete); the records before it are kept", Err: err})
		default:
			found = append(found, Finding{Status: Fail, Path: name, Line: line, Reason: "records cannot be decoded: " + errText(err), Err: err})
		}
	}
	return found, recs, nil
}

// errText is an error's message without the file name its type already
// put in front (the finding names the file).
func errText(err error) string {
	var le *claims.LineError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// stepFile is the records file of one target, level and repeat.
func stepFile(target string, concurrency, repeat int) string {
	return schemas.RecordsPath(target, concurrency, repeat)
}
