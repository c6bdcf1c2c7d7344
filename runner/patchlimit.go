package runner

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PatchLimits bound what applying a patch may make on the host, where git
// apply and git am run as perfbot itself, outside the sandbox: a few
// megabytes of patch can declare a compressed binary file of gigabytes.
// A zero field takes its default.
type PatchLimits struct {
	// MaxFileSize is the largest file the patch may make
	// (sandbox.max_file_size; default DefaultPatchMaxFileSize): each
	// binary hunk's declared size is checked before git runs, and git
	// runs under RLIMIT_FSIZE.
	MaxFileSize int64
	// Memory bounds what git may hold while it applies the patch
	// (sandbox.memory; default DefaultPatchMemory): the binary hunks
	// and copied files, all of which git holds at once, must fit, and
	// git runs under RLIMIT_DATA.
	Memory int64
	// MaxFiles is the most files a patch may touch
	// (sandbox.max_patch_files; default DefaultPatchMaxFiles).
	MaxFiles int
}

// The limits on applying a patch where the config sets none.
const (
	DefaultPatchMaxFileSize = 256 << 20
	DefaultPatchMemory      = 2 << 30
	DefaultPatchMaxFiles    = 10000
)

// orDefault fills the fields left zero.
func (l PatchLimits) orDefault() PatchLimits {
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = DefaultPatchMaxFileSize
	}
	if l.Memory <= 0 {
		l.Memory = DefaultPatchMemory
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultPatchMaxFiles
	}
	return l
}

// patchShape is what a scan of a patch found: how many files it touches,
// the bytes its binary hunks expand to, and the files it copies (whose
// size the repository knows).
type patchShape struct {
	files  int
	binary int64
	copies []string
}

// scanPatch reads a patch's file headers and binary hunks, without
// applying anything, and refuses a patch over the limits: a binary hunk
// that declares a file larger than lim.MaxFileSize ("literal N", or the
// result size a "delta N" carries in its header), binary hunks that add
// up to more than lim.Memory, or more than lim.MaxFiles files. Text hunks
// are skipped by their line counts. A mail encoded in base64 or
// quoted-printable hides its hunks from the scan: the rlimits git runs
// under still hold it.
func scanPatch(data []byte, lim PatchLimits) (patchShape, error) {
	var shape patchShape
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	// gitHeader: a "diff --git" header whose ---/+++ lines may follow.
	gitHeader := false
	file := ""
	prev := ""
	// pending is a line a binary hunk's scan read past.
	pending, hasPending := "", false
	for hasPending || sc.Scan() {
		line := pending
		if !hasPending {
			line = sc.Text()
		}
		hasPending = false
		switch {
		case strings.HasPrefix(line, "diff --git "):
			shape.files++
			gitHeader = true
			file = strings.TrimPrefix(line, "diff --git ")
			if _, b, ok := strings.Cut(file, " b/"); ok {
				file = b
			}
		case strings.HasPrefix(line, "+++ ") && strings.HasPrefix(prev, "--- "):
			// A traditional diff's file, or the ---/+++ of a git one.
			if !gitHeader {
				shape.files++
				file = strings.TrimSpace(strings.TrimPrefix(line, "+++ "))
			}
			gitHeader = false
		case strings.HasPrefix(line, "@@ -"):
			gitHeader = false
			after := skipHunk(sc, line)
			pending, hasPending = after, after != ""
		case strings.HasPrefix(line, "copy from "):
			shape.copies = append(shape.copies, strings.TrimPrefix(line, "copy from "))
		case line == "GIT binary patch":
			gitHeader = false
			n, after, err := scanBinary(sc, file, lim)
			if err != nil {
				return shape, err
			}
			shape.binary += n
			pending, hasPending = after, after != ""
		}
		if shape.files > lim.MaxFiles {
			return shape, fmt.Errorf("it touches more than %d files, the most a patch may touch (sandbox.max_patch_files)", lim.MaxFiles)
		}
		if shape.binary > lim.Memory {
			return shape, fmt.Errorf("its binary hunks expand to more than %s, the memory applying a patch may use (sandbox.memory)", sizeText(lim.Memory))
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		return shape, fmt.Errorf("read patch: %w", err)
	}
	return shape, nil
}

// skipHunk consumes a text hunk's lines after its header "@@ -a,b +c,d
// @@", as git reads them: until both counts are used up, or up to a line
// that is no hunk line (git then refuses the patch as corrupt), which it
// returns so that the scan reads it as a header.
func skipHunk(sc *bufio.Scanner, header string) (after string) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return ""
	}
	count := func(r string) int {
		_, n, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1
		}
		v, _ := strconv.Atoi(n)
		return v
	}
	old, new := count(f[1]), count(f[2])
	for (old > 0 || new > 0) && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || line[0] == ' ':
			old--
			new--
		case line[0] == '-':
			old--
		case line[0] == '+':
			new--
		case line[0] == '\\':
		default:
			return line
		}
	}
	return ""
}

