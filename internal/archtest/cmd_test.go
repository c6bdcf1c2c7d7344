package archtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// commandFronts are the packages below the top level that the command line
// may import itself: each is its area's door for a command (the service's
// assembly, the venues' router, the request a job is run from, what runs a
// tracked commit) or a small utility of the process (its build, its
// inherited descriptors, text safe for a terminal). Every other package
// below the top level (the outbox, the queue, the follow-ups, the child
// process, a venue's client, a parser's inside) is reached through its
// area, so a command stays flags and wiring.
var commandFronts = []string{
	"service/setup", "venue/post", "job/jobspec", "track/measure",
	"internal/buildinfo", "internal/fds", "internal/safetext",
}

// TestCommandLineWiresAreas checks the command line's own imports (not what
// they import in turn): top-level packages of the module and the fronts
// above, nothing else.
func TestCommandLineWiresAreas(t *testing.T) {
	module, graph := importGraph(t)
	for _, msg := range commandImports(module, graph, "cmd/perfbot") {
		t.Error(msg)
	}
}

// TestCommandLineRuleCatchesInnerImport adds an import of the outbox and of
// a venue's client to cmd/perfbot and checks both are reported.
func TestCommandLineRuleCatchesInnerImport(t *testing.T) {
	module, graph := importGraph(t)
	p := graph[module+"/cmd/perfbot"]
	if p.ImportPath == "" {
		t.Fatal("cmd/perfbot is not in the import graph")
	}
	p.Imports = append(slices.Clone(p.Imports), module+"/service/outbox", module+"/venue/github")
	graph[p.ImportPath] = p
	msgs := commandImports(module, graph, "cmd/perfbot")
	for _, want := range []string{"service/outbox", "venue/github"} {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "imports "+want+":") }) {
			t.Errorf("an import of %s by cmd/perfbot was not reported; got %q", want, msgs)
		}
	}
	if len(msgs) != 2 {
		t.Errorf("got %d reports, want 2: %q", len(msgs), msgs)
	}
}

// commandImports reports each of the command's direct imports of the module
// that is neither a top-level package nor one of commandFronts.
func commandImports(module string, graph map[string]pkg, command string) []string {
	var msgs []string
	for _, imp := range graph[module+"/"+command].Imports {
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok || !strings.Contains(rel, "/") || slices.Contains(commandFronts, rel) {
			continue
		}
		msgs = append(msgs, fmt.Sprintf("%s imports %s: the command line is flags and wiring; it reaches a part "+
			"below the top level through its area (or the part becomes one of commandFronts, with its reason)", command, rel))
	}
	return msgs
}
