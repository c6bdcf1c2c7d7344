package safefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// tree builds a directory with every kind of file ReadFile must refuse.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("token"), 0o600))
	must(os.MkdirAll(filepath.Join(root, "pkg", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "pkg", "ok_test.go"), []byte("package pkg\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "pkg", "sub", "deep.txt"), []byte("deep\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "big.json"), bytes.Repeat([]byte("x"), 2048), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(root, "zero_test.go")))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "secret.json")))
	must(os.Symlink("ok_test.go", filepath.Join(root, "pkg", "relative_test.go")))
	must(os.Symlink(outside, filepath.Join(root, "linkdir")))
	must(os.Symlink("pkg", filepath.Join(root, "innerlink")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "hardlink.json")))
	return root, outside
}

func TestReadFile(t *testing.T) {
	root, _ := tree(t)
	cases := []struct {
		name    string
		file    string
		limit   int64
		want    string
		problem string
		is      error
	}{
		{name: "regular file", file: "pkg/ok_test.go", limit: MaxSource, want: "package pkg\n"},
		{name: "nested regular file", file: "pkg/sub/deep.txt", limit: MaxSource, want: "deep\n"},
		{name: "dot components", file: "./pkg/./ok_test.go", limit: MaxSource, want: "package pkg\n"},
		{name: "at the limit", file: "big.json", limit: 2048, want: strings.Repeat("x", 2048)},
		{name: "over the limit", file: "big.json", limit: 1024, problem: "big.json: is 2 KiB, more than the 1 KiB perfbot reads of such a file", is: ErrTooLarge},
		{name: "symlink to /dev/zero", file: "zero_test.go", limit: MaxSource, problem: "zero_test.go: is a symbolic link to /dev/zero; perfbot reads only regular files a patch adds", is: ErrNotRegular},
		{name: "symlink out of the tree", file: "secret.json", limit: MaxResult, problem: "is a symbolic link to ", is: ErrNotRegular},
		{name: "symlink within the tree", file: "pkg/relative_test.go", limit: MaxSource, problem: "pkg/relative_test.go: is a symbolic link to ok_test.go", is: ErrNotRegular},
		{name: "symlinked directory out of the tree", file: "linkdir/secret", limit: MaxResult, problem: "linkdir/secret: linkdir on its way is a symbolic link to ", is: ErrNotRegular},
		{name: "symlinked directory within the tree", file: "innerlink/ok_test.go", limit: MaxSource, problem: "innerlink on its way is a symbolic link to pkg", is: ErrNotRegular},
		{name: "directory", file: "pkg", limit: MaxSource, problem: "pkg: is a directory; perfbot reads only regular files", is: ErrNotRegular},
		{name: "named pipe", file: "fifo", limit: MaxSource, problem: "fifo: is a named pipe; perfbot reads only regular files", is: ErrNotRegular},
		{name: "hard link", file: "hardlink.json", limit: MaxResult, problem: "hardlink.json: has 2 hard links; perfbot reads only files with one", is: ErrNotRegular},
		{name: "dot dot", file: "../secret", limit: MaxResult, problem: `../secret: climbs out of the tree with ".."`},
		{name: "dot dot inside", file: "pkg/../../secret", limit: MaxResult, problem: `climbs out of the tree`},
		{name: "absolute", file: "/etc/passwd", limit: MaxResult, problem: "/etc/passwd: is an absolute path"},
		{name: "empty", file: "", limit: MaxResult, problem: ": is empty"},
		{name: "missing", file: "pkg/none.go", limit: MaxResult, problem: "pkg/none.go: does not exist", is: os.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := ReadFile(root, c.file, c.limit)
			if c.problem == "" {
				if err != nil {
					t.Fatalf("ReadFile(%q) = %v", c.file, err)
				}
				if string(data) != c.want {
					t.Fatalf("ReadFile(%q) = %q, want %q", c.file, data, c.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ReadFile(%q) = %q, want an error containing %q", c.file, data, c.problem)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("error %v is a %T, want *safefile.Error", err, err)
			}
			if !strings.Contains(err.Error(), c.problem) {
				t.Errorf("error %q does not say %q", err, c.problem)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
		})
	}
}

// TestWalkRefusesLinks checks the fallback for kernels without openat2
// against the same links.
func TestWalkRefusesLinks(t *testing.T) {
	root, _ := tree(t)
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, name := range []string{"zero_test.go", "secret.json", "linkdir/secret", "innerlink/ok_test.go"} {
		if f, err := walk(fd, name, unix.O_RDONLY); err == nil {
			unix.Close(f)
			t.Errorf("walk opened %s through a symbolic link", name)
		} else if msg := describe(root, name, err).Error(); !strings.Contains(msg, "symbolic link") {
			t.Errorf("walk %s: %q does not name the link", name, msg)
		}
	}
	f, err := walk(fd, "pkg/sub/deep.txt", unix.O_RDONLY)
	if err != nil {
		t.Fatalf("walk refused a regular file: %v", err)
	}
	unix.Close(f)
}

func TestWriteFile(t *testing.T) {
	root, outside := tree(t)
	cases := []struct {
		name    string
		file    string
		problem string
	}{
		{name: "new file in new directories", file: "new/dir/bench_test.go"},
		{name: "replaces a regular file", file: "pkg/ok_test.go"},
		{name: "replaces a symlink instead of writing through it", file: "secret.json"},
		{name: "replaces a hard link instead of writing through it", file: "hardlink.json"},
		{name: "symlinked directory on the way", file: "linkdir/secret", problem: "linkdir on its way is a symbolic link"},
		{name: "dot dot", file: "pkg/../../x", problem: "climbs out of the tree"},
		{name: "absolute", file: "/tmp/x", problem: "is an absolute path"},
		{name: "directory in the way", file: "pkg/sub", problem: "cannot replace what is there"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := WriteFile(root, c.file, []byte("written\n"), 0o644)
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("WriteFile(%q) = %v, want an error containing %q", c.file, err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(filepath.Join(root, c.file))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s is not a regular file after the write: %v %v", c.file, fi, err)
			}
			if data, _ := ReadFile(root, c.file, MaxSource); string(data) != "written\n" {
				t.Errorf("%s = %q after the write", c.file, data)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "token" {
		t.Errorf("a write went through a link: the file outside the tree reads %q", data)
	}
}

func TestRemove(t *testing.T) {
	root, outside := tree(t)
	for _, c := range []struct {
		name, file, problem string
	}{
		{name: "regular file", file: "pkg/ok_test.go"},
		{name: "a link itself, not its target", file: "secret.json"},
		{name: "missing file", file: "pkg/none_test.go"},
		{name: "missing directory", file: "none/x_test.go"},
		{name: "symlinked directory on the way", file: "linkdir/secret", problem: "linkdir on its way is a symbolic link"},
		{name: "dot dot", file: "pkg/../../x", problem: "climbs out of the tree"},
		{name: "directory", file: "pkg/sub", problem: "cannot remove"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Remove(root, c.file)
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("Remove(%q) = %v, want an error containing %q", c.file, err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(filepath.Join(root, c.file)); !os.IsNotExist(err) {
				t.Errorf("%s is still there: %v", c.file, err)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "token" {
		t.Errorf("the file outside the tree reads %q after the removals", data)
	}
}
