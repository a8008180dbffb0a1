package verify

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
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
	f *files
	// bundle is the archive as read, nil for a run directory; unsafe is the
	// reader's refusal; key the key Options pinned (nil: unpinned); odd
	// what a run directory holds that seal would refuse. An extracted
	// bundle (extracted) has both: its files on disk, presented as bundle.
	bundle    *bundle.Bundle
	extracted bool
	unsafe    error
	key       crypto.PublicKey
	odd       []Finding
	audioDir  string
	// decoded holds what decoding run.json, claims.json or a records file
	// found wrong, by path; check 4 reports it next to the validation.
	decoded map[string]Finding
	run     *schemas.Run    // nil when run.json is missing or unreadable
	claims  *schemas.Claims // nil likewise
	// records by file, in file order; recFiles sorted.
	records  map[string][]schemas.Record
	recFiles []string
	// attemptRecs are the records of discarded attempts
	// (schemas.AttemptRecordsPath), by file; attemptFiles sorted; attempts
	// the files by step and attempt (attempts.go). No claim reads them.
	attemptRecs  map[string][]schemas.Record
	attemptFiles []string
	attempts     map[stepKey]map[int]string
	st           *bundle.Statement // set by check 2; nil for a run directory
	// tel is telemetry/ decoded (empty when the run has none); telErr why
	// it could not be.
	tel         claims.Telemetry
	telErr      error
	render      func(map[string][]byte) ([]byte, error) // Options.RenderReport
	renderTool  string                                  // Options.RenderReportTool
	renderRules int                                     // Options.RenderReportRules
	original    *original                               // Options.Original, read (replay.go)
	tsaChain    []*x509.Certificate                     // Options.TSAChain
	logKey      []byte                                  // Options.LogKey
}

