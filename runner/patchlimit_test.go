package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// patchWorktree opens a workspace of r and checks HEAD out into a
// worktree for a patch.
func patchWorktree(t *testing.T, r *gitrepo.Repo) (worktree, string) {
	t.Helper()
	cache := t.TempDir()
	ws, err := OpenWorkspace(context.Background(), r.Dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	wt, err := ws.checkout(context.Background(), "patch", r.Git("rev-parse", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	return wt, cache
}

// noFileOver fails when a file under dir is larger than max.
func noFileOver(t *testing.T, dir string, max int64) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > max {
			t.Errorf("%s: %d bytes on disk, over the %d-byte limit", p, fi.Size(), max)
		}
		return nil
	})
}

// refused checks that err is a *PatchError refusing the patch with a
// message that contains every one of want.
func refused(t *testing.T, err error, want ...string) {
	t.Helper()
	var pe *PatchError
	if !errors.As(err, &pe) || pe.Refused == "" {
		t.Fatalf("err = %v, want a *PatchError refusing the patch", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// binaryDiff is r.Patch for a plain diff, kept byte for byte: a binary
// hunk needs the blank line that ends it.
func binaryDiff(t *testing.T, r *gitrepo.Repo, files map[string]string) string {
	t.Helper()
	head := r.Git("rev-parse", "HEAD")
	r.Write(files)
	r.Git("add", "-A")
	cmd := exec.Command("git", "diff", "--cached", "--binary")
	cmd.Dir = r.Dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	r.Git("reset", "-q", "--hard", head)
	p := filepath.Join(t.TempDir(), "change.patch")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func randomBytes(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

// TestBinaryPatchOverTheFileSizeLimit: 8 MiB of zeros, a GIT binary patch
// literal of a few kilobytes, against a 1 MiB limit, as a plain diff and
// as a mail: refused before git runs, naming sandbox.max_file_size, and
// nothing large is written.
func TestBinaryPatchOverTheFileSizeLimit(t *testing.T) {
	for _, mail := range []bool{false, true} {
		r := gitrepo.New(t)
		r.Commit("one", map[string]string{"README": "one\n"})
		files := map[string]string{"zeros.bin": strings.Repeat("\x00", 8<<20)}
		patch := binaryDiff(t, r, files)
		if mail {
			patch = r.Patch("zeros", files, true)
		}
		if fi, _ := os.Stat(patch); fi.Size() > 64<<10 {
			t.Fatalf("the patch is %d bytes, want a small one", fi.Size())
		}
		wt, cache := patchWorktree(t, r)
		_, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFileSize: 1 << 20})
		refused(t, err, "zeros.bin", "literal 8388608", "8 MiB", "1 MiB", "sandbox.max_file_size")
		noFileOver(t, cache, 1<<20)
		noFileOver(t, wt.dir, 1<<20)
	}
}

// TestBinaryDeltaOverTheFileSizeLimit: a 64 KiB random file made 200
// times longer is a small binary delta that makes a 12.5 MiB file.
func TestBinaryDeltaOverTheFileSizeLimit(t *testing.T) {
	r := gitrepo.New(t)
	base := randomBytes(64 << 10)
	r.Commit("one", map[string]string{"data.bin": base})
	patch := binaryDiff(t, r, map[string]string{"data.bin": strings.Repeat(base, 200)})
	data, _ := os.ReadFile(patch)
	if !bytes.Contains(data, []byte("\ndelta ")) || len(data) > 64<<10 {
		t.Fatalf("want a small patch with a binary delta, got %d bytes:\n%.300s", len(data), data)
	}
	wt, cache := patchWorktree(t, r)
	_, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFileSize: 1 << 20})
	refused(t, err, "data.bin", "delta makes a file of 12.5 MiB", "sandbox.max_file_size")
	noFileOver(t, cache, 1<<20)
}

// TestBinaryPatchWithinTheLimitsApplies: an ordinary binary file, added
// and changed, still applies under the limits.
func TestBinaryPatchWithinTheLimitsApplies(t *testing.T) {
	r := gitrepo.New(t)
	base := randomBytes(96 << 10)
	r.Commit("one", map[string]string{"data.bin": base})
	changed := base[:50000] + "patched" + base[50000:]
	patch := r.Patch("binary", map[string]string{"data.bin": changed, "new.bin": randomBytes(100 << 10)}, true)
	wt, _ := patchWorktree(t, r)
	if _, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFileSize: 1 << 20, Memory: 256 << 20}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(wt.dir, "data.bin"))
	if err != nil || string(got) != changed {
		t.Errorf("data.bin: %d bytes (%v), want the patched %d", len(got), err, len(changed))
	}
	if fi, err := os.Stat(filepath.Join(wt.dir, "new.bin")); err != nil || fi.Size() != 100<<10 {
		t.Errorf("new.bin: %v %v", fi, err)
	}
}

