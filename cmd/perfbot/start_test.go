package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// startBudget is how many bytes perfbot's own packages may allocate while
// they initialise, before any command runs. Their expressions and tables are
// built on first use; compiled at start they took 1.4 MB.
const startBudget = 32 << 10

// TestStartAllocations runs "perfbot version" under GODEBUG=inittrace=1 and
// checks what perfbot's packages allocate at start. Allocation, unlike
// time, does not depend on the host's load.
func TestStartAllocations(t *testing.T) {
	cmd := exec.Command(os.Args[0], "version")
	cmd.Env = append(os.Environ(), mainEnv+"=1", "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perfbot version: %v\n%s", err, stderr.String())
	}
	const module = "github.com/perfbot/perfbot/"
	perPkg := map[string]int{}
	total := 0
	for line := range strings.Lines(stderr.String()) {
		// init github.com/perfbot/perfbot/parse @20 ms, 0.036 ms clock, 4368 bytes, 106 allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		// The command's own package is left out: in this test binary it
		// holds the tests' variables too.
		if !strings.HasPrefix(pkg, module) || pkg == module+"cmd/perfbot" {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		perPkg[pkg] = n
		total += n
	}
	if _, ok := perPkg[module+"parse"]; !ok {
		t.Fatalf("no inittrace line for %sparse in:\n%s", module, stderr.String())
	}
	if total > startBudget {
		var lines []string
		for pkg, n := range perPkg {
			lines = append(lines, fmt.Sprintf("%8d %s", n, pkg))
		}
		sort.Sort(sort.Reverse(sort.StringSlice(lines)))
		t.Errorf("perfbot's packages allocate %d bytes at start, over the budget of %d; build at first use instead:\n%s",
			total, startBudget, strings.Join(lines, "\n"))
	}
}
