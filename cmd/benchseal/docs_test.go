package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
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

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/cli.md's flag reference from the cobra commands")

// cliFlagsBegin and cliFlagsEnd enclose docs/cli.md's flag reference,
// generated from the commands themselves.
const (
	cliFlagsBegin = "<!-- flags: generated from the cobra commands (go test ./cmd/benchseal -run TestCLIDocs -update-docs) -->\n"
	cliFlagsEnd   = "<!-- end of flags -->"
)

// flagReference is docs/cli.md's reference of every command and flag, in
// the words of --help: a flag added, renamed or reworded in a command and
// not in the docs fails TestCLIDocs.
func flagReference() string {
	root := newRootCmd(&env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	var b strings.Builder
	b.WriteString("Every command and every flag, as `benchseal COMMAND --help` gives them (which adds\nexamples and the command's exit statuses).\n")
	cell := func(s string) string {
		return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
	}
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n`%s`: %s\n", c.Name(), cell(c.UseLine()), cell(c.Short))
		var rows []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			name, usage := pflag.UnquoteUsage(f)
			spelled := "--" + f.Name
			if f.Shorthand != "" {
				spelled = "-" + f.Shorthand + ", " + spelled
			}
			if name != "" {
				spelled += " " + name
			}
			def := f.DefValue
			switch def {
			case "", "false", "[]", "0", "0s":
				def = ""
			default:
				def = "`" + def + "`"
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", cell(spelled), def, cell(usage)))
		})
		if len(rows) == 0 {
			b.WriteString("\nNo flags.\n")
			continue
		}
		b.WriteString("\n| flag | default | what it does |\n|---|---|---|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n")
	}
	return b.String()
}

// docs/cli.md's flag reference is generated from the commands: it names
// every flag of every command with its --help text, so it cannot drift
// (go test ./cmd/benchseal -run TestCLIDocs -update-docs rewrites it).
func TestCLIDocs(t *testing.T) {
	const file = "../../docs/cli.md"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := flagReference()
	i := strings.Index(doc, cliFlagsBegin)
	j := strings.Index(doc, cliFlagsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated flag reference (between %q and %q)", file, strings.TrimSpace(cliFlagsBegin), cliFlagsEnd)
	}
	got := doc[i+len(cliFlagsBegin) : j]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(file, []byte(doc[:i+len(cliFlagsBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the flag reference is not the commands' (go test ./cmd/benchseal -run TestCLIDocs -update-docs):\n got:\n%s\nwant:\n%s", file, got, want)
}

// The README names every command in one line that links its flags in
// docs/cli.md; every flag a benchseal command line of the README names is
// a flag of that command; "Measuring real servers" names run's server
// evidence flags. The commands table kept in docs/commands.md names every
// flag of run and the server evidence flags of sim. (--otlp-listen,
// --otlp-wait and --server-events were once nowhere in the README.)
func TestReadmeNamesFlags(t *testing.T) {
	read := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, commands := read("../../README.md"), read("../../docs/commands.md")
	row := func(doc, file, cmd string) string {
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(line, "| `"+cmd+"` |") {
				return line
			}
		}
		t.Errorf("%s: no row for %s in the commands table", file, cmd)
		return ""
	}
	names := func(text, flag string) bool {
		return regexp.MustCompile("--" + regexp.QuoteMeta(flag) + "([^a-z-]|$)").MatchString(text)
	}
	root := newRootCmd(&env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if r := row(readme, "README.md", c.Name()); r != "" && !strings.Contains(r, "](docs/cli.md#"+c.Name()+")") {
			t.Errorf("README.md's %s row does not link docs/cli.md#%s: %s", c.Name(), c.Name(), r)
		}
	}
	// Each benchseal command line of the README's code blocks (with its
	// continuation lines) names only flags of its command.
	flagRe := regexp.MustCompile(`(?:^|\s)--([a-z][a-z0-9-]*)`)
	lines := strings.Split(readme, "\n")
	checked := 0
	inBlock := false
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock || !strings.HasPrefix(line, "benchseal ") && !strings.HasPrefix(line, "go run ./cmd/benchseal ") {
			continue
		}
		full := line
		for strings.HasSuffix(strings.TrimSpace(full), "\\") && i+1 < len(lines) {
			i++
			full = strings.TrimSuffix(strings.TrimSpace(full), "\\") + " " + strings.TrimSpace(lines[i])
		}
		full, _, _ = strings.Cut(full, "#") // a comment
		args := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(full, "go run ./cmd/benchseal "), "benchseal "))
		cmd, _, err := root.Find(args[:1])
		if err != nil || cmd == root {
			t.Errorf("README.md: %q: no command %s", full, args[0])
			continue
		}
		for _, m := range flagRe.FindAllStringSubmatch(full, -1) {
			if cmd.Flags().Lookup(m[1]) == nil {
				t.Errorf("README.md: %q: %s has no flag --%s", full, cmd.Name(), m[1])
			}
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("README.md: only %d benchseal command lines found: the pattern no longer matches", checked)
	}
	run, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	runRow := row(commands, "docs/commands.md", "run")
	run.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" && !names(runRow, f.Name) {
			t.Errorf("docs/commands.md's run row does not name --%s", f.Name)
		}
	})
	simRow := row(commands, "docs/commands.md", "sim")
	for _, f := range []string{"otlp-traces-endpoint", "otlp-protocol", "profiler-dir"} {
		if !names(simRow, f) {
			t.Errorf("docs/commands.md's sim row does not name --%s", f)
		}
	}
	i := strings.Index(readme, "## Measuring real servers")
	j := strings.Index(readme[i+1:], "\n## ")
	if i < 0 || j < 0 {
		t.Fatal(`README.md: no "## Measuring real servers" section`)
	}
	section := readme[i : i+1+j]
	for _, f := range []string{"otlp-listen", "otlp-wait", "server-events"} {
		if !names(section, f) {
			t.Errorf(`README.md's "Measuring real servers" does not name --%s`, f)
		}
	}
}
