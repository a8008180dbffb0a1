package main

// How `run` turns its server flags into a session.Servers, and words what
// a launch failure means (the session launches and stops the servers).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
)

// parseServerSetup checks the server flags against the targets
// (session.Servers' Add methods) and words what they refuse.
func parseServerSetup(f *runFlags, targets []bench.Target) (*session.Servers, error) {
	s := session.NewServers()
	urls := map[string]string{}
	for _, t := range targets {
		urls[t.Name] = t.URL
	}
	for _, set := range []struct {
		flag string
		kvs  []string
		add  func(target, value string) error
	}{{"launch", f.launch, s.AddLaunch}, {"launch-cmd", f.launchCmd, s.AddLaunchCmd},
		{"launch-log", f.launchLog, s.AddLaunchLog}, {"server-config", f.serverConfigs, s.AddConfig}} {
		for _, kv := range set.kvs {
			name, v, err := targetPair(set.flag, kv, urls)
			if err != nil {
				return nil, err
			}
			if err := set.add(name, v); err != nil {
				return nil, settingError(set.flag, err)
			}
		}
	}
	gpus, err := parseGPUs(f.gpus, urls)
	if err != nil {
		return nil, err
	}
	s.GPUs = gpus
	return s, nil
}

// settingError words a server flag the session refused.
func settingError(flag string, err error) error {
	var se *session.SettingError
	if !errors.As(err, &se) {
		return err
	}
	t := se.Target
	switch {
	case se.Err == session.ErrTwice:
		return usageErrorf("--%s %s is given twice", flag, t)
	case se.Err == session.ErrLaunched && flag == "launch-cmd":
		return usageErrorf("--launch-cmd %s: %s is started with --launch, whose command is recorded", t, t)
	case se.Err == session.ErrLaunched:
		return usageErrorf("--%s %s: %s is started with --launch, whose log is captured", flag, t, t)
	case se.Err == session.ErrSameName:
		return usageErrorf("--%s %s: %s and %s have the same name in servers/%s/config/", flag, t, se.Other, se.Value, t)
	case se.Err == session.ErrNotRegular:
		return usageErrorf("--%s %s: not a regular file", flag, se.Value)
	}
	return withHint(fmt.Errorf("--%s %s: %w", flag, se.Value, se.Err), "give a file that exists")
}

// targetPair reads a NAME=VALUE flag whose NAME must be a target.
func targetPair(flag, kv string, urls map[string]string) (string, string, error) {
	name, v, ok := strings.Cut(kv, "=")
	if !ok || name == "" || v == "" {
		return "", "", usageErrorf("--%s %q: want NAME=VALUE", flag, fingerprint.Redact(kv))
	}
	if _, ok := urls[name]; !ok {
		return "", "", usageErrorf("--%s %s=...: no --target named %q", flag, name, name)
	}
	return name, v, nil
}

// parseGPUs reads --gpu NAME=0,1 flags of run and replay.
func parseGPUs(kvs []string, urls map[string]string) (map[string][]int, error) {
	gpus := map[string][]int{}
	for _, kv := range kvs {
		name, list, err := targetPair("gpu", kv, urls)
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(list, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || i < 0 {
				return nil, usageErrorf("--gpu %s: want NAME=0,1 (NVML indices)", kv)
			}
			if !slices.Contains(gpus[name], i) {
				gpus[name] = append(gpus[name], i)
			}
		}
	}
	if err := checkGPUFlags(gpus); err != nil {
		return nil, err
	}
	return gpus, nil
}

// launchError words a server the session could not start.
func launchError(ctx context.Context, err error) error {
	var se *session.StartError
	if !errors.As(err, &se) {
		return err
	}
	var pe *session.PortInUseError
	if errors.As(err, &pe) {
		return withHint(err, "stop what listens on %s, or give %s another port, in its launch command and its --target %s=URL alike", pe.Addr, pe.Target, pe.Target)
	}
	var le *fingerprint.LaunchError
	if errors.As(err, &le) && errors.Is(err, fs.ErrExist) {
		return withHint(err, "%s is left from an earlier run; move it away or choose another --out", se.Log)
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return withHint(err, "its log is kept in %s", se.Log)
}
