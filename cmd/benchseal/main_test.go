package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this very binary as the `benchseal` command,
// and as the scripts' helper commands (scriptcmds_test.go: mkwav, mkrun,
// withsim, ...).
func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"benchseal": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	}
	for name, f := range scriptCmds {
		cmds[name] = scriptMain(f)
	}
	testscript.Main(m, cmds)
}

// TestScript runs every behaviour script in testdata/script (one .txt per
// behaviour). Scripts that need an external tool guard themselves with
// `[!exec:sox] skip`.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                scriptBuiltins,
	})
}
