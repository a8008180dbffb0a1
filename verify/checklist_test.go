package verify

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the checks tables of README.md and docs/verify.md from the checklist")

// The checks tables of the README and docs/verify.md are generated from
// the checklist: a check added, renamed or reworded in checklist.go and
// not in the docs fails here (go test ./verify -run TestChecklistDocs
// -update-docs rewrites them).
func TestChecklistDocs(t *testing.T) {
	readme := "| # | check | what it looks at |\n|---|---|---|\n"
	verifyMD := "| # | check | what holds when it PASSes |\n|---|---|---|\n"
	for _, k := range Checklist() {
		readme += fmt.Sprintf("| %d | %s | %s |\n", k.ID, k.Name, k.Help)
		verifyMD += fmt.Sprintf("| %d | %s | %s |\n", k.ID, k.Name, k.Proves)
	}
	for file, table := range map[string]string{"../README.md": readme, "../docs/verify.md": verifyMD} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`(?s)(<!-- checks: generated from verify/checklist\.go[^\n]*-->\n).*?(<!-- end of checks -->)`)
		m := re.FindSubmatchIndex(b)
		if m == nil {
			t.Errorf("%s: no generated checks table (between <!-- checks: generated from verify/checklist.go ... --> and <!-- end of checks -->)", file)
			continue
		}
		got := string(b[m[3]:m[4]])
		if got == table {
			continue
		}
		if *updateDocs {
			out := string(b[:m[3]]) + table + string(b[m[4]:])
			if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the checks table is not the checklist's (go test ./verify -run TestChecklistDocs -update-docs):\n got:\n%s\nwant:\n%s", file, got, table)
	}
}

// The table is the checklist: IDs in order from 1, names unique, every
// row with its words and its function.
func TestChecklistTable(t *testing.T) {
	seen := map[string]bool{}
	for i, k := range checklist {
		if k.ID != i+1 {
			t.Errorf("row %d has ID %d: the IDs are the rows' order", i, k.ID)
		}
		if seen[k.Name] || k.Name == "" || k.Help == "" || k.Proves == "" || k.Hint == "" || k.Run == nil {
			t.Errorf("check %d %q: duplicate name or a missing field", k.ID, k.Name)
		}
		seen[k.Name] = true
		for _, s := range []string{k.Help, k.Proves, k.Hint} {
			if strings.Contains(s, "--") {
				t.Errorf("check %d %s names a flag (%q): only the CLI names its flags", k.ID, k.Name, s)
			}
		}
	}
	if len(checklist) != CheckTimestamps {
		t.Errorf("%d checks, the last constant is %d", len(checklist), CheckTimestamps)
	}
}

// The library's findings name no CLI flag: the CLI adds the flag after a
// finding of a kind it knows (cmd/benchseal/verify.go, kindFlags). A
// finding may quote the recorded command line, which is evidence.
func TestFindingsNameNoFlag(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`(?:warnf|failf|warnKindf|Reason:)[^\n]*"[^"\n]*--[a-z][^"\n]*"`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, m := range call.FindAllString(string(b), -1) {
			if strings.Contains(m, "recorded command line") {
				continue
			}
			t.Errorf("%s: a finding names a flag: %s", f, m)
		}
	}
	if n == 0 {
		t.Fatal("no source files found")
	}
}
