package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestConfigRunnerMissingBubblewrap(t *testing.T) {
	missing := "/nonexistent/bwrap"
	tests := []struct {
		name        string
		cfg         Config
		wantLocal   bool
		wantWarning string
		wantErr     string
	}{
		{"refuse by default", Config{BwrapPath: missing}, false, "", "apt-get install bubblewrap"},
		{"refuse names --no-sandbox", Config{BwrapPath: missing, OnMissing: OnMissingRefuse}, false, "", "--no-sandbox"},
		{"warn", Config{BwrapPath: missing, OnMissing: OnMissingWarn}, true, "NOT sandboxed", ""},
		{"none", Config{Mode: ModeNone}, true, "sandbox is off", ""},
		{"bad mode", Config{Mode: "docker"}, false, "", `unknown mode "docker"`},
		{"bad policy", Config{OnMissing: "shrug"}, false, "", `unknown on-missing policy "shrug"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, warning, err := tt.cfg.Runner()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.(Local); ok != tt.wantLocal {
				t.Errorf("runner %T, want Local %v", r, tt.wantLocal)
			}
			if !strings.Contains(warning, tt.wantWarning) {
				t.Errorf("warning %q, want %q", warning, tt.wantWarning)
			}
		})
	}
}

func TestChooseBubblewrap(t *testing.T) {
	ok, why := Available()
	r, warning, err := Choose(ModeBubblewrap, OnMissingRefuse)
	if !ok {
		if err == nil {
			t.Fatalf("bubblewrap unavailable (%s) but Choose did not refuse", why)
		}
		t.Skipf("bubblewrap cannot run here: %s", why)
	}
	if err != nil || warning != "" {
		t.Fatalf("Choose: %v, %q", err, warning)
	}
	if _, isB := r.(*Bubblewrap); !isB {
		t.Errorf("Choose returned %T", r)
	}
}

func TestLocalLimits(t *testing.T) {
	// The timeout leaves a loaded machine time to write the 5000 bytes.
	res, err := Local{}.Run(context.Background(), Spec{Argv: []string{"/bin/sh", "-c", "head -c 5000 /dev/zero; sleep 60"},
		MaxOutput: 1000, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Limit != LimitTimeout || res.Dropped != 4000 || res.OK() {
		t.Errorf("Limit %q, Dropped %d, OK %v", res.Limit, res.Dropped, res.OK())
	}
	if !strings.Contains(res.Note, "timeout") || !strings.Contains(res.Note, "stdout cut at 1000 bytes, 4000 bytes dropped") {
		t.Errorf("Note = %q", res.Note)
	}
}

func TestLocalMemoryLimit(t *testing.T) {
	dir := worktree(t)
	probe := installHelper(t, dir)
	res := run(t, Local{}, Spec{Dir: dir, MemoryBytes: 64 << 20, Env: []string{helperEnv + "=alloc:512"}, Argv: []string{probe}})
	if res.OK() {
		t.Fatal("Local let the command allocate 512 MiB under a 64 MiB limit")
	}
	if res.Limit != LimitMemory && !strings.Contains(res.Note, "RLIMIT_DATA") {
		t.Errorf("Limit = %q, Note %q", res.Limit, res.Note)
	}
}

func TestLocalEscapedDaemonDoesNotHang(t *testing.T) {
	start := time.Now()
	res, err := Local{}.Run(context.Background(), Spec{Argv: []string{"/bin/sh", "-c", "setsid sleep 8 & echo started"},
		Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run waited %s for a daemon holding the output", d)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Stdout), "started") {
		t.Errorf("exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
}
