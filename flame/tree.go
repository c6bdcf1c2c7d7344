package flame

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Node is a frame of a flame graph: a function called along one path from
// the root, with the share of each profile's total spent in it and below.
type Node struct {
	Name string
	// Base and Cand are the inclusive shares (0 to 1) of the baseline's
	// and the candidate's totals; a single profile's graph has Cand only.
	Base, Cand float64
	Children   []*Node
}

// Tree merges the stacks of base (nil for a plain flame graph) and cand
// into one tree whose root, "all", holds everything.
func Tree(base, cand *Profile) *Node {
	root := &Node{Name: "all"}
	index := map[*Node]map[string]*Node{}
	add := func(p *Profile, cand bool) {
		if p == nil || p.Total <= 0 {
			return
		}
		for stack, w := range p.Stacks {
			share := w / p.Total
			n := root
			n.addShare(share, cand)
			for _, f := range strings.Split(stack, ";") {
				kids := index[n]
				if kids == nil {
					kids = map[string]*Node{}
					index[n] = kids
				}
				c := kids[f]
				if c == nil {
					c = &Node{Name: f}
					kids[f] = c
					n.Children = append(n.Children, c)
				}
				c.addShare(share, cand)
				n = c
			}
		}
	}
	add(base, false)
	add(cand, true)
	root.sort()
	return root
}

func (n *Node) addShare(s float64, cand bool) {
	if cand {
		n.Cand += s
	} else {
		n.Base += s
	}
}

// sort orders children by name, as flame graphs do, so that the same code
// sits in the same place in both sides' graphs.
func (n *Node) sort() {
	slices.SortFunc(n.Children, func(a, b *Node) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range n.Children {
		c.sort()
	}
}

// Change is how a function's share of the time moved between the
// baseline and the candidate, in percentage points of each total.
type Change struct {
	Function string
	// Self is the time in the function itself; Total includes what it
	// calls (counted once per stack even when the function recurses).
	BaseSelf, CandSelf, BaseTotal, CandTotal float64
}

// SelfDelta is the change of the self share, in percentage points.
func (c Change) SelfDelta() float64 { return 100 * (c.CandSelf - c.BaseSelf) }

// TopChanges lists the n functions whose self share changed most, largest
// change first.
func TopChanges(base, cand *Profile, n int) []Change {
	by := map[string]*Change{}
	get := func(f string) *Change {
		c := by[f]
		if c == nil {
			c = &Change{Function: f}
			by[f] = c
		}
		return c
	}
	tally := func(p *Profile, cand bool) {
		if p == nil || p.Total <= 0 {
			return
		}
		for stack, w := range p.Stacks {
			share := w / p.Total
			frames := strings.Split(stack, ";")
			seen := map[string]bool{}
			for _, f := range frames {
				if seen[f] {
					continue
				}
				seen[f] = true
				if cand {
					get(f).CandTotal += share
				} else {
					get(f).BaseTotal += share
				}
			}
			leaf := get(frames[len(frames)-1])
			if cand {
				leaf.CandSelf += share
			} else {
				leaf.BaseSelf += share
			}
		}
	}
	tally(base, false)
	tally(cand, true)
	all := make([]Change, 0, len(by))
	for _, c := range by {
		all = append(all, *c)
	}
	slices.SortFunc(all, func(a, b Change) int {
		return cmp.Or(cmp.Compare(math.Abs(b.SelfDelta()), math.Abs(a.SelfDelta())), strings.Compare(a.Function, b.Function))
	})
	return all[:min(n, len(all))]
}

// sortedStacks lists a profile's stacks, heaviest first.
func (p *Profile) sortedStacks() []string {
	out := make([]string, 0, len(p.Stacks))
	for s := range p.Stacks {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(p.Stacks[b], p.Stacks[a]), strings.Compare(a, b))
	})
	return out
}
