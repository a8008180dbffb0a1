package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestServersAdd(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "config.yaml"), filepath.Join(dir, "config.yaml")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Dir(a), 0o755))
	must(os.WriteFile(a, []byte("x"), 0o644))
	must(os.WriteFile(b, []byte("y"), 0o644))
	s := NewServers()
	want := func(err, why error) *SettingError {
		t.Helper()
		var se *SettingError
		if !errors.As(err, &se) || !errors.Is(err, why) {
			t.Fatalf("err = %v, want a *SettingError for %v", err, why)
		}
		return se
	}
	must(s.AddLaunch("t", "vllm serve m"))
	want(s.AddLaunch("t", "again"), ErrTwice)
	want(s.AddLaunchCmd("t", "recorded"), ErrLaunched)
	want(s.AddLaunchLog("t", a), ErrLaunched)
	must(s.AddLaunchLog("u", a))
	want(s.AddLaunchLog("v", filepath.Join(dir, "nope")), fs.ErrNotExist)
	want(s.AddConfig("u", dir), ErrNotRegular)
	must(s.AddConfig("u", a))
	if se := want(s.AddConfig("u", b), ErrSameName); se.Other != a || se.Value != b {
		t.Errorf("same name: other %q value %q", se.Other, se.Value)
	}
	must(s.AddConfig("v", b))
	if s.Launch["t"] != "vllm serve m" || s.LaunchLog["u"] != a || len(s.Configs["u"]) != 1 || len(s.Configs["v"]) != 1 || len(s.LaunchCmd) != 0 {
		t.Errorf("servers %+v", s)
	}
}
