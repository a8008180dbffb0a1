package main

// replay --launch (each target's server started from the bundle alone, as
// session.Sealed.LaunchCommands gives it) and the environment diff taken
// before measuring (session.Sealed.EnvDiff), with how both are worded.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// launchAll is --launch without a value: every replayed target is
// started with its sealed command. ("true", with Type "bool", is how
// pflag lists a flag that may go without a value: as --launch.)
const launchAll = "true"

// replayLaunchFlags are replay's server flags.
type replayLaunchFlags struct {
	launch                  launchFlag
	env                     []string
	readyTimeout, stopGrace time.Duration
}

// launchFlag is --launch (every target with its sealed command) and
// --launch=NAME=CMD (one target with CMD instead).
type launchFlag struct {
	on   bool
	cmds []string
}

func (l *launchFlag) String() string { return "" }
func (l *launchFlag) Type() string   { return "bool" }
func (l *launchFlag) Set(v string) error {
	l.on = true
	if v != launchAll {
		l.cmds = append(l.cmds, v)
	}
	return nil
}

func addReplayLaunchFlags(fl *pflag.FlagSet, f *replayLaunchFlags) {
	fl.Var(&f.launch, "launch", "start every target's server with the sealed launch command; --launch=NAME=CMD starts NAME with CMD instead (repeatable)")
	fl.Lookup("launch").NoOptDefVal = launchAll
	fl.StringArrayVar(&f.env, "env", nil, "with --launch: a value of the sealed launch command redacted when sealed, as KEY=VALUE (HF_TOKEN=..., api-key=...; never recorded)")
	fl.DurationVar(&f.readyTimeout, "ready-timeout", fingerprint.DefaultReadyTimeout, "with --launch: how long a server may take to answer /health or /v1/models")
	fl.DurationVar(&f.stopGrace, "stop-grace", session.DefaultStopGrace, "with --launch: time between SIGTERM and SIGKILL when stopping a server")
}

// replayArgs takes one bundle; a second word that looks like NAME=CMD
// after --launch is --launch=NAME=CMD written with a blank.
func replayArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 1 && cmd.Flags().Changed("launch") {
		for _, a := range args {
			if strings.Contains(a, "=") {
				return withHint(usageErrorf("replay: %q: --launch takes its NAME=CMD after '=': --launch=%s", fingerprint.Redact(a), fingerprint.Redact(a)),
					"--launch alone starts every target with its sealed command")
			}
		}
	}
	return exactArgs(1, "one bundle or run directory")(cmd, args)
}

// replayServers is the session's servers of a replay: with --launch each
// replayed target's launch command (session.Sealed.LaunchCommands), and
// every refusal worded with the flag that fixes it.
func replayServers(e *env, s *session.Sealed, f *replayFlags, urls map[string]string, changed func(string) bool) (*session.Servers, error) {
	servers := session.NewServers()
	l := f.launch
	if !l.launch.on {
		for _, flag := range []string{"env", "ready-timeout", "stop-grace"} {
			if changed(flag) {
				return nil, usageErrorf("--%s is for --launch: without it the servers are already running", flag)
			}
		}
		return servers, nil
	}
	if l.readyTimeout <= 0 || l.stopGrace <= 0 {
		return nil, usageErrorf("--ready-timeout and --stop-grace must be positive")
	}
	rl := session.ReplayLaunch{Only: f.only, Commands: map[string]string{}, Values: map[string]string{}, URLs: urls}
	for _, kv := range l.launch.cmds {
		name, cmd, ok := strings.Cut(kv, "=")
		if !ok || name == "" || cmd == "" {
			return nil, usageErrorf("--launch=%q: want NAME=CMD", fingerprint.Redact(kv))
		}
		if err := s.CheckTargets([]string{name}); err != nil {
			return nil, usageErrorf("--launch %v", err)
		}
		if len(f.only) > 0 && !slices.Contains(f.only, name) {
			return nil, usageErrorf("--launch=%s=...: %s is not replayed (--only)", name, name)
		}
		if _, dup := rl.Commands[name]; dup {
			return nil, usageErrorf("--launch %s is given twice", name)
		}
		if strings.Contains(cmd, fingerprint.Redacted) {
			return nil, usageErrorf("--launch=%s=...: the command holds %s: give the value itself", name, fingerprint.Redacted)
		}
		rl.Commands[name] = cmd
	}
	for _, kv := range l.env {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimLeft(k, "-")
		if !ok || k == "" {
			return nil, usageErrorf("--env %q: want KEY=VALUE", fingerprint.Redact(kv))
		}
		if _, dup := rl.Values[k]; dup {
			return nil, usageErrorf("--env %s is given twice", k)
		}
		rl.Values[k] = v
	}
	cmds, short, err := s.LaunchCommands(rl)
	var le *session.LaunchError
	if errors.As(err, &le) {
		return nil, launchUsage(le)
	}
	if err != nil {
		return nil, err
	}
	for _, k := range short {
		warnf(e.stderr, "--env %s is shorter than %d characters: it is hidden where it follows its name but not scrubbed from other text", k, fingerprint.MinSecretLen)
	}
	for name, cmd := range cmds {
		if err := servers.AddLaunch(name, cmd); err != nil {
			return nil, settingError("launch", err)
		}
	}
	return servers, nil
}

