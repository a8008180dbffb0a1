package schemas

import (
	"bytes"
	"fmt"
	"strconv"
)

// REPORT.md ends with a line that names the rules it was rendered under
// (internal/report.RulesVersion): a verifier whose renderer has the same
// rules must render the same bytes from the sealed data, so a REPORT.md
// that names them and differs was written by hand.
const reportRulesPrefix = "<!-- benchseal report rules "

// ReportRulesLine is the last line of a REPORT.md rendered under rules v.
func ReportRulesLine(v int) string {
	return fmt.Sprintf("%s%d: rendered from the sealed data; benchseal verify renders it again -->", reportRulesPrefix, v)
}

// ReportRules is the rules version REPORT.md's last line names; ok is
// false when it names none (a build before rules were versioned, or a
// line removed).
func ReportRules(md []byte) (v int, ok bool) {
	md = bytes.TrimRight(md, "\n")
	i := bytes.LastIndexByte(md, '\n')
	last := md[i+1:]
	rest, found := bytes.CutPrefix(last, []byte(reportRulesPrefix))
	if !found {
		return 0, false
	}
	num, _, found := bytes.Cut(rest, []byte(":"))
	if !found {
		return 0, false
	}
	v, err := strconv.Atoi(string(num))
	return v, err == nil && v > 0
}
