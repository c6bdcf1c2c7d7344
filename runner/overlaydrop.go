package runner

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/internal/safefile"
)

// overlayFile is a patch's benchmark file laid over the baseline, with
// what the baseline had there before.
type overlayFile struct {
	// path is the file's slash path in the worktree.
	path string
	// orig is the baseline's own version; added is set when the
	// baseline had none.
	orig  []byte
	added bool
}

// overlay is what one patch laid over the baseline's worktree.
type overlay struct {
	// patch names the patch as the user gave it.
	patch string
	files []overlayFile
	// note is the warning that lists the files laid over; it is
	// rewritten when files are taken back.
	note string
}

// in returns the files laid over the package directory rel (a path
// relative to the worktree, "." for its top).
func (o *overlay) in(rel string) []overlayFile {
	if o == nil {
		return nil
	}
	rel = path.Clean(filepath.ToSlash(rel))
	var fs []overlayFile
	for _, f := range o.files {
		if path.Dir(f.path) == rel {
			fs = append(fs, f)
		}
	}
	return fs
}

// takeBack puts the baseline's own version of files back in the worktree
// (or removes a file the baseline did not have) and rewrites the overlay's
// note in out to list only the files still laid over. It returns whether
// the files' directory is left without Go files, as when the patch adds a
// new package with its benchmark.
func (o *overlay) takeBack(worktree string, files []overlayFile, baseName string, out *Outcome) (empty bool, err error) {
	for _, f := range files {
		if f.added {
			err = safefile.Remove(worktree, f.path)
		} else {
			err = safefile.WriteFile(worktree, f.path, f.orig, 0o644)
		}
		if err != nil {
			return false, fmt.Errorf("take %s back from the baseline: %w", f.path, err)
		}
		o.files = slices.DeleteFunc(o.files, func(g overlayFile) bool { return g.path == f.path })
	}
	if i := slices.Index(out.Warnings, o.note); i >= 0 && o.note != "" {
		if len(o.files) == 0 {
			out.Warnings = slices.Delete(out.Warnings, i, i+1)
			o.note = ""
		} else {
			o.note = overlayNote(o.patch, baseName, o.files)
			out.Warnings[i] = o.note
		}
	}
	if len(files) == 0 {
		return false, nil
	}
	dir, err := safefile.OpenDir(worktree, path.Dir(files[0].path))
	if err != nil {
		return true, nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	for _, name := range names {
		if strings.HasSuffix(name, ".go") {
			return false, nil
		}
	}
	return true, nil
}

// overlayNote is the warning listing the files a patch laid over the
// baseline.
func overlayNote(patch, baseName string, files []overlayFile) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.path
	}
	return fmt.Sprintf("benchmark files from %s also laid over %s so both sides run them: %s", patch, baseName, strings.Join(names, ", "))
}

// notLaidOverNote is the sentence that tells the reader why a patch's
// benchmark files have no baseline: they did not build there.
func notLaidOverNote(files []overlayFile, baseName, why string, newPackage bool) string {
	names := make([]string, len(files))
	added := true
	for i, f := range files {
		names[i] = f.path
		added = added && f.added
	}
	what, it := "benchmark file "+names[0]+" does", "it"
	if len(names) > 1 {
		what, it = "benchmark files "+strings.Join(names, ", ")+" do", "them"
	}
	var rest string
	switch {
	case newPackage:
		rest = "the package is new in the patch, so its benchmarks ran on the patch only and show as new"
	case added:
		rest = fmt.Sprintf("the benchmarks in %s ran on the patch only and show as new; the rest of the package was compared", it)
	default:
		rest = fmt.Sprintf("%s ran its own version of %s, and benchmarks only the patch has show as new", baseName, it)
	}
	return fmt.Sprintf("The patch's %s not build on %s (%s), so %s not laid over %s: %s.", what, baseName, why, map[bool]string{true: "they were", false: "it was"}[len(names) > 1], baseName, rest)
}

