// Package buildinfo says which perfbot a binary is: the module version and
// the commit it was built from, as the Go toolchain recorded them.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Text formats build information: "perfbot v1.2.3 (commit abc123,
// 2026-12-01T10:00:00Z, modified) go1.26". A non-empty override replaces
// the module version (a build outside the module cache has none of its
// own: "(devel)"); ok is what debug.ReadBuildInfo returned.
func Text(info *debug.BuildInfo, ok bool, override string) string {
	if !ok || info == nil {
		if override == "" {
			override = "(unknown)"
		}
		return "perfbot " + override + " (no build information)"
	}
	v := info.Main.Version
	if override != "" {
		v = override
	}
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "commit "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	out := "perfbot " + v
	if len(vcs) > 0 {
		out += " (" + strings.Join(vcs, ", ") + ")"
	} else {
		out += " (no VCS information: built outside a git checkout or with -buildvcs=false)"
	}
	return out + " " + info.GoVersion
}
