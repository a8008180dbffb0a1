package main

import (
	"errors"
	"io"
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
		arg0 string
		look func(string) (string, error)
		want string
	}{
		{"benchseal", found, "benchseal"},
		{"/tmp/go-build3141/b001/exe/benchseal", none, "go run ./cmd/benchseal"},
		{"./benchseal", none, "./benchseal"},
		{"bin/benchseal", none, "bin/benchseal"},
	} {
		if got := selfCommand(c.arg0, c.look); got != c.want {
			t.Errorf("selfCommand(%q) = %q, want %q", c.arg0, got, c.want)
		}
	}
}
