package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/perfbot/perfbot/flame"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/runner"
)

// flameFiles draws, for each suite and package profiled, a flame graph
// per variant and a differential flame graph of each candidate against the
// baseline, with a table of the functions whose share moved most. They
// are written with --out and attached to posted answers (JIRA and mail
// keep attachments).
func flameFiles(o *runner.Outcome) ([]review.Attachment, error) {
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
	var files []review.Attachment
	svg := func(name string, root *flame.Node, opts flame.SVGOptions) error {
		var b bytes.Buffer
		if err := flame.WriteSVG(&b, root, opts); err != nil {
			return err
		}
		files = append(files, review.Attachment{Name: name, ContentType: "image/svg+xml", Data: b.Bytes()})
		return nil
	}
	base := o.Variants[0]
	for _, k := range order {
		stem := "flame-" + sanitizeFile(k.suite) + "-" + sanitizeFile(path.Base(k.pkg))
		profs := byKey[k]
		for _, v := range o.Variants {
			if p := profs[v]; p != nil {
				if err := svg(stem+"-"+sanitizeFile(v)+".svg", flame.Tree(nil, p), flame.SVGOptions{Title: fmt.Sprintf("%s on %s (CPU)", k.pkg, v)}); err != nil {
					return nil, err
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
			if err := svg(name+".svg", flame.Tree(b, c), flame.SVGOptions{Title: title, Diff: true}); err != nil {
				return nil, err
			}
			var t bytes.Buffer
			fmt.Fprintf(&t, "%s\nfunctions whose share of CPU time moved most (points of each side's total)\n\n", title)
			writeChanges(&t, flame.TopChanges(b, c, 20))
			files = append(files, review.Attachment{Name: name + ".txt", ContentType: "text/plain; charset=utf-8", Data: t.Bytes()})
		}
	}
	return files, nil
}

// writeFiles writes attachments into outDir and returns their paths.
func writeFiles(outDir string, files []review.Attachment) ([]string, error) {
	var paths []string
	for _, f := range files {
		p := filepath.Join(outDir, f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