// launchUsage words what keeps the sealed launch commands from starting.
func launchUsage(le *session.LaunchError) error {
	var hints []string
	if len(le.NoCommand) > 0 {
		hints = append(hints, "give each its command with --launch=NAME=CMD, or start it yourself and replay without --launch")
	}
	var named, unnamed []string
	for _, s := range le.Redacted {
		if s.Key == "" {
			if !slices.Contains(unnamed, s.Target) {
				unnamed = append(unnamed, s.Target)
			}
			continue
		}
		if f := "--env " + s.Key + "=VALUE"; !slices.Contains(named, f) {
			named = append(named, f)
		}
	}
	if len(named) > 0 {
		hints = append(hints, "give each value with "+strings.Join(named, " ")+" (never recorded)")
	}
	for _, t := range unnamed {
		hints = append(hints, fmt.Sprintf("a redacted value of %s's command follows no name: give the whole command with --launch=%s=CMD", t, t))
	}
	if len(le.Unused) > 0 {
		hints = append(hints, "--env names a value by the variable or flag it follows in the sealed command (KEY for KEY=[REDACTED], api-key for --api-key [REDACTED])")
	}
	if len(le.PortMoved) > 0 {
		hints = append(hints, "--target moves where the replay looks, not where the server listens: give the command too, with --launch=NAME=CMD")
	}
	return withHint(usageErrorf("replay --launch: %v", le), "%s", strings.Join(hints, "; "))
}

// envDiffHook takes the environment diff once the replay's env/ and
// probes are written, before it measures: the table on stderr,
// env/replay-diff.json in the run directory, and the diff into *out for
// the verdict.
func envDiffHook(e *env, s *session.Sealed, out *schemas.ReplayDiff) func(context.Context, *bench.Dir) error {
	return func(_ context.Context, d *bench.Dir) error {
		*out = s.EnvDiff(session.ReadEnvDocs(d.Path, d.Run.Targets), d.Run.Targets)
		if err := newfile.WriteJSON(filepath.Join(d.Path, filepath.FromSlash(schemas.ReplayDiffFile)), *out); err != nil {
			return fmt.Errorf("write %s: %w", schemas.ReplayDiffFile, err)
		}
		writeEnvDiff(e, *out)
		return nil
	}
}

// writeEnvDiff prints the diff as a table on stderr, then what differs.
func writeEnvDiff(e *env, d schemas.ReplayDiff) {
	infof(e.stderr, "environment, sealed run against this replay (%s):", schemas.ReplayDiffFile)
	tw := tabwriter.NewWriter(e.stderr, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\titem\tsealed\treplay\tstate")
	var differ, below []string
	for _, r := range d.Rows {
		t := r.Target
		if t == "" {
			t = "-"
		}
		state := r.State
		if r.State == schemas.DiffNotObserved {
			state += " (" + r.Missing + ")"
		}
		if r.State == schemas.DiffDiffers && r.Item == session.ItemLaunchCommand && strings.Contains(r.ReplayFrom, session.OverriddenLaunch) {
			state += " (overridden with --launch)"
		}
		if r.State == schemas.DiffDiffers && !r.Hardware {
			differ = append(differ, strings.TrimPrefix(t+" ", "- ")+r.Item)
		}
		sealed, replay := orDash(r.Sealed), orDash(r.Replay)
		if len(sealed) > maxEnvCell || len(replay) > maxEnvCell {
			// A launch command is hundreds of characters: in a column it
			// made the table 240 wide (480 with --launch). Its value goes
			// on lines of its own under the table.
			below = append(below, fmt.Sprintf("%s %s, sealed: %s", t, r.Item, sealed))
			if replay == sealed {
				below = append(below, fmt.Sprintf("%s %s, replay: the same", t, r.Item))
			} else {
				below = append(below, fmt.Sprintf("%s %s, replay: %s", t, r.Item, replay))
			}
			sealed, replay = "(below)", "(below)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t, r.Item, sealed, replay, state)
	}
	tw.Flush()
	for _, l := range below {
		fmt.Fprintf(e.stderr, "  %s\n", l)
	}
	if hw := d.HardwareDiffers(); len(hw) > 0 {
		warnf(e.stderr, "the replay runs on other hardware than the sealed run: %s; a figure beyond the tolerance is not comparable, not a DIFF", strings.Join(hw, "; "))
	}
	if len(differ) > 0 {
		warnf(e.stderr, "the replay's environment differs from the sealed run's in %s: a figure that differs may be theirs, not the server's", strings.Join(differ, ", "))
	}
}

// maxEnvCell is the widest value the environment table keeps in its
// columns; a longer one (a launch command) is printed under the table.
const maxEnvCell = 40

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
