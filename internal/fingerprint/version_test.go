package fingerprint

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: a build from a clone is named by its commit (issue 36:
// `benchseal version` printed "devel" where the binary carried its VCS
// revision), "-dirty" when the tree had changes; a module or link-time
// version wins; nothing known is "devel".
func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/benchseal/benchseal", Version: "(devel)"}}
		if rev != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs", Value: "git"}, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if modified != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return bi
	}
	const rev = "6b3e51c0d2a9f1e4b7c8a3d5e6f70819a2b3c4d5"
	pseudo := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201213400-6b3e51c0d2a9+dirty"}}
	for _, tc := range []struct {
		link string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"", vcs(rev, "false"), true, "devel-6b3e51c0d2a9"},
		{"", vcs(rev, "true"), true, "devel-6b3e51c0d2a9-dirty"},
		{"", vcs(rev, ""), true, "devel-6b3e51c0d2a9"},
		{"", vcs("", ""), true, "devel"},
		{"", nil, false, "devel"},
		{"", pseudo, true, "v0.0.0-20261201213400-6b3e51c0d2a9+dirty"},
		{"v1.2.3", vcs(rev, "true"), true, "v1.2.3"},
	} {
		if got := versionOf(tc.link, tc.bi, tc.ok); got != tc.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tc.link, tc.bi, got, tc.want)
		}
	}
}
