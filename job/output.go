package job

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/report"
)

// WriteDir writes into dir every rendering of the comparison and its charts
// (PNG and SVG), each side's raw results in Go benchmark format (which
// benchstat reads too), the flame graphs and the CPU profiles, if any; it
// returns the flame graphs' paths.
func (o *Outcome) WriteDir(dir string, flames, profiles []answer.Attachment) ([]string, error) {
	if _, err := report.WriteFiles(dir, o.Comparison, report.Options{TemplateDir: o.TemplateDir}); err != nil {
		return nil, err
	}
	for _, v := range o.variants() {
		var b bytes.Buffer
		gw := bench.NewGoWriter(&b)
		for _, r := range o.Results {
			if r.Variant == v {
				if err := gw.Write(r); err != nil {
					return nil, err
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "results-"+SanitizeFile(v)+".txt"), b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	var paths []string
	for _, f := range flames {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return paths, fmt.Errorf("flame graphs: %w", err)
		}
		paths = append(paths, p)
	}
	for _, f := range profiles {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return paths, fmt.Errorf("profiles: %w", err)
		}
	}
	return paths, nil
}

// SanitizeFile makes a variant name usable as part of a file name.
func SanitizeFile(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, name)
}
