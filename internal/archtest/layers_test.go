package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A rule says that no package in From (and not in To) may depend, directly
// or through other packages, on a package in To, unless it is in Allow.
// Patterns are import paths relative to the module ("runner"; "" is the
// whole module), or full paths of outside modules
// ("github.com/riverqueue/river"); a pattern matches that package and every
// package below it, or, ending in "$" ("service$"), that package alone. Allow names the narrow parts of To a package may use
// (the request type beside the code that runs it), not broken rules: those
// are exceptions.
type rule struct {
	name  string
	from  []string
	to    []string
	why   string
	allow []string
}

// Groups of packages by what they do.
var (
	statistics = []string{"stats", "compare", "bench", "provenance"}
	processes  = []string{"runner", "sandbox", "job", "service", "intake", "venue", "web", "cmd"}
	running    = []string{"runner", "sandbox", "job"}
	posting    = []string{"venue", "intake"}
	venues     = []string{"venue"}
	service    = []string{"service"}
	queue      = []string{"github.com/riverqueue/river", "service"}
	rendering  = []string{"report", "digest"}
	intake     = []string{"intake"}
	// testOnly are the fakes of remote APIs and the helpers that only
	// tests import.
	testOnly   = []string{"internal/fake", "internal/storetest", "internal/pgtest", "internal/proctest", "internal/servicetest", "internal/testwait", "venue/internal/wiretest"}
	everything = []string{""}
)

// rules are the layers of README.md's Layout section: data flows request -> job
// spec -> runs -> results -> comparison -> answer -> venue, and no package
// reaches back up.
var rules = []rule{
	{"statistics import no process", statistics, processes,
		"statistics work on values: a verdict must not depend on how or where the samples were taken, and the " +
			"statistics must be testable (and reusable, as golang.org/x/perf's benchmath) without a runner or a service", nil},
	{"the runner measures, the job decides", []string{"runner"}, []string{"compare", "stats"},
		"the runner takes samples; when to stop is the job's decision, handed to the runner as a function, so the " +
			"stopping rule is chosen in one place and the comparison is computed once", nil},
	{"provenance records, it does not judge", []string{"provenance"}, []string{"compare", "stats"},
		"the runner and compare both record what was run in provenance's types; provenance importing the " +
			"statistics would bring the runner's dependency on them back", nil},
	{"intake hands requests over", intake, service,
		"intake turns a venue's event into a job spec and hands it to an interface it declares; importing the " +
			"service would make the service and its intakes one knot", nil},
	{"intake runs nothing", intake, running,
		"intake reads untrusted events with venue credentials at hand; it builds a jobspec.Spec and hands it over, " +
			"and what runs the job (job, runner, sandbox) stays out of reach of a request being read",
		[]string{"job/jobspec"}},
	{"test fakes and helpers stay in tests", everything, testOnly,
		"the fakes answer as GitHub, GitLab, Gerrit or Review Board would and the helpers start throwaway databases and " +
			"processes: compiled into perfbot, a fake could answer in place of the real venue; only _test.go " +
			"files import them", nil},
	{"rendering never posts", rendering, posting,
		"a rendering is a value (an answer); whoever holds it decides where it goes, so renderings are testable " +
			"as golden files and reusable in every venue", nil},
	{"venues never run code or call the service or an intake", venues, slices.Concat(running, service, intake),
		"a venue is called with an answer and posts it; a venue that runs code or calls back into the service " +
			"would hold secrets and untrusted builds in one place, and the intakes sit above the venues " +
			"(request -> ... -> venue): they read through a venue's client, never the other way", nil},
	{"a job never posts and knows no queue", []string{"job"}, append(slices.Clone(posting), queue...),
		"a job runs untrusted code: it holds no venue credentials, and it runs the same from the command line, " +
			"the service's workers and the child process", nil},
	{"the outbox posts, it never runs jobs", []string{"service/outbox"}, append(slices.Clone(running), "github.com/riverqueue/river"),
		"the outbox holds the venues' credentials and delivers what it is handed; code that builds or runs a " +
			"patch, or takes jobs from the queue, belongs to the workers, so a slow venue never holds up a benchmark", nil},
	{"follow-ups hand over, they never run jobs", []string{"service/followup"},
		slices.Concat(running, []string{"service$", "service/outbox", "service/queue", "github.com/riverqueue/river"}),
		"the follow-ups and tracked branches decide what to measure and what to say; they hand jobs to the queue and " +
			"answers to the outbox through interfaces they declare, and the service wires them: importing the service, " +
			"its outbox or its queue would knot them again (and bring the venues' posting within reach), and building " +
			"or running a job (job, runner, sandbox) or taking one from the queue belongs to the workers", []string{"job/jobspec"}},
	{"pages read the store", []string{"web"}, append(slices.Clone(running), posting...),
		"the web pages show what the store holds; a page that runs a benchmark or posts could be made to by " +
			"anyone who can reach the address", nil},
}

