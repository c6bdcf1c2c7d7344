package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/perfbot/perfbot/flame"
	"github.com/perfbot/perfbot/runner"
)

// writeFlames draws, for each suite and package profiled, a flame graph
// per variant and a differential flame graph of each candidate against the
// baseline, with a table of the functions whose share moved most, into
// outDir. It returns the files written.
func writeFlames(outDir string, o *runner.Outcome) ([]string, error) {
	if len(o.Profiles) == 0 || len(o.Variants) == 0 {
		return nil, nil
	}
	type key struct{ suite, pkg string }
	byKey := map[key]map[string]*flame.Profile{}
	var order []key
	for _, p := range o.Profiles {
		prof, err := flame.Read(p.Data, fmt.Sprintf("%s/%s %s", p.Suite, p.Variant, p.Package))
		if err != nil {
			return nil, err
		}
		k := key{p.Suite, p.Package}
		if byKey[k] == nil {
			byKey[k] = map[string]*flame.Profile{}
			order = append(order, k)
		}
		byKey[k][p.Variant] = prof
	}
	var written []string
	write := func(name string, root *flame.Node, opts flame.SVGOptions) error {
		var b bytes.Buffer
		if err := flame.WriteSVG(&b, root, opts); err != nil {
			return err
		}
		file := filepath.Join(outDir, name)
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			return err
		}
		written = append(written, file)
		return nil
	}
	base := o.Variants[0]
	for _, k := range order {
		stem := "flame-" + sanitizeFile(k.suite) + "-" + sanitizeFile(path.Base(k.pkg))
		profs := byKey[k]
		for _, v := range o.Variants {
			if p := profs[v]; p != nil {
				if err := write(stem+"-"+sanitizeFile(v)+".svg", flame.Tree(nil, p), flame.SVGOptions{Title: fmt.Sprintf("%s on %s (CPU)", k.pkg, v)}); err != nil {
					return written, err
				}
			}
		}
		for _, v := range o.Variants[1:] {
			b, c := profs[base], profs[v]
			if b == nil || c == nil {
				continue
			}
			title := fmt.Sprintf("%s: %s against %s (CPU)", k.pkg, v, base)
			name := stem + "-" + sanitizeFile(v) + "-vs-" + sanitizeFile(base)
			if err := write(name+".svg", flame.Tree(b, c), flame.SVGOptions{Title: title, Diff: true}); err != nil {
				return written, err
			}
			var t bytes.Buffer
			fmt.Fprintf(&t, "%s\nfunctions whose share of CPU time moved most (points of each side's total)\n\n", title)
			writeChanges(&t, flame.TopChanges(b, c, 20))
			file := filepath.Join(outDir, name+".txt")
			if err := os.WriteFile(file, t.Bytes(), 0o644); err != nil {
				return written, err
			}
			written = append(written, file)
		}
	}
	return written, nil
}
