package safefile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOpenDir(t *testing.T) {
	root, outside := tree(t)
	for _, c := range []struct{ name, problem string }{
		{name: ""},
		{name: "pkg"},
		{name: "pkg/sub"},
		{name: "linkdir", problem: "linkdir: is a symbolic link to " + outside + "; perfbot follows no links in the tree"},
		{name: "linkdir/sub", problem: "linkdir on its way is a symbolic link to " + outside},
		{name: "innerlink/sub", problem: "innerlink on its way is a symbolic link to pkg"},
		{name: "pkg/../..", problem: `climbs out of the tree with ".."`},
		{name: "/etc", problem: "is an absolute path"},
		{name: "pkg/ok_test.go", problem: "not a directory"},
		{name: "none", problem: "does not exist"},
	} {
		f, err := OpenDir(root, c.name)
		if c.problem == "" {
			if err != nil {
				t.Errorf("OpenDir(%q) = %v", c.name, err)
			} else {
				f.Close()
			}
			continue
		}
		if err == nil {
			f.Close()
			t.Errorf("OpenDir(%q) opened it, want %q", c.name, c.problem)
		} else if !strings.Contains(err.Error(), c.problem) {
			t.Errorf("OpenDir(%q) = %v, want %q", c.name, err, c.problem)
		}
	}
	// An absolute path with a link anywhere names the link absolutely.
	_, err := OpenAbsDir(filepath.Join(root, "linkdir", "sub"))
	if want := filepath.Join(root, "linkdir") + " on its way is a symbolic link to " + outside; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("OpenAbsDir through a link = %v, want %q", err, want)
	}
	if f, err := OpenAbsDir(filepath.Join(root, "pkg", "sub")); err != nil {
		t.Errorf("OpenAbsDir of a real directory: %v", err)
	} else {
		f.Close()
	}
}

func TestWalkStaysInside(t *testing.T) {
	root, outside := tree(t)
	if err := os.WriteFile(filepath.Join(outside, "other"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenDir(root, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seen []string
	err = Walk(f, func(e *Entry) error {
		seen = append(seen, e.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".", "pkg", "pkg/sub", "pkg/sub/deep.txt", "linkdir", "innerlink", "fifo"} {
		if !slices.Contains(seen, want) {
			t.Errorf("Walk did not visit %s: %q", want, seen)
		}
	}
	for _, p := range seen {
		if strings.HasPrefix(p, "linkdir/") || strings.HasPrefix(p, "innerlink/") {
			t.Errorf("Walk went through a symbolic link: %s", p)
		}
	}
}

func TestMkdirAll(t *testing.T) {
	root, outside := tree(t)
	if err := MkdirAll(root, "pkg/new/deeper"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "pkg/new/deeper")); err != nil || !fi.IsDir() {
		t.Errorf("pkg/new/deeper: %v, %v", fi, err)
	}
	if err := MkdirAll(root, "pkg/sub"); err != nil {
		t.Errorf("an existing directory: %v", err)
	}
	for name, problem := range map[string]string{
		"linkdir/made":   "linkdir on its way is a symbolic link to " + outside,
		"linkdir":        "is a symbolic link to " + outside,
		"innerlink/made": "innerlink on its way is a symbolic link to pkg",
		"../up":          "climbs out of the tree",
	} {
		if err := MkdirAll(root, name); err == nil || !strings.Contains(err.Error(), problem) {
			t.Errorf("MkdirAll(%q) = %v, want %q", name, err, problem)
		}
	}
	if _, err := os.Lstat(filepath.Join(outside, "made")); err == nil {
		t.Error("MkdirAll made a directory through a symbolic link")
	}
}
