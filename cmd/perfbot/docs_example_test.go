package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlock returns the commands of the first ```sh block after heading in
// the markdown file, continuation lines joined, comments dropped.
func docBlock(t *testing.T, file, heading string) [][]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("%s: no heading %q", file, heading)
	}
	text = text[i:]
	start := strings.Index(text, "```sh\n")
	if start < 0 {
		t.Fatalf("%s: no sh block after %q", file, heading)
	}
	text = text[start+len("```sh\n"):]
	text = text[:strings.Index(text, "```")]
	text = strings.ReplaceAll(text, "\\\n", " ")
	var cmds [][]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmds = append(cmds, shellWords(t, line))
	}
	return cmds
}

var shellWord = regexp.MustCompile(`"[^"]*"|[^\s"]+`)

// shellWords splits a documented command line: plain words and double-quoted
// words without escapes, which is all the docs use.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for _, w := range shellWord.FindAllString(line, -1) {
		words = append(words, strings.Trim(w, `"`))
	}
	return words
}

// TestDocsWebTryIt runs docs/web.md's "Try it" commands as written (the page
// server aside, which web's own tests load): compare --save stores the
// quickstart run, and the history command finds it by the words the page
// gives. The files the commands name in the working directory go to a
// temporary one instead.
func TestDocsWebTryIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart's benchmarks")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := docBlock(t, filepath.Join(root, "docs", "web.md"), "## Try it")
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", sharedCacheHome(t))
	t.Chdir(root)
	local := map[string]string{"out": filepath.Join(tmp, "out"), "perfbot.db": filepath.Join(tmp, "perfbot.db")}
	ran := map[string]bool{}
	for _, words := range cmds {
		if len(words) < 4 || strings.Join(words[:3], " ") != "go run ./cmd/perfbot" {
			t.Fatalf("docs/web.md: %q is not a perfbot command", strings.Join(words, " "))
		}
		args := words[3:]
		if args[0] == "web" {
			continue
		}
		for i, a := range args {
			if p, ok := local[a]; ok {
				args[i] = p
			}
		}
		var stdout, stderr bytes.Buffer
		if err := runCLI(t, args, &stdout, &stderr); err != nil && exitCode(err, &stderr) != 1 {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		ran[args[0]] = true
		switch args[0] {
		case "compare":
			if !strings.Contains(stderr.String(), "stored as run 1") {
				t.Errorf("compare --save did not store the run:\n%s", stderr.String())
			}
			for _, f := range []string{"report.md", "perfbot-chart-1.png"} {
				if _, err := os.Stat(filepath.Join(local["out"], f)); err != nil {
					t.Errorf("compare --out: %v", err)
				}
			}
		case "history":
			// The words name no benchmark exactly: the search lists the
			// matching benchmark and its stored base and patch points.
			if !strings.Contains(stdout.String(), "Append") || !strings.Contains(stdout.String(), "patch") {
				t.Errorf("history printed no stored point of Append:\n%s", stdout.String())
			}
		}
	}
	if !ran["compare"] || !ran["history"] {
		t.Errorf("docs/web.md's Try it block lacks compare or history: ran %v", ran)
	}
}
