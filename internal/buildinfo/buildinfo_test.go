package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/perfbot/perfbot", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "3cf6ee0c40c3"}, {Key: "vcs.time", Value: "2026-12-01T11:40:44Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := Text(info, true, ""), "perfbot v0.3.0 (commit 3cf6ee0c40c3, 2026-12-01T11:40:44Z, modified) go1.26.0"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	info.Settings = nil
	if got := Text(info, true, "v9"); !strings.HasPrefix(got, "perfbot v9 (no VCS information") {
		t.Errorf("override without VCS: %q", got)
	}
	if got := Text(nil, false, ""); got != "perfbot (unknown) (no build information)" {
		t.Errorf("no build information: %q", got)
	}
}
