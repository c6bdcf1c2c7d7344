// Package flame reads CPU profiles (pprof, or folded stacks as
// async-profiler, stackcollapse-perf.pl and lightweight-java-profiler
// tooling write them), and draws flame graphs and differential flame
// graphs of a baseline and a candidate, with the functions whose share of
// the time changed most.
package flame

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Profile is a set of call stacks, each a list of function names from the
// root to the leaf, with the time or samples spent in them.
type Profile struct {
	// Unit names the weights: "nanoseconds" for a Go CPU profile,
	// "samples" for folded stacks.
	Unit string
	// Stacks maps frames joined by ";" (root first) to their weight.
	Stacks map[string]float64
	// Total is the sum of all weights.
	Total float64
	// Samples is the number of samples behind the stacks (a pprof
	// profile's sample count, the counts of folded stacks); 0 when
	// unknown.
	Samples int64
	// counts holds the samples behind each stack, when known.
	counts map[string]int64
}

// add adds weight w, from n samples, to stack.
func (p *Profile) add(stack string, w float64, n int64) {
	if p.Stacks == nil {
		p.Stacks = map[string]float64{}
	}
	if p.counts == nil {
		p.counts = map[string]int64{}
	}
	p.Stacks[stack] += w
	p.Total += w
	p.counts[stack] += n
	p.Samples += n
}

// ReadFile reads a pprof profile (gzipped or not) or a folded-stacks file.
func ReadFile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Read(data, path)
}

// Read reads a pprof profile or folded stacks from data; name is used in
// errors.
func Read(data []byte, name string) (*Profile, error) {
	if isPprof(data) {
		return ReadPprof(bytes.NewReader(data), name)
	}
	return ReadFolded(bytes.NewReader(data), name)
}

// isPprof tells a pprof profile (gzipped protocol buffer, or a raw one,
// whose first field is a length-delimited sample_type) from folded text.
func isPprof(data []byte) bool {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return true
	}
	return len(data) > 0 && data[0] == 0x0a && !isText(data[:min(len(data), 256)])
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// ReadPprof reads a pprof profile. The weight of each sample is its CPU
// time when the profile has a "cpu" sample type (Go's CPU profiles), else
// its default or last sample type. Inlined calls count as frames of their
// own, as pprof shows them.
func ReadPprof(r io.Reader, name string) (*Profile, error) {
	prof, err := profile.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a pprof profile: %w", name, err)
	}
	if len(prof.SampleType) == 0 {
		return nil, fmt.Errorf("%s: pprof profile has no sample types", name)
	}
	idx := len(prof.SampleType) - 1
	for i, st := range prof.SampleType {
		if st.Type == prof.DefaultSampleType {
			idx = i
		}
	}
	for i, st := range prof.SampleType {
		if st.Type == "cpu" {
			idx = i
		}
	}
	out := &Profile{Unit: prof.SampleType[idx].Unit, Stacks: map[string]float64{}}
	count := -1 // the sample type that counts samples, if any
	for i, st := range prof.SampleType {
		if st.Type == "samples" && st.Unit == "count" {
			count = i
		}
	}
	var frames []string
	for _, s := range prof.Sample {
		if idx >= len(s.Value) || s.Value[idx] <= 0 {
			continue
		}
		n := int64(1)
		if count >= 0 && count < len(s.Value) {
			n = s.Value[count]
		}
		frames = frames[:0]
		// Locations run leaf first; within one, inlined lines run
		// innermost first.
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			if len(loc.Line) == 0 {
				frames = append(frames, fmt.Sprintf("0x%x", loc.Address))
				continue
			}
			for j := len(loc.Line) - 1; j >= 0; j-- {
				fn := "?"
				if f := loc.Line[j].Function; f != nil && f.Name != "" {
					fn = f.Name
				}
				frames = append(frames, cleanFrame(fn))
			}
		}
		if len(frames) == 0 {
			frames = append(frames, "?")
		}
		out.add(strings.Join(frames, ";"), float64(s.Value[idx]), n)
	}
	return out, nil
}

// cleanFrame keeps a frame name from breaking the folded format.
func cleanFrame(s string) string {
	return strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(s)
}

// ReadFolded reads folded stacks: one "frame;frame;frame count" per line,
// root first, as stackcollapse-perf.pl and async-profiler's collapsed
// output write them. Blank lines and lines starting with # are skipped.
func ReadFolded(r io.Reader, name string) (*Profile, error) {
	out := &Profile{Unit: "samples", Stacks: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), " \t\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cut := strings.LastIndexAny(text, " \t")
		if cut <= 0 {
			return nil, fmt.Errorf("%s:%d: want \"frame;frame;... count\", got %q", name, line, clip(text))
		}
		stack, count := strings.TrimSpace(text[:cut]), text[cut+1:]
		w, err := strconv.ParseFloat(count, 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return nil, fmt.Errorf("%s:%d: want a sample count after the stack, got %q", name, line, clip(count))
		}
		if stack == "" {
			return nil, fmt.Errorf("%s:%d: want \"frame;frame;... count\", got %q", name, line, clip(text))
		}
		if w > 0 {
			out.add(stack, w, int64(w))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(out.Stacks) == 0 {
		return nil, fmt.Errorf("%s: no stacks (want folded stacks \"frame;frame count\" or a pprof profile)", name)
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// WriteFolded writes the profile as folded stacks, heaviest first.
func (p *Profile) WriteFolded(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, s := range p.sortedStacks() {
		fmt.Fprintf(bw, "%s %s\n", s, strconv.FormatFloat(p.Stacks[s], 'f', -1, 64))
	}
	return bw.Flush()
}
