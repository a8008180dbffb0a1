package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/benchseal/benchseal/"

// required are the rules docs/DESIGN.md ("Packages") states: a doc.go
// that drops one of them fails.
var required = map[string][]string{
	"perturb":        {"internal/bench"},
	"bundle":         {"internal/bench"},
	"schemas":        {"internal/bench"},
	"verify":         {"internal/bench"},
	"internal/sim":   {"internal/bench", "internal/claims", "internal/fingerprint", "perturb"},
	"internal/bench": {"internal/sim"},
}

type pkg struct {
	ImportPath string
	Dir        string
	Deps       []string
}

// TestImportRules holds every package to the "Must never import" line of
// its doc.go, transitively.
func TestImportRules(t *testing.T) {
	pkgs := list(t)
	known := map[string]bool{}
	for _, p := range pkgs {
		known[strings.TrimPrefix(p.ImportPath, module)] = true
	}
	checked := 0
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module)
		never, err := neverImports(p.Dir)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		for _, want := range required[rel] {
			if !slices.Contains(never, want) {
				t.Errorf("%s/doc.go: its Imports section must say it never imports %s", rel, want)
			}
		}
		for _, n := range never {
			if !known[n] {
				t.Errorf("%s/doc.go: must never import %q, which is not a package of this module", rel, n)
			}
		}
		for _, bad := range broken(p, never) {
			t.Errorf("%s imports %s (directly or through its imports), which its doc.go forbids", rel, bad)
		}
		if len(never) > 0 {
			checked++
		}
	}
	for rel := range required {
		if !known[rel] {
			t.Errorf("%s: no such package, yet a rule names it", rel)
		}
	}
	if checked < len(required) {
		t.Fatalf("only %d packages state import rules: the parsing no longer matches the doc.go files", checked)
	}
}

// broken returns the forbidden packages among p's dependencies.
func broken(p pkg, never []string) []string {
	var out []string
	for _, n := range never {
		if slices.Contains(p.Deps, module+n) {
			out = append(out, n)
		}
	}
	return out
}

// The rule is tested on its own: a dependency named in "Must never
// import" is reported, and one not named is not.
func TestBroken(t *testing.T) {
	p := pkg{ImportPath: module + "verify", Deps: []string{"fmt", module + "schemas", module + "internal/bench"}}
	if got := broken(p, []string{"internal/bench", "internal/sim"}); !slices.Equal(got, []string{"internal/bench"}) {
		t.Errorf("broken = %v, want [internal/bench]", got)
	}
	never, err := parseNever("It owns x. Must never import: internal/bench,\ninternal/sim, verify. Why: y.")
	if err != nil || !slices.Equal(never, []string{"internal/bench", "internal/sim", "verify"}) {
		t.Errorf("parseNever = %v, %v", never, err)
	}
}

var neverRE = regexp.MustCompile(`Must\s+never\s+import:\s+([a-z/,\s]+)\.`)

// neverImports reads the "Must never import" list of dir's doc.go (none
// when the package has no doc.go or states no rule).
func neverImports(dir string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, errors.New("doc.go has no package comment")
	}
	return parseNever(f.Doc.Text())
}

func parseNever(doc string) ([]string, error) {
	m := neverRE.FindAllStringSubmatch(doc, -1)
	switch len(m) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, errors.New(`doc.go says "Must never import" more than once`)
	}
	var out []string
	for _, s := range strings.Split(m[0][1], ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// list runs go list over the module: every package with its transitive
// dependencies.
func list(t *testing.T) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Dir,Deps", module+"...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
