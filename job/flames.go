package job

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
	"text/tabwriter"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/flame"
)

// Flames draws, for each suite and package profiled, a flame graph
// per variant and a differential flame graph of each candidate against the
// baseline, with a table of the functions whose share moved most. They
// are written with --out and attached to posted answers (JIRA and mail
// keep attachments).
func (o *Outcome) Flames() ([]answer.Attachment, error) {
	variants := o.variants()
	if len(o.Profiles) == 0 || len(variants) == 0 {
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
	var files []answer.Attachment
	svg := func(name string, root *flame.Node, opts flame.SVGOptions) error {
		var b bytes.Buffer
		if err := flame.WriteSVG(&b, root, opts); err != nil {
			return err
		}
		files = append(files, answer.Attachment{Name: name, ContentType: "image/svg+xml", Data: b.Bytes()})
		return nil
	}
	base := variants[0]
	for _, k := range order {
		stem := "flame-" + SanitizeFile(k.suite) + "-" + SanitizeFile(path.Base(k.pkg))
		profs := byKey[k]
		for _, v := range variants {
			if p := profs[v]; p != nil {
				// The profile itself, beside its graph, for go tool pprof
				// (-diff_base) and other viewers.
				if raw := o.rawProfile(k.suite, k.pkg, v); raw != nil {
					files = append(files, answer.Attachment{Name: stem + "-" + SanitizeFile(v) + ".pprof", ContentType: "application/octet-stream", Data: raw})
				}
				var folded bytes.Buffer
				if err := p.WriteFolded(&folded); err != nil {
					return nil, err
				}
				files = append(files, answer.Attachment{Name: stem + "-" + SanitizeFile(v) + ".folded", ContentType: "text/plain; charset=utf-8", Data: folded.Bytes()})
				if err := svg(stem+"-"+SanitizeFile(v)+".svg", flame.Tree(nil, p), flame.SVGOptions{Title: fmt.Sprintf("%s on %s (CPU)", k.pkg, v), CandSamples: p.Samples}); err != nil {
					return nil, err
				}
			}
		}
		for _, v := range variants[1:] {
			b, c := profs[base], profs[v]
			if b == nil || c == nil {
				continue
			}
			title := fmt.Sprintf("%s: %s against %s (CPU)", k.pkg, v, base)
			name := stem + "-" + SanitizeFile(v) + "-vs-" + SanitizeFile(base)
			if err := svg(name+".svg", flame.Tree(b, c), flame.SVGOptions{Title: title, Diff: true, BaseSamples: b.Samples, CandSamples: c.Samples}); err != nil {
				return nil, err
			}
			var t bytes.Buffer
			fmt.Fprintf(&t, "%s\nfunctions whose share of CPU time moved most (points of each side's total)\n\n", title)
			WriteChanges(&t, flame.TopChanges(b, c, 20))
			files = append(files, answer.Attachment{Name: name + ".txt", ContentType: "text/plain; charset=utf-8", Data: t.Bytes()})
		}
	}
	return files, nil
}

// WriteChanges prints the functions whose share of the time moved most.
func WriteChanges(w io.Writer, changes []flame.Change) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "function\tself before\tself after\tchange\ttotal before\ttotal after")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%.2f%%\t%.2f%%\t%+.2f pts\t%.2f%%\t%.2f%%\n", strings.TrimSpace(c.Function),
			100*c.BaseSelf, 100*c.CandSelf, c.SelfDelta(), 100*c.BaseTotal, 100*c.CandTotal)
	}
	tw.Flush()
}

// variants are the baseline's name and then the candidates'.
func (o *Outcome) variants() []string {
	if o.Comparison == nil || o.Comparison.Base == "" {
		return nil
	}
	return append([]string{o.Comparison.Base}, o.Comparison.Candidates...)
}

// rawProfile is the pprof data of one suite, package and variant.
func (o *Outcome) rawProfile(suite, pkg, variant string) []byte {
	for _, p := range o.Profiles {
		if p.Suite == suite && p.Package == pkg && p.Variant == variant {
			return p.Data
		}
	}
	return nil
}
