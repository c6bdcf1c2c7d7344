package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// version overrides the module version from the build info when set at
// build time with -ldflags "-X main.version=v1.2.3" (a build outside the
// module cache has no version of its own: "(devel)").
var version = ""

// versionCmd implements "perfbot version" and "perfbot --version": the
// module version and the commit the binary was built from, as the Go
// toolchain recorded them.
func versionCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionText(info, ok, version))
	return nil
}

// versionText formats build information: "perfbot v1.2.3 (commit abc123,
// 2026-12-01T10:00:00Z, modified) go1.26".
func versionText(info *debug.BuildInfo, ok bool, override string) string {
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
