package main

// This file owns the CLI's shared wording and its exit statuses: how errors,
// hints and warnings look, and which error maps to which exit code. Every
// subcommand reports through these helpers so the tool speaks one way.
//
// Conventions (docs/cli.md): stdout carries data only;
// messages go to stderr as `benchseal: error: <what>: <why>`, lowercase, no
// trailing period, followed by `benchseal: hint: ...` where a fix is known.

import (
	"errors"
	"fmt"
	"io"
)

// Exit statuses, documented per command in its EXIT STATUS section
// (help.go).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks an error the user can fix by calling the command
// differently. It maps to exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// hintError carries a suggestion printed after the error line.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// withHint attaches a hint to err. A nil err stays nil.
func withHint(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &hintError{err: err, hint: fmt.Sprintf(format, args...)}
}

// errInterrupted reports that the user stopped the command; exit status 130.
var errInterrupted = errors.New("interrupted")

// exitError ends the command with a status and no further message, for
// commands that already printed their verdict (verify's checklist).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	case errors.As(err, &ue):
		return exitUsage
	default:
		return exitFailure
	}
}

// printError writes err, and every hint attached anywhere in its chain, to w.
// A usage error ends with where to read the usage of command, the path of
// the command that failed ("benchseal run"; "benchseal" when none matched).
func printError(w io.Writer, err error, command string) {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return
	}
	fmt.Fprintf(w, "benchseal: error: %v\n", err)
	for e := err; e != nil; e = errors.Unwrap(e) {
		if h, ok := e.(*hintError); ok {
			fmt.Fprintf(w, "benchseal: hint: %s\n", h.hint)
		}
	}
	if errors.As(err, new(*usageError)) {
		if command == "" {
			command = "benchseal"
		}
		fmt.Fprintf(w, "benchseal: hint: run '%s --help' for usage\n", command)
	}
}

// warnf prints a warning line on stderr.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "benchseal: warning: "+format+"\n", args...)
}

// infof prints an informational line on stderr.
func infof(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "benchseal: "+format+"\n", args...)
}

// infof and warnf of an env, for libraries that report as they go.
func (e *env) infof(format string, args ...any) { infof(e.stderr, format, args...) }
func (e *env) warnf(format string, args ...any) { warnf(e.stderr, format, args...) }