// scanBinary reads the hunks after "GIT binary patch" (the forward one and
// the reverse one), checks each declared size and returns the bytes git
// would hold for them, and the line after them if it read one that is not
// a hunk's.
func scanBinary(sc *bufio.Scanner, file string, lim PatchLimits) (total int64, after string, err error) {
	for hunk := 0; hunk < 2 && sc.Scan(); hunk++ {
		kind, size, ok := strings.Cut(sc.Text(), " ")
		if !ok || (kind != "literal" && kind != "delta") {
			return total, sc.Text(), nil
		}
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil || n < 0 {
			return total, "", fmt.Errorf("%s: GIT binary patch: %q is not a %s size", file, size, kind)
		}
		var lines [][]byte
		for sc.Scan() && sc.Text() != "" {
			if kind == "delta" {
				lines = append(lines, []byte(sc.Text()))
			}
		}
		if n > lim.MaxFileSize {
			what := "makes a file of"
			if kind == "delta" {
				what = "holds a delta of"
			}
			return total, "", fmt.Errorf("%s: GIT binary patch %s %d %s %s, larger than %s, the largest file a patch may make (sandbox.max_file_size)", file, kind, n, what, sizeText(n), sizeText(lim.MaxFileSize))
		}
		total += n
		if kind == "delta" {
			result, err := deltaResultSize(lines)
			if err != nil {
				return total, "", fmt.Errorf("%s: GIT binary patch delta: %w", file, err)
			}
			if result > lim.MaxFileSize {
				return total, "", fmt.Errorf("%s: GIT binary patch delta makes a file of %s, larger than %s, the largest file a patch may make (sandbox.max_file_size)", file, sizeText(result), sizeText(lim.MaxFileSize))
			}
			total += result
		}
	}
	return total, "", nil
}

// deltaResultSize reads the size of the file a binary delta makes from
// its header (two varints: the source's size, then the result's), which
// git checks against what the delta writes.
func deltaResultSize(lines [][]byte) (int64, error) {
	var raw []byte
	for _, l := range lines {
		b, err := decodeBase85Line(l)
		if err != nil {
			return 0, err
		}
		raw = append(raw, b...)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return 0, fmt.Errorf("data does not inflate: %w", err)
	}
	defer zr.Close()
	head := make([]byte, 20)
	n, err := io.ReadFull(zr, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, fmt.Errorf("data does not inflate: %w", err)
	}
	head = head[:n]
	var sizes [2]uint64
	for i := range sizes {
		var shift uint
		for {
			if len(head) == 0 || shift > 56 {
				return 0, errors.New("delta header cut short")
			}
			c := head[0]
			head = head[1:]
			sizes[i] |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				break
			}
		}
	}
	if sizes[1] > 1<<62 {
		return 0, errors.New("delta header declares an impossible size")
	}
	return int64(sizes[1]), nil
}

// base85 is git's base85 alphabet.
const base85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

// decodeBase85Line decodes one line of a git binary hunk: a length
// character (A-Z: 1-26 bytes, a-z: 27-52) and groups of five characters
// for four bytes each.
func decodeBase85Line(line []byte) ([]byte, error) {
	if len(line) == 0 {
		return nil, errors.New("empty data line")
	}
	var n int
	switch c := line[0]; {
	case c >= 'A' && c <= 'Z':
		n = int(c-'A') + 1
	case c >= 'a' && c <= 'z':
		n = int(c-'a') + 27
	default:
		return nil, fmt.Errorf("bad length character %q", c)
	}
	enc := line[1:]
	if len(enc) != (n+3)/4*5 {
		return nil, fmt.Errorf("line of %d characters for %d bytes", len(enc), n)
	}
	out := make([]byte, 0, len(enc)/5*4)
	for i := 0; i < len(enc); i += 5 {
		var acc uint64
		for _, c := range enc[i : i+5] {
			v := strings.IndexByte(base85, c)
			if v < 0 {
				return nil, fmt.Errorf("bad base85 character %q", c)
			}
			acc = acc*85 + uint64(v)
		}
		if acc > 0xffffffff {
			return nil, errors.New("base85 group out of range")
		}
		out = append(out, byte(acc>>24), byte(acc>>16), byte(acc>>8), byte(acc))
	}
	return out[:n], nil
}

// copiedBytes is the size, in the commit checked out, of the files a patch
// copies: git reads each into memory and writes it again.
func copiedBytes(ctx context.Context, t worktree, copies []string) (int64, error) {
	if len(copies) == 0 {
		return 0, nil
	}
	out, err := t.git(ctx, "ls-tree", "-r", "-l", "-z", "HEAD")
	if err != nil {
		return 0, err
	}
	sizes := map[string]int64{}
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		n, _ := strconv.ParseInt(f[3], 10, 64)
		sizes[path] = n
	}
	var total int64
	for _, c := range copies {
		total += sizes[unquotePath(c)]
	}
	return total, nil
}

// unquotePath undoes git's quoting of a path in a patch header ("a\tb").
func unquotePath(p string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// sizeText writes a byte count in binary units.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
