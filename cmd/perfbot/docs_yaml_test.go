package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// fragmentMark, on the last non-blank line before a ```yaml block of the
// docs, says the block is part of a config, not a whole one: the test
// checks it inside minimalConfig.
var fragmentMark = regexp.MustCompile(`^<!-- fragment(:[^>]*)? -->$`)

// minimalConfig is what a fragment is checked inside: the top-level keys
// the fragment does not set itself are added from here. It names the
// suites the docs' fragments refer to.
const minimalConfig = `project: {repo: /srv/perfbot/store, branch: main}
suites:
  wal: {preset: go}
  cache: {preset: go}
`

// docYAML is one ```yaml block of a markdown file.
type docYAML struct {
	file     string
	line     int // of the block's first line
	text     string
	fragment bool
}

// docYAMLBlocks returns every ```yaml block of README.md and docs/*.md.
func docYAMLBlocks(t *testing.T, root string) []docYAML {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var blocks []docYAML
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		lines := strings.Split(string(data), "\n")
		prev := ""
		for i := 0; i < len(lines); i++ {
			line := strings.TrimSpace(lines[i])
			if !strings.HasPrefix(line, "```") {
				if line != "" {
					prev = line
				}
				continue
			}
			lang := strings.TrimPrefix(line, "```")
			start := i + 1
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			}
			if lang == "yaml" || lang == "yml" {
				blocks = append(blocks, docYAML{file: rel, line: start + 1, text: strings.Join(lines[start:min(i, len(lines))], "\n") + "\n", fragment: fragmentMark.MatchString(prev)})
			}
			prev = ""
		}
	}
	return blocks
}

// withMinimal completes a fragment with minimalConfig's top-level keys
// that it lacks; the fragment's lines keep their numbers.
func withMinimal(fragment string) (string, error) {
	var set map[string]any
	if err := yaml.Unmarshal([]byte(fragment), &set); err != nil {
		return "", err
	}
	var minimal yaml.Node
	if err := yaml.Unmarshal([]byte(minimalConfig), &minimal); err != nil {
		return "", err
	}
	out := fragment
	m := minimal.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if _, ok := set[m.Content[i].Value]; ok {
			continue
		}
		b, err := yaml.Marshal(map[string]*yaml.Node{m.Content[i].Value: m.Content[i+1]})
		if err != nil {
			return "", err
		}
		out += string(b)
	}
	return out, nil
}

// TestDocsYAMLExamples runs perfbot config check on every YAML example of
// README.md and docs/: a whole config as it is, a block marked
// <!-- fragment --> inside minimalConfig. The file is checked in a folder
// that holds what the examples name beside config.yaml (templates-local/).
func TestDocsYAMLExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docYAMLBlocks(t, root)
	if len(blocks) < 20 {
		t.Fatalf("found %d yaml blocks in README.md and docs/, want at least 20", len(blocks))
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			text := b.text
			if b.fragment {
				if text, err = withMinimal(b.text); err != nil {
					t.Fatalf("%s:%d: fragment: %v", b.file, b.line, err)
				}
			}
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "templates-local"), 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if err := runCLI(t, []string{"config", "check", file}, &stdout, &stderr); err != nil {
				t.Errorf("%s:%d: perfbot config check: %v (lines count from the block's first line)\n%s\n%s", b.file, b.line, err, stderr.String(), text)
			}
		})
	}
}
