// Package report renders a comparison for people and programs: plain text
// with aligned columns (benchstat's layout), GitHub Markdown, JIRA wiki
// markup and JSON. Every string that came from a benchmark or a patch is
// escaped for the markup it lands in.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/compare"
)

// Formats lists the renderings Render knows.
var Formats = []string{"text", "markdown", "jira", "json"}

// Render writes cmp to w in the named format.
func Render(w io.Writer, format string, cmp *compare.Comparison) error {
	switch format {
	case "text", "":
		return Text(w, cmp)
	case "markdown", "md":
		return Markdown(w, cmp)
	case "jira":
		return JIRA(w, cmp)
	case "json":
		return JSON(w, cmp)
	}
	return fmt.Errorf("unknown report format %q (want %s)", format, strings.Join(Formats, ", "))
}

// JSON writes cmp as one indented JSON object.
func JSON(w io.Writer, cmp *compare.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cmp)
}

// SummaryLine is the one-line verdict for a candidate, such as
// "patch vs base: 1 better, 0 worse, 3 same, 0 noisy".
func SummaryLine(cmp *compare.Comparison) string {
	var parts []string
	for _, t := range cmp.Summary {
		s := fmt.Sprintf("%s vs %s: %d better, %d worse, %d same, %d noisy", t.Variant, cmp.Base, t.Better, t.Worse, t.Same, t.Noisy)
		if t.Added > 0 || t.Removed > 0 {
			s += fmt.Sprintf(" (%d added, %d removed)", t.Added, t.Removed)
		}
		parts = append(parts, s)
	}
	if len(cmp.Failures) > 0 {
		var fs []string
		for _, f := range cmp.Failures {
			fs = append(fs, f.Variant+" "+f.Stage)
		}
		parts = append(parts, "FAILED: "+strings.Join(fs, ", "))
	}
	if len(parts) == 0 {
		return "nothing compared"
	}
	return strings.Join(parts, "; ")
}

// provenanceLines describes where the numbers came from, one fact a line.
func provenanceLines(p *compare.Provenance) []string {
	var lines []string
	for _, s := range p.Sides {
		l := s.Variant + ":"
		if s.Ref != "" {
			l += " " + s.Ref
		}
		if s.Commit != "" {
			l += " (" + short(s.Commit) + ")"
		}
		if s.Patch != "" {
			l += " + patch " + s.Patch
			if s.PatchSubject != "" {
				l += " \"" + s.PatchSubject + "\""
			}
		}
		if len(s.Settings) > 0 {
			l += " with " + strings.Join(s.Settings, " ")
		}
		if len(s.Files) > 0 {
			l += " from " + strings.Join(s.Files, ", ")
		}
		lines = append(lines, l)
	}
	h := p.Host
	if h.Name != "" || h.CPU != "" {
		l := "host: " + h.Name
		if h.OS != "" {
			l += " " + h.OS + "/" + h.Arch
		}
		if h.Kernel != "" {
			l += ", kernel " + h.Kernel
		}
		if h.CPU != "" {
			l += ", " + h.CPU
		}
		if h.Cores > 0 {
			l += fmt.Sprintf(", %d cores", h.Cores)
		}
		lines = append(lines, l)
	}
	if len(h.Toolchain) > 0 {
		lines = append(lines, "toolchain: "+strings.Join(h.Toolchain, ", "))
	}
	for _, s := range p.Suites {
		for _, c := range s.Commands {
			lines = append(lines, fmt.Sprintf("suite %s (%d rounds): %s", s.Name, s.Rounds, c))
		}
	}
	if len(p.RunOrder) > 0 {
		lines = append(lines, "run order: "+strings.Join(p.RunOrder, " "))
	}
	if p.Sandbox != "" {
		lines = append(lines, "sandbox: "+p.Sandbox)
	}
	if !p.Started.IsZero() {
		l := "started " + p.Started.UTC().Format("2006-01-02 15:04:05 UTC")
		if !p.Finished.IsZero() {
			l += fmt.Sprintf(", took %s", p.Finished.Sub(p.Started).Round(1e9))
		}
		lines = append(lines, l)
	}
	if p.Tool != "" {
		lines = append(lines, "perfbot "+p.Tool)
	}
	return lines
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
