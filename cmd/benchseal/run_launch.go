package main

// How `run` turns its server flags into a session.Servers, and words what
// a launch failure means (the session launches and stops the servers).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
)

// parseServerSetup checks the server flags against the targets.
func parseServerSetup(f *runFlags, targets []bench.Target) (*session.Servers, error) {
	s := newServers()
	urls := map[string]string{}
	for _, t := range targets {
		urls[t.Name] = t.URL
	}
	pair := func(flag, kv string) (string, string, error) { return targetPair(flag, kv, urls) }
	for _, kv := range f.launch {
		name, cmd, err := pair("launch", kv)
		if err != nil {
			return nil, err
		}
		if _, dup := s.Launch[name]; dup {
			return nil, usageErrorf("--launch %s is given twice", name)
		}
		s.Launch[name] = cmd
	}
	for _, kv := range f.launchCmd {
		name, text, err := pair("launch-cmd", kv)
		if err != nil {
			return nil, err
		}
		if _, l := s.Launch[name]; l {
			return nil, usageErrorf("--launch-cmd %s: %s is started with --launch, whose command is recorded", name, name)
		}
		s.LaunchCmd[name] = text
	}
	for _, kv := range f.launchLog {
		name, file, err := pair("launch-log", kv)
		if err != nil {
			return nil, err
		}
		if _, l := s.Launch[name]; l {
			return nil, usageErrorf("--launch-log %s: %s is started with --launch, whose log is captured", name, name)
		}
		if err := regularFile("--launch-log", file); err != nil {
			return nil, err
		}
		s.LaunchLog[name] = file
	}
	for _, kv := range f.serverConfigs {
		name, file, err := pair("server-config", kv)
		if err != nil {
			return nil, err
		}
		if err := regularFile("--server-config", file); err != nil {
			return nil, err
		}
		for _, other := range s.Configs[name] {
			if filepath.Base(other) == filepath.Base(file) {
				return nil, usageErrorf("--server-config %s: %s and %s have the same name in servers/%s/config/", name, other, file, name)
			}
		}
		s.Configs[name] = append(s.Configs[name], file)
	}
	gpus, err := parseGPUs(f.gpus, urls)
	if err != nil {
		return nil, err
	}
	s.GPUs = gpus
	return s, nil
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

func regularFile(flag, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return withHint(fmt.Errorf("%s %s: %w", flag, path, err), "give a file that exists")
	}
	if !fi.Mode().IsRegular() {
		return usageErrorf("%s %s: not a regular file", flag, path)
	}
	return nil
}

// newServers is a Servers with every map made.
func newServers() *session.Servers {
	return &session.Servers{Launch: map[string]string{}, LaunchCmd: map[string]string{}, LaunchLog: map[string]string{},
		Configs: map[string][]string{}, GPUs: map[string][]int{}}
}

// launchError words a server the session could not start.
func launchError(ctx context.Context, err error) error {
	var se *session.StartError
	if !errors.As(err, &se) {
		return err
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
