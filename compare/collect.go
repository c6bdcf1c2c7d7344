package compare

import (
	"fmt"
	"hash/maphash"

	"github.com/perfbot/perfbot/bench"
)

// A Collector gathers results one at a time, as a parser streams them,
// into the series a comparison needs: per row (benchmark, parameters,
// metric, unit) and variant, the samples or summaries, and nothing else.
// Its memory grows with the number of distinct rows and samples, not with
// the size of the input they were read from, and it keeps no reference to
// the results it was given.
type Collector struct {
	opts Options
	// variants are the baseline, then the candidates in column order.
	variants []string
	// open says that variants not named in Options.Candidates join as
	// candidates in the order they first appear.
	open  bool
	rows  rowStore
	index *rowIndex
	key   []byte
	// hint is the most samples a series has had, the capacity new
	// series start with.
	hint int
	// recent holds the rows last added to, most recent first: the
	// results of one benchmark line, and of its repeated lines, come
	// together and find their row here without building its key.
	recent  [recentRows]int
	nrecent int
}

// recentRows is the number of rows Collector.recent remembers.
const recentRows = 4

// rowData is one row's identity, from its first result, and its series
// per variant, by index into Collector.variants.
type rowData struct {
	id    rowID
	sides []*series
}

// rowID is what a row keeps of its first result: the fields of its key
// (bench.Result.Key) and the direction that is better.
type rowID struct {
	Benchmark, Group string
	Params           bench.Params
	Unit, Metric     string
	Better           bench.Direction
}

func idOf(r *bench.Result) rowID {
	return rowID{Benchmark: r.Benchmark, Group: r.Group, Params: r.Params, Unit: r.Unit, Metric: r.Metric, Better: r.Better}
}

// sameKey reports whether o belongs to the row: whether their keys are
// equal (Better is not part of a key).
func (id *rowID) sameKey(o *rowID) bool {
	return id.Benchmark == o.Benchmark && id.Unit == o.Unit && id.Metric == o.Metric && id.Group == o.Group && sameParams(id.Params, o.Params)
}

// rowIndex finds a row by its key. It keeps a 64-bit hash of each key, not
// the key, and checks a row it finds against the result; the rare key
// whose hash another key took is kept whole in others.
type rowIndex struct {
	seed   maphash.Seed
	byHash map[uint64]int
	others map[string]int
}

func newRowIndex() *rowIndex {
	return &rowIndex{seed: maphash.MakeSeed(), byHash: map[uint64]int{}}
}

// find returns the row of id, whose key is key, or -1.
func (x *rowIndex) find(rows *rowStore, id *rowID, key []byte) int {
	if ri, ok := x.byHash[maphash.Bytes(x.seed, key)]; ok && rows.at(ri).id.sameKey(id) {
		return ri
	}
	if ri, ok := x.others[string(key)]; ok {
		return ri
	}
	return -1
}

// add records that key, not yet in the index, is row ri.
func (x *rowIndex) add(key []byte, ri int) {
	h := maphash.Bytes(x.seed, key)
	if _, taken := x.byHash[h]; !taken {
		x.byHash[h] = ri
		return
	}
	if x.others == nil {
		x.others = map[string]int{}
	}
	x.others[string(key)] = ri
}

// rowStore holds rows in chunks of rowChunk: adding a row never copies
// the rows before it, as growing one slice would, over and over, for a
// large suite.
type rowStore struct {
	chunks [][]rowData
	n      int
}

// rowChunk is the number of rows a chunk of a rowStore holds.
const rowChunk = 1024

func (s *rowStore) len() int { return s.n }

func (s *rowStore) at(i int) *rowData { return &s.chunks[i/rowChunk][i%rowChunk] }

// add appends rd and returns its index.
func (s *rowStore) add(rd rowData) int {
	if s.n%rowChunk == 0 {
		// The first chunk grows as rows come, so that a small
		// comparison stays small; the next ones start full size.
		var c []rowData
		if s.n > 0 {
			c = make([]rowData, 0, rowChunk)
		}
		s.chunks = append(s.chunks, c)
	}
	last := len(s.chunks) - 1
	s.chunks[last] = append(s.chunks[last], rd)
	s.n++
	return s.n - 1
}

func (rd *rowData) side(i int) *series {
	if i < len(rd.sides) {
		return rd.sides[i]
	}
	return nil
}

// NewCollector returns a Collector for a comparison under opts.
func NewCollector(opts Options) (*Collector, error) {
	opts.defaults()
	if opts.Base == "" {
		return nil, fmt.Errorf("compare: no baseline variant named")
	}
	c := &Collector{opts: opts, open: len(opts.Candidates) == 0, index: newRowIndex()}
	c.variants = append([]string{opts.Base}, opts.Candidates...)
	return c, nil
}