// base64Mail re-encodes a format-patch mail's body in base64, which hides
// its hunks from any scan of the raw text; git am decodes it.
func base64Mail(t *testing.T, patch string) string {
	t.Helper()
	data, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		t.Fatalf("no body in %s", patch)
	}
	var b strings.Builder
	for line := range strings.Lines(string(head) + "\n") {
		if !strings.HasPrefix(line, "Content-Transfer-Encoding:") {
			b.WriteString(line)
		}
	}
	b.WriteString("Content-Transfer-Encoding: base64\n\n")
	enc := base64.StdEncoding.EncodeToString(body)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n")
	out := filepath.Join(t.TempDir(), "hidden.patch")
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHiddenBinaryPatchStoppedByRlimits: the same patches encoded in
// base64 pass the scan; git am then runs into its rlimits, and the
// error names the limit.
func TestHiddenBinaryPatchStoppedByRlimits(t *testing.T) {
	t.Run("file size", func(t *testing.T) {
		r := gitrepo.New(t)
		r.Commit("one", map[string]string{"README": "one\n"})
		patch := base64Mail(t, r.Patch("zeros", map[string]string{"zeros.bin": strings.Repeat("\x00", 8<<20)}, true))
		wt, cache := patchWorktree(t, r)
		_, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFileSize: 1 << 20})
		refused(t, err, "larger than 1 MiB", "sandbox.max_file_size")
		noFileOver(t, cache, 1<<20)
	})
	t.Run("memory", func(t *testing.T) {
		r := gitrepo.New(t)
		r.Commit("one", map[string]string{"README": "one\n"})
		patch := base64Mail(t, r.Patch("zeros", map[string]string{"zeros.bin": strings.Repeat("\x00", 64<<20)}, true))
		wt, cache := patchWorktree(t, r)
		_, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFileSize: 1 << 30, Memory: 32 << 20})
		refused(t, err, "32 MiB", "sandbox.memory")
		noFileOver(t, cache, 1<<20)
	})
}

// TestPatchOverTheFileCount: a patch touching more files than
// sandbox.max_patch_files allows is refused.
func TestPatchOverTheFileCount(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"README": "one\n"})
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n] = n + "\n"
	}
	patch := r.Patch("five files", files, false)
	wt, _ := patchWorktree(t, r)
	_, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFiles: 3})
	refused(t, err, "more than 3 files", "sandbox.max_patch_files")
	if _, err := applyPatch(context.Background(), wt, patch, PatchLimits{MaxFiles: 5}); err != nil {
		t.Errorf("five files under a limit of 5: %v", err)
	}
}

// TestPatchCopiesOverTheMemoryLimit: a few lines of "copy from" make git
// read and write a repository file once per copy.
func TestPatchCopiesOverTheMemoryLimit(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"big": strings.Repeat("x\n", 2<<20)})
	var p strings.Builder
	for i := range 4 {
		c := "copy" + string(rune('0'+i))
		p.WriteString("diff --git a/big b/" + c + "\nsimilarity index 100%\ncopy from big\ncopy to " + c + "\n")
	}
	patch := filepath.Join(t.TempDir(), "copies.patch")
	os.WriteFile(patch, []byte(p.String()), 0o644)
	wt, _ := patchWorktree(t, r)
	_, err := applyPatch(context.Background(), wt, patch, PatchLimits{Memory: 12 << 20})
	refused(t, err, "16 MiB", "12 MiB", "sandbox.memory")
	if _, err := applyPatch(context.Background(), wt, patch, PatchLimits{Memory: 128 << 20}); err != nil {
		t.Errorf("four copies of 4 MiB under 128 MiB: %v", err)
	}
}

// TestScanPatchHunkCountsHideNothing: a hunk header that claims more lines
// than follow does not hide the binary hunk after it from the scan.
func TestScanPatchHunkCountsHideNothing(t *testing.T) {
	patch := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,1 +1,999999 @@\n-a\n+b\n" +
		"diff --git a/z b/z\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 999999999\nzcmeIu0Sy2E0K%a6Pi+o2h(KY$fB^#r3>YwAz<>b*1`HT5V8DO@0|pEjFkrxd0RsjM7%*VK\n\nliteral 0\nHcmV?d00001\n\n"
	_, err := scanPatch([]byte(patch), PatchLimits{}.orDefault())
	if err == nil || !strings.Contains(err.Error(), "z: GIT binary patch literal 999999999") {
		t.Errorf("err = %v, want the literal of z refused", err)
	}
}

// FuzzScanPatch: any input is scanned without a panic.
func FuzzScanPatch(f *testing.F) {
	f.Add([]byte("diff --git a/z b/z\nGIT binary patch\ndelta 12\nzcmV?d00001\n\n"))
	f.Add([]byte("@@ -1 +1 @@\n-a\n+b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = scanPatch(data, PatchLimits{MaxFileSize: 1 << 20}.orDefault())
	})
}
