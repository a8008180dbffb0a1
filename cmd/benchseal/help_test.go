package main

import (
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every command has an example and a row in help.go's table: adding a
// command without them fails here, not in a user's terminal.
func TestEveryCommandHasHelp(t *testing.T) {
	root := newRootCmd(&env{stdout: io.Discard, stderr: io.Discard})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		if c.Example == "" {
			t.Errorf("%s: no example in --help", c.Name())
		}
		if _, ok := help[c.Name()]; !ok {
			t.Errorf("%s: no row in help.go's table (EXIT STATUS)", c.Name())
		}
		exit := exitStatusOf(c)
		if strings.Contains(exit, "130") != (c.Name() == "run" || c.Name() == "replay" || c.Name() == "seal" || c.Name() == "demo") {
			t.Errorf("%s: EXIT STATUS and 130 disagree:\n%s", c.Name(), exit)
		}
	}
}

// The demo's last line names a command that works the way benchseal was
// started: installed, built in place, or under go run.
func TestSelfCommand(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	found := func(string) (string, error) { return "/root/go/bin/benchseal", nil }
	for _, c := range []struct {
		arg0   string
		look   func(string) (string, error)
		cgoOff bool
		want   string
	}{
		{"benchseal", found, false, "benchseal"},
		{"/tmp/go-build3141/b001/exe/benchseal", none, false, "go run ./cmd/benchseal"},
		{"/tmp/go-build3141/b001/exe/benchseal", none, true, "CGO_ENABLED=0 go run ./cmd/benchseal"},
		{"./benchseal", none, true, "./benchseal"},
		{"bin/benchseal", none, false, "bin/benchseal"},
	} {
		if got := selfCommand(c.arg0, c.look, c.cgoOff); got != c.want {
			t.Errorf("selfCommand(%q) = %q, want %q", c.arg0, got, c.want)
		}
	}
}

// exampleCommands are the benchseal command lines of c's --help examples,
// as a shell would split them: continuation lines joined, quotes removed,
// each pipeline's benchseal stage alone (without redirections and leading
// VAR=value assignments), a glob word expanded to three files as a
// shell would expand it over a folder of three.
func exampleCommands(t *testing.T, example string) [][]string {
	t.Helper()
	example = strings.ReplaceAll(example, "\\\n", " ")
	var cmds [][]string
	for _, line := range strings.Split(example, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var words []string
		var cur strings.Builder
		inWord := false
		flush := func() {
			if inWord {
				words = append(words, cur.String())
			}
			cur.Reset()
			inWord = false
		}
		for i := 0; i < len(line); i++ {
			switch ch := line[i]; {
			case ch == '\'' || ch == '"':
				j := strings.IndexByte(line[i+1:], ch)
				if j < 0 {
					t.Fatalf("unclosed quote in example %q", line)
				}
				cur.WriteString(line[i+1 : i+1+j])
				inWord = true
				i += j + 1
			case ch == ' ' || ch == '\t':
				flush()
			case ch == '|' || ch == '>':
				flush()
				words = append(words, string(ch))
			default:
				cur.WriteByte(ch)
				inWord = true
			}
		}
		flush()
		var stage []string
		for k := 0; k <= len(words); k++ {
			if k < len(words) && words[k] != "|" {
				stage = append(stage, words[k])
				continue
			}
			for len(stage) > 0 && strings.Contains(stage[0], "=") && !strings.HasPrefix(stage[0], "-") {
				stage = stage[1:] // VAR=value before the command
			}
			if len(stage) > 0 && stage[0] == "benchseal" {
				var args []string
				for m := 1; m < len(stage); m++ {
					switch {
					case stage[m] == ">":
						m++ // and its file
					case strings.Contains(stage[m], "*"):
						for _, f := range []string{"a", "b", "c"} {
							args = append(args, strings.Replace(stage[m], "*", f, 1))
						}
					default:
						args = append(args, stage[m])
					}
				}
				cmds = append(cmds, args)
			}
			stage = nil
		}
	}
	return cmds
}