// An exception is a dependency that breaks a rule today and is being
// removed. The test fails when an exception is no longer needed, so this
// list can only shrink.
type exception struct {
	from, to string // package paths relative to the module
	why      string
}

var exceptions = []exception{}

// pkg is the part of go list's output the test reads.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// TestLayers checks every rule against the import graph of the module's
// packages (not their tests).
func TestLayers(t *testing.T) {
	module, graph := importGraph(t)
	for _, msg := range check(module, graph, exceptions) {
		t.Error(msg)
	}
}

// TestLayersCatchBrokenRules adds forbidden imports to the real graph and
// checks that each is reported with its chain and rule: the runner importing
// compare directly, and through provenance; an intake importing the runner
// or the job's execution; a venue importing an intake; the follow-ups importing the service, the runner,
// or the job's execution through track; a package of perfbot importing a
// test fake or a test helper.
func TestLayersCatchBrokenRules(t *testing.T) {
	module, graph := importGraph(t)
	withImport := func(from, to string) map[string]pkg {
		g := maps.Clone(graph)
		p := g[module+"/"+from]
		if p.ImportPath == "" {
			t.Fatalf("%s is not in the import graph", from)
		}
		p.Imports = append(slices.Clone(p.Imports), module+"/"+to)
		g[p.ImportPath] = p
		return g
	}
	for _, tc := range []struct {
		from, to string
		want     []string
	}{
		{"runner", "compare", []string{`runner imports compare (runner -> compare): breaks "the runner measures, the job decides"`}},
		{"provenance", "compare", []string{
			`provenance imports compare (provenance -> compare): breaks "provenance records, it does not judge"`,
			`runner imports compare (runner -> provenance -> compare): breaks "the runner measures, the job decides"`,
		}},
		{"intake/mail", "runner", []string{`intake/mail imports runner (intake/mail -> runner): breaks "intake runs nothing"`}},
		{"intake/github", "job", []string{
			`intake/github imports job (intake/github -> job): breaks "intake runs nothing"`,
			`intake/gitlab imports job (intake/gitlab -> intake/github -> job): breaks "intake runs nothing"`,
		}},
		{"web", "internal/fake/githubfake", []string{
			`web imports internal/fake/githubfake (web -> internal/fake/githubfake): breaks "test fakes and helpers stay in tests"`,
		}},
		{"service/followup", "service", []string{
			`service/followup imports service (service/followup -> service): breaks "follow-ups hand over, they never run jobs"`,
		}},
		{"service/followup", "service/outbox", []string{
			`service/followup imports service/outbox (service/followup -> service/outbox): breaks "follow-ups hand over, they never run jobs"`,
		}},
		{"service/followup", "service/queue", []string{
			`service/followup imports service/queue (service/followup -> service/queue): breaks "follow-ups hand over, they never run jobs"`,
		}},
		{"service/followup", "runner", []string{
			`service/followup imports runner (service/followup -> runner): breaks "follow-ups hand over, they never run jobs"`,
		}},
		{"track", "job", []string{
			`service/followup imports job (service/followup -> track -> job): breaks "follow-ups hand over, they never run jobs"`,
		}},
		{"venue/github", "intake", []string{
			`venue/github imports intake (venue/github -> intake): breaks "venues never run code or call the service or an intake"`,
		}},
		{"store", "internal/pgtest", []string{
			`store imports internal/pgtest (store -> internal/pgtest): breaks "test fakes and helpers stay in tests"`,
		}},
	} {
		got := check(module, withImport(tc.from, tc.to), exceptions)
		for _, want := range tc.want {
			if !slices.ContainsFunc(got, func(msg string) bool { return strings.HasPrefix(msg, want) }) {
				t.Errorf("with %s importing %s, no report starts with %q; reports:\n%s", tc.from, tc.to, want, strings.Join(got, "\n"))
			}
		}
	}
}