// Add adds one result. Results of variants that are neither the baseline
// nor a candidate named in Options are ignored; with no candidates named,
// every other variant becomes one. Add copies what it keeps: the caller may
// reuse r. Add after Compare is an error.
func (c *Collector) Add(r *bench.Result) error {
	if c.index == nil {
		return fmt.Errorf("compare: result %s added after the comparison was made", r.Source)
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("compare: %s: %w", r.Source, err)
	}
	vi := -1
	for i, v := range c.variants {
		if v == r.Variant {
			vi = i
			break
		}
	}
	if vi < 0 {
		if !c.open {
			return nil // a variant the caller did not ask for
		}
		vi = len(c.variants)
		c.variants = append(c.variants, r.Variant)
	}
	id := idOf(r)
	ri := c.findRecent(&id)
	if ri < 0 {
		c.key = appendKey(c.key[:0], &id)
		if ri = c.index.find(&c.rows, &id, c.key); ri < 0 {
			ri = c.rows.add(rowData{id: id})
			c.index.add(c.key, ri)
		}
		copy(c.recent[1:], c.recent[:recentRows-1])
		c.recent[0] = ri
		c.nrecent = min(c.nrecent+1, recentRows)
	}
	rd := c.rows.at(ri)
	for len(rd.sides) <= vi {
		rd.sides = append(rd.sides, nil)
	}
	s := rd.sides[vi]
	if s == nil {
		s = &series{}
		rd.sides[vi] = s
	}
	if len(r.Samples) > 0 {
		if s.samples == nil {
			s.samples = make([]float64, 0, max(c.hint, len(r.Samples)))
		}
		s.samples = append(s.samples, r.Samples...)
		if len(s.samples) > c.hint && len(s.samples) <= maxHint {
			c.hint = len(s.samples)
		}
	} else {
		s.summaries = append(s.summaries, *r.Summary)
	}
	return nil
}

// findRecent returns the index of a recently used row that id belongs
// to, or -1. Equal fields make equal keys, so a hit is the row the index
// would give.
func (c *Collector) findRecent(id *rowID) int {
	for _, ri := range c.recent[:c.nrecent] {
		if c.rows.at(ri).id.sameKey(id) {
			return ri
		}
	}
	return -1
}

func sameParams(a, b bench.Params) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// maxHint bounds Collector.hint.
const maxHint = 64

// appendKey appends the row's key, as bench.Result.Key writes it, to b
// without building a string.
func appendKey(b []byte, r *rowID) []byte {
	if r.Group != "" {
		b = append(b, r.Group...)
		b = append(b, " | "...)
	}
	b = append(b, r.Benchmark...)
	for _, p := range r.Params {
		b = append(b, ' ')
		b = append(b, p.Name...)
		b = append(b, '=')
		b = append(b, p.Value...)
	}
	b = append(b, " | "...)
	b = append(b, r.Metric...)
	b = append(b, " | "...)
	return append(b, r.Unit...)
}

// Merge moves what other collected into c, as if other's results had been
// added to c after c's own, so that several inputs can be read at once,
// each into its own Collector, and merged in input order. Both must have
// been made with the same Options; other is empty afterwards.
func (c *Collector) Merge(other *Collector) error {
	if c.index == nil || other.index == nil {
		return fmt.Errorf("compare: collector merged after the comparison was made")
	}
	// vmap maps other's variant indices to c's.
	vmap := make([]int, len(other.variants))
	for oi, v := range other.variants {
		vmap[oi] = -1
		for i, cv := range c.variants {
			if cv == v {
				vmap[oi] = i
				break
			}
		}
		if vmap[oi] < 0 {
			if !c.open {
				continue
			}
			vmap[oi] = len(c.variants)
			c.variants = append(c.variants, v)
		}
	}
	for ri := range other.rows.len() {
		ord := other.rows.at(ri)
		c.key = appendKey(c.key[:0], &ord.id)
		ci := c.index.find(&c.rows, &ord.id, c.key)
		if ci < 0 {
			ci = c.rows.add(rowData{id: ord.id})
			c.index.add(c.key, ci)
		}
		rd := c.rows.at(ci)
		for oi, s := range ord.sides {
			vi := vmap[oi]
			if s == nil || vi < 0 {
				continue
			}
			for len(rd.sides) <= vi {
				rd.sides = append(rd.sides, nil)
			}
			have := rd.sides[vi]
			if have == nil {
				rd.sides[vi] = s
				continue
			}
			have.samples = append(have.samples, s.samples...)
			have.summaries = append(have.summaries, s.summaries...)
		}
	}
	c.hint = max(c.hint, other.hint)
	other.rows, other.index = rowStore{}, nil
	return nil
}
