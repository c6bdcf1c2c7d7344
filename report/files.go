package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfbot/perfbot/compare"
)

// WriteFiles writes cmp into dir in every format (FileName names each
// file) and its charts as PNG and SVG (perfbot-chart-N.png, .svg); it
// returns the names of the files written. dir is created if needed.
func WriteFiles(dir string, cmp *compare.Comparison, opts Options) ([]string, error) {
	if cmp == nil {
		return nil, fmt.Errorf("report: no comparison to write")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var names []string
	write := func(name string, data []byte) error {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		names = append(names, name)
		return nil
	}
	for _, fm := range AllFormats {
		var b bytes.Buffer
		if err := RenderWith(&b, fm, cmp, opts); err != nil {
			return names, err
		}
		if err := write(FileName(fm), b.Bytes()); err != nil {
			return names, err
		}
	}
	if opts.NoCharts {
		return names, nil
	}
	charts, err := charts(cmp, build(cmp, opts), []string{"png", "svg"})
	if err != nil {
		return names, err
	}
	for _, a := range charts {
		if err := write(a.Name, a.Data); err != nil {
			return names, err
		}
	}
	return names, nil
}
