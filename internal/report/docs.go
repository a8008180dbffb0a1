package report

import (
	"bytes"
	"sort"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Keeps says which documents of a run directory or bundle benchseal report
// reads (verify.OpenOptions.Keep): run.json, claims.json, the GPU and host
// descriptions, the probes before the run and the records.
func Keeps(name string) bool {
	switch name {
	case schemas.RunFile, schemas.ClaimsFile, schemas.GPUInfoFile, schemas.HostInfoFile:
		return true
	}
	// The records, for the conclusion's interval over requests within
	// repeats (benchseal report only: the REPORT.md that run writes, and
	// verify regenerates, is rendered without them).
	return schemas.IsProbesBefore(name) || schemas.IsRecords(name)
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
