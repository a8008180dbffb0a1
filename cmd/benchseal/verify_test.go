package main

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/verify"
)

// TestChecklistControlCharacters: a finding quotes what a hostile bundle
// wrote (a record's target, a clip id); terminal escapes in it must not
// reach the terminal, where they could hide a FAIL or the verdict line.
func TestChecklistControlCharacters(t *testing.T) {
	rep := &verify.Report{Source: "b.tar.zst", Failed: 1, Checks: []verify.Check{{ID: 7, Name: "protocol", Status: verify.Fail,
		Summary:  "1 steps checked\x1b[1A",
		Findings: []verify.Finding{{Status: verify.Fail, Path: "records/a/c1-r1.jsonl", Line: 1, Reason: "record of a\x1b[8m\u202e c=1"}}}}}
	var b strings.Builder
	if err := printChecklist(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("checklist passes control characters through:\n%q", out)
	}
	if !strings.Contains(out, `a\x1b[8m\u202e c=1`) {
		t.Errorf("checklist does not show the escaped characters:\n%q", out)
	}
}
