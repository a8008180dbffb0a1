// Package session owns one measurement: the targets' servers (launched or
// described), the runner, the probes, telemetry and server captures the
// recorder takes around every step, the run directory, and sealing the
// finished run on request. run, replay and demo all measure through it;
// the CLI only turns flags into a Config and words what comes back.
//
// # Contract
//
//   - Config is complete: nothing is read from the process (os.Args,
//     environment, terminal). Config.Plan.Command is the command line the
//     caller was started with, already redacted; it is what run.json
//     records.
//   - Start launches every Servers.Launch command, one after another, in
//     plan order, and waits until each answers /health or /v1/models. A
//     launched server logs beside the run directory (PendingLog) until the
//     run directory exists, then its log is moved to
//     servers/<target>/launch.log (the server keeps writing to the same
//     open file). On failure every server already started is stopped and a
//     *StartError names the target and where its log is kept. A server
//     whose URL's address already accepts connections is not launched (a
//     *PortInUseError): it would not get the port, and its target would be
//     measured against whatever answers there.
//   - Run measures Config.Plan into Config.Out (which must not exist) with
//     bench.Run, then stops every launched server (SIGTERM, SIGKILL after
//     StopGrace) and writes servers/<target>/launch.json. A launched server
//     that exits during the run stops its target (bench.TargetStoppedError),
//     and so does any server that stops answering mid-step (the runner sees
//     every worker's last request fail to connect). A launched server that
//     no longer answers when the session stops it gets the grace period to
//     exit on its own first, so launch.json says died_early (no
//     stopped_by) for one that died, and stopped_answering for one that
//     refused connections yet had to be stopped.
//     Stop is idempotent and safe to defer.
//   - Start first gives fingerprint's redactor every secret value the
//     session holds (Config.APIKey, URL passwords, secret-named form
//     fields, secret values in launch commands; see holdSecrets), so that
//     none reaches the run directory by value, and re-scrubs
//     Plan.Command with them; a value too short to scrub by value is
//     warned about through Config.Warnf, never named.
//   - Hooks in Config run before the session's own at every point, so a
//     caller may mark run.json (replay sets replay_of) before the recorder
//     writes its captures; Config.Captured runs after the recorder's
//     captures before the sweep (replay's environment diff).
//   - Sealed.Plan rebuilds the sealed run's plan for a replay, its task
//     from run.json's protocol.task (task.ForRun: absent is ASR, an
//     unknown task is refused), so a sealed run of another task replays
//     as that task; Sealed.Compare holds the replay's claims against the
//     sealed ones over the replayed targets (figures that moved on other
//     hardware are not comparable). The CLI words the comparison.
//   - Sealed.LaunchCommands gives replay --launch the sealed launch
//     commands with their redacted values filled in (held as secrets
//     first); Sealed.EnvDiff compares the sealed run's env/ and probes
//     with the replay's (env/replay-diff.json); Sealed.LostEvidence names
//     the targets whose sealed per-request server evidence a replay's
//     ServerEvents do not collect.
//   - Config.Preregister, when set, is the last BeforeSweep hook: it writes
//     plan.json, has the authority time-stamp it (timestamps/plan.tsr,
//     checked against the chain given), re-seeds the run from the token
//     (run.json's plan_seed is the plan's seed, its seed
//     schemas.TokenSeed of it and the token: no variant can be drawn
//     before the authority answered) and, with a Log, enters the plan
//     signed by the sealing key in a Rekor log (timestamps/rekor-entry.json);
//     any failure is a *PreregisterError, nothing is measured and the
//     runner removes the run directory (the same command can run again),
//     a launched server's log moved back beside it first (bench.Hooks'
//     Aborted).
//     SealTimestamp is the matching bundle.SealOptions.Timestamp (errors:
//     *TimestampError).
//   - Seal seals a finished run directory through a temporary file linked
//     into place: a bundle is never overwritten (internal/newfile).
//   - Errors are typed (*StartError, the runner's and bundle's typed errors)
//     and never name a CLI flag; messages the user sees while it runs go
//     through Config.Infof and Config.Warnf.
//
// # Where it grows
//
// What a run does goes into the session, not the CLI, as server-side
// evidence (captures in Hooks), the cache probe (a step of the plan) and
// replay --launch (Servers.Launch filled from the sealed run) did.
//
// The session never imports verify or the simulator; the CLI and tests
// compose them.
package session