// goError matches a compiler message: "file.go:12:3: undefined: x".
var goError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(\S+\.go):(\d+)(?::\d+)?: (.+)$`) })

// anyError matches another compiler's error line, such as javac's or
// Maven's "[ERROR] Foo.java:[12,5] cannot find symbol".
var anyError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?mi)^.*\berror\b.*$`) })

// firstCompileError is the first compiler message of a failed build's
// output, its file named relative to the worktree, cut to one short
// line; failing that, the first line that says "error", or the first
// that is not a "# package" header.
// dir is the directory the build ran in.
func firstCompileError(output, worktree, dir string) string {
	msg := ""
	if m := goError().FindStringSubmatch(output); m != nil {
		msg = fmt.Sprintf("%s:%s: %s", relFile(m[1], worktree, dir), m[2], m[3])
	} else if m := anyError().FindString(output); m != "" {
		msg = strings.TrimSpace(m)
	} else {
		for _, l := range strings.Split(output, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				msg = l
				break
			}
		}
	}
	msg = strings.ReplaceAll(msg, worktree+string(filepath.Separator), "")
	msg = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, msg)
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "..."
	}
	if msg == "" {
		msg = "the build failed without a message"
	}
	return msg
}

// dropOverlay is called when the package in directory rel of side s (the
// baseline) failed to build with output, the build run in the directory
// dir: the patches' benchmark files laid over that package are taken
// back. It returns a sentence per patch that says why (none when no file
// was laid over the package; the caller builds it again otherwise and
// adds them with addNotes if it builds) and whether the package is then
// gone from the side, as one the patch adds.
// An empty rel takes back every file laid over the side, as for a
// suite whose one build command builds the whole tree.
func (s *side) dropOverlay(rel, dir, output string, out *Outcome) (notes []string, gone bool, err error) {
	var files []overlayFile
	newPackage := true
	for _, o := range s.overlays {
		fs := o.in(rel)
		if rel == "" {
			fs = slices.Clone(o.files)
		}
		if len(fs) == 0 {
			continue
		}
		// Only the files the compiler names, when it names some: a
		// file beside them that builds stays laid over.
		named := compileErrorFiles(output, s.worktree, dir)
		if some := slices.DeleteFunc(slices.Clone(fs), func(f overlayFile) bool { return !named[f.path] }); len(some) > 0 {
			fs = some
		}
		why := firstCompileError(output, s.worktree, dir)
		for _, m := range goError().FindAllStringSubmatch(output, -1) {
			if slices.ContainsFunc(fs, func(f overlayFile) bool { return f.path == relFile(m[1], s.worktree, dir) }) {
				why = firstCompileError(m[0], s.worktree, dir)
				break
			}
		}
		empty, err := o.takeBack(s.worktree, fs, s.name, out)
		if err != nil {
			return nil, false, err
		}
		empty = empty && rel != ""
		files = append(files, fs...)
		newPackage = newPackage && empty
		notes = append(notes, notLaidOverNote(fs, s.name, why, empty))
	}
	return notes, len(files) > 0 && newPackage, nil
}

// addNotes adds the notes of dropOverlay to out once the side builds
// without the files, and prints them to progress (nil: nowhere).
func addNotes(notes []string, out *Outcome, progress io.Writer) {
	for _, n := range notes {
		if !slices.Contains(out.Warnings, n) {
			out.Warnings = append(out.Warnings, n)
			if progress != nil {
				fmt.Fprintf(progress, "perfbot: %s\n", n)
			}
		}
	}
}

// relFile names a file of a compiler message (relative to dir, where the
// build ran, or absolute) by its slash path in the worktree, when it is
// in the worktree.
func relFile(file, worktree, dir string) string {
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	if rel, err := filepath.Rel(worktree, file); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return file
}

// compileErrorFiles are the files the compiler messages of output name,
// by their slash paths in the worktree.
func compileErrorFiles(output, worktree, dir string) map[string]bool {
	files := map[string]bool{}
	for _, m := range goError().FindAllStringSubmatch(output, -1) {
		files[relFile(m[1], worktree, dir)] = true
	}
	return files
}
