package imports

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A comment citing the design points at docs/DESIGN.md, which a
// maintainer has, and at one of its sections by its heading.
func TestDesignCitations(t *testing.T) {
	design, err := os.ReadFile("../../docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	cite := regexp.MustCompile(`(\S*)DESIGN\.md(?:(?:,\s*|\s*\()(?://\s*)?"([^"]+)")?`)
	n := 0
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "shared/") {
				continue // the test that forbids links outside the repository names it
			}
			n++
			if !strings.HasSuffix(m[1], "docs/") {
				t.Errorf("%s cites %q: say docs/DESIGN.md", path, m[0])
			}
			section := strings.Join(strings.Fields(strings.ReplaceAll(m[2], "//", "")), " ")
			if section != "" && !strings.Contains(string(design), "\n## "+section+"\n") {
				t.Errorf("%s cites section %q, which docs/DESIGN.md does not have", path, section)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no citation found: the pattern no longer matches")
	}
}
