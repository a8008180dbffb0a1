// Command benchseal measures OpenAI-compatible speech servers (speech to
// text, text to speech, audio chat: internal/task's registry) with a
// closed-loop or open-loop, cache-proof protocol and seals the raw evidence so that anyone
// can check the published numbers later. See README.md and docs/.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a subcommand may touch of the outside world. Tests run
// commands in-process with their own env.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// args is the command line this command was started with (without
	// the program name), as recorded in run.json; never read os.Args,
	// which is the demo's when the demo runs a subcommand in-process.
	args []string
}

// commands lists the constructors of every subcommand; each subcommand file
// registers itself in init so that adding a command touches one file.
var commands []func(*env) *cobra.Command

func register(newCmd func(*env) *cobra.Command) { commands = append(commands, newCmd) }

// run executes the CLI and returns the exit status. It is main without the
// process-wide side effects, so tests can call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, args: args}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)

	// The first interrupt (Ctrl-C, SIGTERM, or SIGHUP: the terminal closed)
	// cancels the context: long-running commands drain and
	// keep what they have. A second one is handled by the command (bench) or
	// falls through to the default behaviour once stop is called.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && isCobraUsageError(err) {
		err = &usageError{err}
	}
	command := ""
	if cmd != nil {
		command = cmd.CommandPath()
	}
	printError(stderr, err, command)
	return exitCode(err)
}