// schemaOf names the schema a file of the run directory must match: by
// the document's own "schema" field for JSON (benchseal.<name>/v1), by its
// path for JSONL (which carries none). "" means no benchseal schema binds it.
func schemaOf(name string, doc []byte) string {
	switch {
	case isRecords(name) || schemas.IsAttemptRecords(name):
		return "record"
	case name == "telemetry/gpu.jsonl":
		return "gpu_sample"
	case name == "telemetry/host.jsonl":
		return "host_sample"
	case name == "telemetry/steps.jsonl":
		return "step_telemetry"
	case name == schemas.CacheProbesFile:
		return "probe_telemetry"
	case schemas.IsStages(name):
		return "request_stages"
	case schemas.IsRoundTrip(name):
		return "heard"
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

// loadEvidence decodes run.json, claims.json, the records and the
// telemetry once, for the checks; what does not decode is kept in
// ev.decoded for check 4 to report, so loading judges nothing itself.
func loadEvidence(ctx context.Context, ev *evidence, opts Options) error {
	ev.records = map[string][]schemas.Record{}
	ev.decoded = map[string]Finding{}
	ev.render, ev.renderTool, ev.renderRules, ev.audioDir = opts.RenderReport, opts.RenderReportTool, opts.RenderReportRules, opts.AudioDir
	if opts.Original != "" {
		ev.original = readOriginal(ctx, opts.Original)
	}
	for _, name := range []string{"run.json", "claims.json"} {
		if !ev.f.has(name) {
			continue
		}
		b, err := ev.f.read(name)
		if err != nil {
			return err
		}
		var v any = &schemas.Run{}
		if name == "claims.json" {
			v = &schemas.Claims{}
		}
		if err := json.Unmarshal(b, v); err != nil {
			ev.decoded[name] = Finding{Status: Fail, Path: name, Reason: fmt.Sprintf("cannot be decoded: %v", err), Err: err}
			continue
		}
		switch v := v.(type) {
		case *schemas.Run:
			ev.run = v
		case *schemas.Claims:
			ev.claims = v
		}
	}
	if err := ev.original.matches(ev.run); err != nil {
		return err
	}
	// Records are most of the JSON: each file is decoded on its own core.
	// Whether a truncated last line is tolerated depends on run.json.
	ev.attemptRecs = map[string][]schemas.Record{}
	for _, name := range ev.f.names {
		switch {
		case isRecords(name):
			ev.recFiles = append(ev.recFiles, name)
		case schemas.IsAttemptRecords(name):
			ev.attemptFiles = append(ev.attemptFiles, name)
		}
	}
	for _, name := range ev.attemptFiles {
		found, recs, err := decodeRecordsFile(name, ev.f, ev.run)
		if err != nil {
			return err
		}
		if found != nil {
			ev.decoded[name] = *found
		}
		ev.attemptRecs[name] = recs
	}
	indexAttempts(ev)
	found := make([]*Finding, len(ev.recFiles))
	recs := make([][]schemas.Record, len(ev.recFiles))
	errs := make([]error, len(ev.recFiles))
	par.For(len(ev.recFiles), func(_, k int) bool {
		found[k], recs[k], errs[k] = decodeRecordsFile(ev.recFiles[k], ev.f, ev.run)
		return true
	})
	for k, name := range ev.recFiles {
		if errs[k] != nil {
			return errs[k]
		}
		if found[k] != nil {
			ev.decoded[name] = *found[k]
		}
		ev.records[name] = recs[k]
	}
	slices.Sort(ev.recFiles)
	if err := ctx.Err(); err != nil {
		return err
	}
	if ev.run != nil {
		ev.tel, ev.telErr = claims.LoadTelemetry(fsys{ev.f})
	}
	return nil
}

// checkSchemas is check 4: every document against its schema, and what
// loadEvidence could not decode, each next to its file's validation.
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
	for _, name := range ev.f.names {
		if name == bundle.PublicKeyName {
			continue
		}
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".jsonl") {
			other++
			continue
		}
		if isRecords(name) {
			lines++ // validated below, on every core
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
				c.add(lineFinding(name, err))
			}
		} else {
			docs++
			if err := schemas.Validate(sc, b); err != nil {
				c.failf(name, err, "%v", err)
			}
		}
		if f, ok := ev.decoded[name]; ok && name == "claims.json" {
			c.add(f)
		}
	}
	if f, ok := ev.decoded["run.json"]; ok {
		c.add(f)
	}
	found := make([]*Finding, len(ev.recFiles))
	errs := make([]error, len(ev.recFiles))
	par.For(len(ev.recFiles), func(_, k int) bool {
		b, err := ev.f.read(ev.recFiles[k])
		if err != nil {
			errs[k] = err
			return true
		}
		if err := schemas.ValidateLines("record", b); err != nil {
			f := lineFinding(ev.recFiles[k], err)
			found[k] = &f
		}
		return true
	})
	for k, name := range ev.recFiles {
		if errs[k] != nil {
			return errs[k]
		}
		if found[k] != nil {
			c.add(*found[k])
		}
		if f, ok := ev.decoded[name]; ok {
			c.add(f)
		}
	}
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

// lineFinding is a JSONL file's validation failure, at its line.
func lineFinding(name string, err error) Finding {
	f := Finding{Status: Fail, Path: name, Reason: err.Error(), Err: err}
	var le *schemas.LineError
	if errors.As(err, &le) {
		f.Line, f.Reason = le.Line, le.Err.Error()
	}
	return f
}

// decodeRecordsFile decodes one records file: found is what is wrong
// with it, err only for a file that cannot be read.
func decodeRecordsFile(name string, fl *files, run *schemas.Run) (found *Finding, recs []schemas.Record, err error) {
	b, err := fl.read(name)
	if err != nil {
		return nil, nil, err
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
			found = &Finding{Status: Warn, Path: name, Line: line, Reason: "last line cut short (the run did not complete); the records before it are kept", Err: err}
		default:
			found = &Finding{Status: Fail, Path: name, Line: line, Reason: "records cannot be decoded: " + errText(err), Err: err}
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
