package job

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/flame"
	"github.com/perfbot/perfbot/internal/pkgfile"
)

// ProfileFiles are the outcome's CPU profiles in pprof format, named
// profile-SUITE-PACKAGE-VARIANT.pprof, to keep with the run.
func (o *Outcome) ProfileFiles() []answer.Attachment {
	var files []answer.Attachment
	for _, p := range o.Profiles {
		name := "profile-" + SanitizeFile(p.Suite) + "-" + pkgfile.Name(p.Package) + "-" + SanitizeFile(p.Variant) + ".pprof"
		files = append(files, answer.Attachment{Name: name, ContentType: "application/vnd.google.pprof", Data: p.Data})
	}
	return files
}

// Flames draws, for each suite and benchmark profiled, a flame graph per
// variant and a differential flame graph of each candidate against the
// baseline, with each side's sample count and a table of the functions
// whose share moved most. A Go package's profile covers all its
// benchmarks: it is split by the benchmark function each sample ran in
// (flame.SplitBenchmarks); a profile that cannot be split (no Go
// benchmark frames) gets graphs for the whole package. Files are named
// flame-SUITE-PACKAGE[-BENCHMARK]-VARIANT[-vs-BASE].svg; the raw pprof
// profile is kept once per package. They
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
		stem := "flame-" + SanitizeFile(k.suite) + "-" + pkgfile.Name(k.pkg)
		profs := byKey[k]
		for _, v := range variants {
			// The profile itself, beside the graphs, for go tool pprof
			// (-diff_base) and other viewers: one per package.
			if raw := o.rawProfile(k.suite, k.pkg, v); raw != nil && profs[v] != nil {
				files = append(files, answer.Attachment{Name: stem + "-" + SanitizeFile(v) + ".pprof", ContentType: "application/octet-stream", Data: raw})
			}
		}
		for _, part := range splitByBenchmark(profs) {
			pstem, title := stem, k.pkg
			if part.name != "" {
				pstem, title = stem+"-"+benchFile(part.name), k.pkg+" "+part.name
			}
			for _, v := range variants {
				p := part.profs[v]
				if p == nil {
					continue
				}
				var folded bytes.Buffer
				if err := p.WriteFolded(&folded); err != nil {
					return nil, err
				}
				files = append(files, answer.Attachment{Name: pstem + "-" + SanitizeFile(v) + ".folded", ContentType: "text/plain; charset=utf-8", Data: folded.Bytes()})
				if err := svg(pstem+"-"+SanitizeFile(v)+".svg", flame.Tree(nil, p), flame.SVGOptions{Title: fmt.Sprintf("%s on %s (CPU)", title, v), CandSamples: p.Samples}); err != nil {
					return nil, err
				}
			}
			for _, v := range variants[1:] {
				b, c := part.profs[base], part.profs[v]
				if b == nil || c == nil {
					continue
				}
				t := fmt.Sprintf("%s: %s against %s (CPU)", title, v, base)
				name := pstem + "-" + SanitizeFile(v) + "-vs-" + SanitizeFile(base)
				if err := svg(name+".svg", flame.Tree(b, c), flame.SVGOptions{Title: t, Diff: true, BaseSamples: b.Samples, CandSamples: c.Samples}); err != nil {
					return nil, err
				}
				var tb bytes.Buffer
				fmt.Fprintf(&tb, "%s\nsamples: %s %d, %s %d\nfunctions whose share of CPU time moved most (points of each side's total)\n\n", t, base, b.Samples, v, c.Samples)
				if b.Samples < flame.MinSamples || c.Samples < flame.MinSamples {
					fmt.Fprintf(&tb, "warning: fewer than %d samples on a side; shares this small move by chance\n\n", flame.MinSamples)
				}
				WriteChanges(&tb, flame.TopChanges(b, c, 20))
				files = append(files, answer.Attachment{Name: name + ".txt", ContentType: "text/plain; charset=utf-8", Data: tb.Bytes()})
			}
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

// benchPart is one benchmark's share of a package's profiles, by variant;
// name is "" for a package whose profiles do not split.
type benchPart struct {
	name  string
	profs map[string]*flame.Profile
}

// splitByBenchmark splits every variant's profile of one package by
// benchmark, in name order; the time outside any benchmark is left out.
func splitByBenchmark(profs map[string]*flame.Profile) []benchPart {
	byName := map[string]map[string]*flame.Profile{}
	var names []string
	for v, p := range profs {
		parts, ns := p.SplitBenchmarks()
		for _, n := range ns {
			if byName[n] == nil {
				byName[n] = map[string]*flame.Profile{}
				names = append(names, n)
			}
			byName[n][v] = parts[n]
		}
	}
	if len(names) == 0 {
		return []benchPart{{profs: profs}}
	}
	sort.Strings(names)
	out := make([]benchPart, len(names))
	for i, n := range names {
		out[i] = benchPart{name: n, profs: byName[n]}
	}
	return out
}

// benchFile is a benchmark's name made safe for a file name: letters,
// digits, '_', '-' and '.' kept (no leading '.'), anything else '_', at
// most 80 bytes.
func benchFile(name string) string {
	b := []byte(name)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// Files are the outcome's flame graphs, drawn only when draw (they are
// for an out directory, a posted answer or a stored run), and its CPU
// profiles (see ProfileFiles).
func (o *Outcome) Files(draw bool) (flames, profiles []answer.Attachment, err error) {
	if draw {
		if flames, err = o.Flames(); err != nil {
			return nil, nil, fmt.Errorf("flame graphs: %w", err)
		}
	}
	return flames, ProfileFiles(o.Profiles), nil
}
