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
	testscript.Run(t, scriptParams("testdata/script"))
}

// TestScriptE2E runs the end-to-end scripts in testdata/e2e: whole
// workflows (replays, time-stamped runs, server events, cache probes,
// every --help example, stock cosign, Sigstore's timestamp-server) that
// take minutes under the race detector. They run with BENCHSEAL_E2E=1, as
// .ci/run runs them; the README's test command leaves them out.
func TestScriptE2E(t *testing.T) {
	requireE2E(t)
	testscript.Run(t, scriptParams("testdata/e2e"))
}

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                scriptBuiltins,
	}
}

// requireE2E skips an end-to-end test, saying why, unless BENCHSEAL_E2E=1.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("BENCHSEAL_E2E") != "1" {
		t.Skip("end-to-end: minutes under -race; BENCHSEAL_E2E=1 runs it (.ci/run does)")
	}
}
