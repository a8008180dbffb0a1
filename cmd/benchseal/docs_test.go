package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The user docs (README.md, docs/) link only to files of this repository
// that exist: a reader who cloned it has nothing else (a link to
// ../shared/DESIGN.md was broken for everyone).
func TestDocsLinksStayInRepo(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	path := regexp.MustCompile("`(\\.\\./[^`]*)`")
	n := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range path.FindAllStringSubmatch(string(b), -1) {
			t.Errorf("%s names %s, outside the repository", doc, m[1])
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "#") {
				continue
			}
			n++
			file := filepath.Join(filepath.Dir(doc), strings.SplitN(target, "#", 2)[0])
			if rel, err := filepath.Rel(root, file); err != nil || !filepath.IsLocal(rel) {
				t.Errorf("%s links to %s, outside the repository", doc, target)
				continue
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, target)
			}
		}
	}
	if n == 0 {
		t.Fatal("no links found: the pattern no longer matches the docs")
	}
}
