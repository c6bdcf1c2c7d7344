package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/perfbot/perfbot/internal/buildinfo"
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
	fmt.Fprintln(stdout, buildinfo.Text(info, ok, version))
	return nil
}
