package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Keeps says which documents of a run directory or bundle benchseal report
// reads (verify.OpenOptions.Keep): run.json, claims.json, the GPU and host
// descriptions, the probes before the run, the records and the servers'
// per-request stage times.
func Keeps(name string) bool {
	switch name {
	case schemas.RunFile, schemas.ClaimsFile, schemas.GPUInfoFile, schemas.HostInfoFile:
		return true
	}
	// The records, for the conclusion's interval over requests within
	// repeats (benchseal report only: the REPORT.md that run writes, and
	// verify regenerates, is rendered without them).
	// The stage times, joined to those records for "Where the time goes"
	// (benchseal report only, like the records).
	return schemas.IsProbesBefore(name) || schemas.IsRecords(name) || schemas.IsStages(name)
}

// Records reads every records file of docs, in name order, for the
// conclusion's interval over requests within repeats (Input.Records). A
// file that cannot be read gives no records at all and its name and error:
// the interval then rests on repeats only.
func Records(docs map[string][]byte) (recs []schemas.Record, bad string, err error) {
	var names []string
	for name := range docs {
		if schemas.IsRecords(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		r, err := claims.ReadRecords(name, bytes.NewReader(docs[name]))
		if err != nil {
			return nil, name, err
		}
		recs = append(recs, r...)
	}
	return recs, "", nil
}

// RequestStages reads every servers/<target>/stages/c<C>-r<R>.jsonl of docs
// (schemas.StagesPath), each line validated against its schema, by
// target (Input.Stages). A file that cannot be read gives no stage times
// at all and its name and error: the report's percentiles then come from
// the histograms.
func RequestStages(docs map[string][]byte) (stages map[string][]schemas.RequestStages, bad string, err error) {
	var names []string
	for name := range docs {
		if schemas.IsStages(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		target := strings.Split(name, "/")[1] // servers/<target>/stages/...
		for i, line := range bytes.Split(docs[name], []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var l schemas.RequestStages
			if err := schemas.Decode("request_stages", line, &l); err != nil {
				return nil, name, fmt.Errorf("line %d: %w", i+1, err)
			}
			if stages == nil {
				stages = map[string][]schemas.RequestStages{}
			}
			stages[target] = append(stages[target], l)
		}
	}
	return stages, "", nil
}
