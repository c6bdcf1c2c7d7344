package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/job/child"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// The tests start perfbot worker and serve processes by running this test
// binary again with PERFBOT_TEST_PROCESS set to a JSON testProcess.
const processEnv = "PERFBOT_TEST_PROCESS"

// testProcess configures a service process started by a test.
type testProcess struct {
	Mode   Mode
	Name   string
	Driver string
	DSN    string
	// Posts is a file the fake poster appends one line per post to.
	Posts string
	// Comparison is the file the benchmark command prints after sleeping
	// Sleep.
	Comparison string
	Sleep      time.Duration
	Embedded   bool
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(processEnv); spec != "" {
		os.Exit(runTestProcess(spec))
	}
	os.Exit(m.Run())
}

func runTestProcess(spec string) int {
	var p testProcess
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg := servicetest.Config(p.Name, p.Driver, p.DSN, p.Embedded)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})).With("process", p.Name)
	svc, err := Open(ctx, cfg, p.Mode, Deps{
		Benchmarker: &child.Command{Argv: []string{"sh", "-c", fmt.Sprintf("sleep %g && cat %s", p.Sleep.Seconds(), p.Comparison)}},
		Poster:      &filePoster{path: p.Posts, name: p.Name},
		Logger:      log,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer svc.Close()
	if err := svc.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// filePoster records posts as lines "KEY<TAB>TARGET<TAB>PROCESS<TAB>STATE"
// appended to a file; it returns a link naming the key, as a venue that
// edits in place would.
type filePoster struct {
	mu   sync.Mutex
	path string
	name string
}

func (f *filePoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fh, err := os.OpenFile(f.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	if _, err := fmt.Fprintf(fh, "%s\t%s\t%s\t%s\n", msg.Key, to, f.name, msg.State); err != nil {
		return "", err
	}
	return "https://example.org/answer/" + msg.Key, fh.Sync()
}

func readPosts(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// writeComparison writes a small comparison as the benchmark command's
// output and returns its path.
func writeComparison(t *testing.T, dir string) string {
	t.Helper()
	c := compare.Comparison{
		Base: "base", Candidates: []string{"patch"},
		Rows: []compare.Row{{
			Benchmark: "BenchmarkScan", Params: bench.Params{{Name: "threads", Value: "4"}}, Unit: "ns/op",
			Base: &compare.Cell{Center: 100, N: 5},
			Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: 90, N: 5},
				DeltaPct: -10, Ratio: 0.9, P: 0.008, Alpha: 0.05, Verdict: compare.Better, Significant: true}},
		}},
		Summary: []compare.Tally{{Variant: "patch", Better: 1}},
		Provenance: provenance.Record{Sides: []provenance.Side{
			{Variant: "base", Ref: "main", Commit: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
			{Variant: "patch", Ref: "pull/1/head", Commit: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
		}},
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "comparison.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// proc is a started service process.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

func startProcess(t *testing.T, p testProcess) *proc {
	t.Helper()
	spec, _ := json.Marshal(p)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), processEnv+"="+string(spec))
	logFile, err := os.Create(filepath.Join(t.TempDir(), p.Name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr := &proc{name: p.Name, cmd: cmd, done: make(chan error, 1)}
	go func() { pr.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-pr.done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-pr.done
		}
		logFile.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logFile.Name())
			t.Logf("log of %s:\n%s", p.Name, data)
		}
	})
	return pr
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.done <- errors.New("killed") // for the cleanup's wait
}

// waitRun polls the store until the job's run satisfies ok, as long as
// the job progresses: it fails after idle passes with no CPU spent by
// child processes (workers, builds, benchmarks) and no change of the run's
// status, so a loaded host slows it down without failing it.
func waitRun(t *testing.T, st *store.Store, key string, idle time.Duration, what string, ok func(store.Run) bool) store.Run {
	t.Helper()
	var last []store.Run
	fetch := func() []store.Run {
		runs, err := st.RunsByKey(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) > 1 {
			t.Fatalf("job %s has %d runs, want 1", key, len(runs))
		}
		last = runs
		return runs
	}
	status := func() string {
		if len(last) == 0 {
			return ""
		}
		return last[0].Status
	}
	defer func() {
		if t.Failed() {
			t.Logf("runs of %s: %+v", key, last)
		}
	}()
	testwait.Until(t, idle, "the run of "+key+" to be "+what, func() bool {
		runs := fetch()
		return len(runs) == 1 && ok(runs[0])
	}, status)
	return last[0]
}
