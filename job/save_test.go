package job

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// TestCandidateSubject names a saved command-line run by its patch's
// subject, else by the subject of its head commit in a local clone.
func TestCandidateSubject(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.org",
		"commit", "-q", "--allow-empty", "-m", "wal: buffer appends <64 KiB>\n\nThe body."}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	sides := func(cand provenance.Side) *compare.Comparison {
		cand.Variant = "cand"
		return &compare.Comparison{Base: "base", Provenance: provenance.Record{Sides: []provenance.Side{{Variant: "base", Commit: "0000"}, cand}}}
	}
	if got := CandidateSubject(ctx, dir, sides(provenance.Side{Commit: strings.TrimSpace(string(head))})); got != "wal: buffer appends <64 KiB>" {
		t.Errorf("head's subject = %q", got)
	}
	if got := CandidateSubject(ctx, dir, sides(provenance.Side{Commit: "abc", PatchSubject: "scan: check twice"})); got != "scan: check twice" {
		t.Errorf("patch's subject = %q", got)
	}
	if got := CandidateSubject(ctx, dir, sides(provenance.Side{Commit: "1234567890abcdef"})); got != "" {
		t.Errorf("a commit the clone lacks = %q", got)
	}
	if got := CandidateSubject(ctx, "", sides(provenance.Side{Commit: strings.TrimSpace(string(head))})); got != "" {
		t.Errorf("no local clone = %q", got)
	}
}
