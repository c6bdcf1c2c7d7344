package service

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
)

// PathRoot is a host path and the neutral name that stands for it in
// answers. A "*" in Path matches one path element, so that
// "/var/cache/perfbot/repos/*/wt/*" names every worktree.
type PathRoot struct {
	Path string
	Name string
}

// HostPaths are the host paths that answers must not show: perfbot's
// worktrees, cached clones and cache directory under cacheDir, the perfbot
// binary, the temporary directory and the home directory.
func HostPaths(cacheDir string) []PathRoot {
	var roots []PathRoot
	if cacheDir != "" {
		roots = append(roots,
			PathRoot{filepath.Join(cacheDir, "repos", "*", "wt", "*"), "<worktree>"},
			PathRoot{filepath.Join(cacheDir, "repos", "*", "repo.git"), "<repository>"},
			PathRoot{cacheDir, "<cache>"})
	}
	if exe, err := os.Executable(); err == nil {
		roots = append(roots, PathRoot{exe, "<perfbot>"})
	}
	roots = append(roots, PathRoot{os.TempDir(), "<tmp>"})
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, PathRoot{home, "<home>"})
	}
	return roots
}

// DefaultCacheDir is the cache directory "perfbot compare" uses when none
// is given: the user's cache directory's perfbot folder.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "perfbot")
}

// Scrubber replaces host paths in the text of answers with neutral names
// ("<worktree>/pkg/x_test.go:12"): a failure posted on a pull request
// tells its reader what failed, not how the host is laid out. A nil
// *Scrubber changes nothing.
type Scrubber struct {
	roots []scrubRoot
}

type scrubRoot struct {
	re   *regexp.Regexp
	name string
}

// NewScrubber returns a Scrubber for roots. Relative paths and "/" are
// skipped; a root that is a symbolic link is matched in both spellings;
// the longest roots are replaced first, so a worktree inside the cache
// directory is named as a worktree.
func NewScrubber(roots ...PathRoot) *Scrubber {
	seen := map[string]bool{}
	var all []PathRoot
	add := func(r PathRoot) {
		r.Path = filepath.Clean(r.Path)
		if !filepath.IsAbs(r.Path) || r.Path == "/" || seen[r.Path] {
			return
		}
		seen[r.Path] = true
		all = append(all, r)
	}
	for _, r := range roots {
		if r.Path == "" {
			continue
		}
		add(r)
		// The fixed start of the path, resolved: /tmp may be /private/tmp.
		dir, _, glob := strings.Cut(r.Path, "*")
		if glob {
			dir = filepath.Dir(dir)
		}
		if real := resolve(dir); real != dir {
			add(PathRoot{real + strings.TrimPrefix(r.Path, dir), r.Name})
		}
	}
	slices.SortStableFunc(all, func(a, b PathRoot) int { return len(b.Path) - len(a.Path) })
	s := &Scrubber{}
	for _, r := range all {
		parts := strings.Split(r.Path, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		s.roots = append(s.roots, scrubRoot{re: regexp.MustCompile(strings.Join(parts, `[^/\s"'<>|:;,()\[\]{}]+`)), name: r.Name})
	}
	return s
}

// resolve resolves the symbolic links in the longest part of path that
// exists.
func resolve(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// pathByte reports whether c can continue a path element, so that a root
// is replaced only where it ends a whole element: /tmp in "/tmp/x" and
// "/tmp: no space", not in "/tmpfoo" or "/var/tmp".
func pathByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c == '~' || c == '+' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// String returns text with every root replaced by its name.
func (s *Scrubber) String(text string) string {
	if s == nil {
		return text
	}
	for _, r := range s.roots {
		if !strings.Contains(text, "/") {
			break
		}
		var b strings.Builder
		last := 0
		for _, m := range r.re.FindAllStringIndex(text, -1) {
			if m[0] > 0 && (pathByte(text[m[0]-1]) || text[m[0]-1] == '/') {
				continue
			}
			if m[1] < len(text) && pathByte(text[m[1]]) {
				continue
			}
			b.WriteString(text[last:m[0]])
			b.WriteString(r.name)
			last = m[1]
		}
		if last > 0 {
			b.WriteString(text[last:])
			text = b.String()
		}
	}
	return text
}

func (s *Scrubber) strings(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = s.String(v)
	}
	return out
}

// Comparison returns a copy of cmp whose free text (failures, their log
// tails, warnings, benchmark names and the provenance's repository,
// patches, files and commands) is scrubbed; the measurements are shared,
// not copied.
func (s *Scrubber) Comparison(cmp *compare.Comparison) *compare.Comparison {
	if s == nil || cmp == nil {
		return cmp
	}
	c := *cmp
	c.Failures = slices.Clone(cmp.Failures)
	for i := range c.Failures {
		f := &c.Failures[i]
		f.Message, f.LogTail = s.String(f.Message), s.String(f.LogTail)
	}
	c.Warnings = s.strings(cmp.Warnings)
	c.Rows = slices.Clone(cmp.Rows)
	for i := range c.Rows {
		c.Rows[i].Benchmark, c.Rows[i].Group = s.String(c.Rows[i].Benchmark), s.String(c.Rows[i].Group)
	}
	p := &c.Provenance
	p.Repo = s.String(p.Repo)
	p.Sides = slices.Clone(p.Sides)
	for i := range p.Sides {
		sd := &p.Sides[i]
		sd.Patch, sd.Settings, sd.Files = s.String(sd.Patch), s.strings(sd.Settings), s.strings(sd.Files)
	}
	p.Suites = slices.Clone(p.Suites)
	for i := range p.Suites {
		p.Suites[i].Commands = s.strings(p.Suites[i].Commands)
	}
	p.Host.Toolchain = s.strings(p.Host.Toolchain)
	return &c
}

// Message returns msg with its texts scrubbed, and its text attachments.
func (s *Scrubber) Message(msg answer.Answer) answer.Answer {
	if s == nil {
		return msg
	}
	msg = msg.Map(s.String)
	msg.Attachments = slices.Clone(msg.Attachments)
	for i, a := range msg.Attachments {
		if strings.HasPrefix(a.ContentType, "text/") || strings.HasPrefix(a.ContentType, "application/json") {
			if b := []byte(s.String(string(a.Data))); !bytes.Equal(b, a.Data) {
				msg.Attachments[i].Data = b
			}
		}
	}
	return msg
}
