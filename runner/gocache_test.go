package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLayerReplaceWaitsForCopies: while a job copies the trusted layer
// (holding its lock shared), another job's new layer waits to replace it, so
// no copy mixes the old layer's index with the new one's outputs; once the
// copy is done the new layer takes its place and the old one is removed.
func TestLayerReplaceWaitsForCopies(t *testing.T) {
	dir := t.TempDir()
	c := &jobCaches{std: filepath.Join(dir, "go-std")}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(c.std, "ab", "ab01-a"), "old index")
	built := filepath.Join(dir, ".go-std-1", "cache")
	write(filepath.Join(built, "cd", "cd02-a"), "new index")

	copying, err := c.lockLayer(syscall.LOCK_SH)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.replaceLayer(built, filepath.Join(dir, ".go-std-1-old")) }()
	select {
	case err := <-done:
		t.Fatalf("the layer was replaced (err %v) while a copy held it", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(c.std, "ab", "ab01-a")); err != nil {
		t.Fatalf("the layer being copied changed: %v", err)
	}
	copying.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the new layer never replaced the old one after the copy ended")
	}
	if _, err := os.Stat(filepath.Join(c.std, "cd", "cd02-a")); err != nil {
		t.Errorf("the new layer is not in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".go-std-1-old")); !os.IsNotExist(err) {
		t.Errorf("the old layer was not removed: %v", err)
	}
	dst := filepath.Join(dir, "side")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.copyLayer(dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "cd", "cd02-a")); err != nil {
		t.Errorf("a copy after the swap lacks the new layer: %v", err)
	}
}