// check returns a message for each rule the graph breaks, for each rule that
// names a package no longer in the graph, and for each exception no longer
// needed.
func check(module string, graph map[string]pkg, exceptions []exception) []string {
	var msgs []string
	rel := func(p string) string { return strings.TrimPrefix(p, module+"/") }
	abs := func(pattern string) string {
		if pattern == "" {
			return module
		}
		if strings.Contains(strings.SplitN(pattern, "/", 2)[0], ".") {
			return pattern
		}
		return module + "/" + pattern
	}
	matches := func(path string, patterns []string) bool {
		for _, p := range patterns {
			if alone, ok := strings.CutSuffix(p, "$"); ok {
				if path == abs(alone) {
					return true
				}
				continue
			}
			p = abs(p)
			if path == p || strings.HasPrefix(path, p+"/") {
				return true
			}
		}
		return false
	}

	// A rule naming a package that no longer exists checks nothing: a
	// renamed package must be renamed in the rules too.
	for _, r := range rules {
		for _, p := range slices.Concat(r.from, r.to, r.allow) {
			found := false
			for path := range graph {
				if matches(path, []string{p}) {
					found = true
					break
				}
			}
			if !found {
				msgs = append(msgs, fmt.Sprintf("rule %q names %s, which is no longer in the import graph: update the rule", r.name, p))
			}
		}
	}

	used := make([]bool, len(exceptions))
	for _, r := range rules {
		for _, from := range sortedKeys(graph) {
			if !strings.HasPrefix(from, module+"/") || !matches(from, r.from) || matches(from, r.to) {
				continue
			}
			for _, chain := range forbidden(graph, from, func(p string) bool { return matches(p, r.to) && !matches(p, r.allow) }) {
				to := chain[len(chain)-1]
				if i := slices.IndexFunc(exceptions, func(e exception) bool { return e.from == rel(from) && e.to == rel(to) }); i >= 0 {
					used[i] = true
					continue
				}
				names := make([]string, len(chain))
				for i, p := range chain {
					names[i] = rel(p)
				}
				msgs = append(msgs, fmt.Sprintf("%s imports %s (%s): breaks %q: %s", rel(from), rel(to), strings.Join(names, " -> "), r.name, r.why))
			}
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			msgs = append(msgs, fmt.Sprintf("exception %s -> %s is no longer needed (%s): remove it from the list", e.from, e.to, e.why))
		}
	}
	return msgs
}

// forbidden walks the packages from depends on, breadth first, and returns
// the shortest chain of imports to each package bad reports, not walking on
// through a bad package.
func forbidden(graph map[string]pkg, from string, bad func(string) bool) [][]string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	var chains [][]string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range graph[p].Imports {
			if _, seen := parent[imp]; seen {
				continue
			}
			parent[imp] = p
			if bad(imp) {
				var chain []string
				for q := imp; q != ""; q = parent[q] {
					chain = append(chain, q)
				}
				slices.Reverse(chain)
				chains = append(chains, chain)
				continue
			}
			if !graph[imp].Standard {
				queue = append(queue, imp)
			}
		}
	}
	return chains
}

// importGraph runs go list at the module's root and returns the module path
// and every package the module's packages depend on, keyed by import path.
func importGraph(t *testing.T) (string, map[string]pkg) {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = root
	module, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m in %s: %v", root, err)
	}
	cmd = exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -json ./... in %s: %v\n%s", root, err, stderr.String())
	}
	graph := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		graph[p.ImportPath] = p
	}
	if len(graph) == 0 {
		t.Fatal("go list listed no packages")
	}
	return strings.TrimSpace(string(module)), graph
}

func sortedKeys(m map[string]pkg) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestTargetIsALeaf: package target imports only the standard library,
// so that every package (a job's spec, the intakes, the venues, the
// store's users) may hold a destination without depending on more.
func TestTargetIsALeaf(t *testing.T) {
	module, graph := importGraph(t)
	p, ok := graph[module+"/target"]
	if !ok {
		t.Fatal("target is not in the import graph")
	}
	for _, imp := range p.Imports {
		if q, ok := graph[imp]; !ok || !q.Standard {
			t.Errorf("target imports %s, which is not the standard library", imp)
		}
	}
}