// Every --help example parses: its command exists, its flags are the
// command's and take their values, and it has as many arguments as the
// command takes (a glob counts as three files). "benchseal wavinfo
// clips/*.wav --json" once failed with "takes one WAV file, got 5".
func TestHelpExamplesParse(t *testing.T) {
	quiet := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	n := 0
	for _, c := range newRootCmd(quiet).Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		for _, args := range exampleCommands(t, c.Example) {
			n++
			root := newRootCmd(quiet) // flags keep what they parsed: a fresh tree each
			sub, rest, err := root.Find(args)
			if err != nil || sub == root {
				t.Errorf("%s --help: example %q: no such command (%v)", c.Name(), strings.Join(args, " "), err)
				continue
			}
			if err := sub.ParseFlags(rest); err != nil {
				t.Errorf("%s --help: example %q: %v", c.Name(), strings.Join(args, " "), err)
				continue
			}
			if err := sub.ValidateArgs(sub.Flags().Args()); err != nil {
				t.Errorf("%s --help: example %q: %v", c.Name(), strings.Join(args, " "), err)
			}
			if err := sub.ValidateRequiredFlags(); err != nil {
				t.Errorf("%s --help: example %q: %v", c.Name(), strings.Join(args, " "), err)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d example command lines found: the splitter no longer reads the examples", n)
	}
}

// exampleNotRun are the --help examples help_examples.txt does not run,
// each with why; every other example runs there as --help prints it.
var exampleNotRun = map[string]string{
	"benchseal demo --out /tmp/benchseal-demo":                                                               "writes outside the script's folder; demo.txt runs the demo",
	"benchseal import seedtts asr_seedtts_results.json --raw raw/":                                           "needs the seed client's result and raw files; import_seedtts.txt runs it on fixtures",
	"benchseal import vllm-bench openai-audio-infqps-concurrency8-Qwen3-ASR.json --json":                     "needs vllm bench serve's result file; import_vllm.txt runs it on fixtures",
	"benchseal compare vllm.tar.zst sglang.tar.zst --key A=vllm.pub --key B=sglang.pub --pair A:qwen=B:omni": "needs bundles of targets named qwen and omni; compare_protocol.txt pairs targets",
}

// exampleNeedsServer says which commands' examples need a live server
// (run, replay) or serve until stopped (sim).
var exampleNeedsServer = map[string]bool{"run": true, "replay": true, "sim": true}

// Every --help example that needs no live server runs in
// help_examples.txt exactly as --help prints it, and that script runs no
// example --help no longer prints.
func TestHelpExamplesRun(t *testing.T) {
	b, err := os.ReadFile("testdata/e2e/help_examples.txt")
	if err != nil {
		t.Fatal(err)
	}
	inScript := map[string]bool{}
	line := regexp.MustCompile(`(?m)^(?:\[[^\]]*\] )?exec sh -c '((?:[^']|'')*)'$`)
	for _, m := range line.FindAllStringSubmatch(string(b), -1) {
		inScript[strings.ReplaceAll(m[1], "''", "'")] = true
	}
	if len(inScript) == 0 {
		t.Fatal("help_examples.txt: no exec sh -c '...' lines: the pattern no longer matches the script")
	}
	seen := map[string]bool{}
	for _, c := range newRootCmd(&env{stdout: io.Discard, stderr: io.Discard}).Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		for _, ex := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
			ex = strings.Join(strings.Fields(ex), " ")
			if ex == "" {
				continue
			}
			seen[ex] = true
			switch {
			case inScript[ex]:
			case exampleNotRun[ex] != "":
			case exampleNeedsServer[c.Name()]:
			default:
				t.Errorf("%s --help: example %q is not run by testdata/e2e/help_examples.txt (add it there as exec sh -c '...', or to exampleNotRun with why)", c.Name(), ex)
			}
		}
	}
	for ex := range inScript {
		if !seen[ex] {
			t.Errorf("help_examples.txt runs %q, which no --help shows any more", ex)
		}
	}
	for ex := range exampleNotRun {
		if !seen[ex] {
			t.Errorf("exampleNotRun lists %q, which no --help shows any more", ex)
		}
	}
}
