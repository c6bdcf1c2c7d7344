package flame

import "path/filepath"

// Graph is the flame graph of one profile, or with two the differential
// graph of a baseline and a candidate: its tree and how to draw it. An
// empty title is made of the files' base names.
func Graph(profiles []*Profile, paths []string, title string) (*Node, SVGOptions) {
	opts := SVGOptions{Title: title}
	if len(profiles) == 1 {
		opts.CandSamples = profiles[0].Samples
		if opts.Title == "" {
			opts.Title = filepath.Base(paths[0])
		}
		return Tree(nil, profiles[0]), opts
	}
	opts.Diff = true
	opts.BaseSamples, opts.CandSamples = profiles[0].Samples, profiles[1].Samples
	if opts.Title == "" {
		opts.Title = filepath.Base(paths[1]) + " against " + filepath.Base(paths[0])
	}
	return Tree(profiles[0], profiles[1]), opts
}
