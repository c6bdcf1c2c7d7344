package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// decode reads data once into a Config and checks it: every key against
// the schema, every value against its type, then the settings against
// each other (Validate). It returns the config (nil when data is not a
// YAML mapping) and every mistake found.
func decode(data []byte, file string) (*Config, Errors) {
	w := &walker{file: file, pos: &positions{key: map[string]*yaml.Node{}, value: map[string]*yaml.Node{}, broken: map[string]bool{}}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: file, Msg: "the file is empty: expected a mapping with project, suites and the other sections"}}
		}
		return nil, Errors{syntaxError(file, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		w.add(&extra, "", false, "a second YAML document (after ---): perfbot reads only the first")
	case !errors.Is(err, io.EOF):
		return nil, Errors{syntaxError(file, err)}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if isNull(root) {
		return nil, Errors{{File: file, Msg: "the file is empty: expected a mapping with project, suites and the other sections"}}
	}
	w.walk(root, reflect.TypeFor[Config](), "")
	var c Config
	if err := root.Decode(&c); err != nil && len(w.errs) == 0 {
		// The walk should have seen every mistake the decoder sees;
		// should it not, the decoder's own words are still shown.
		w.errs = append(w.errs, decoderErrors(file, err)...)
	}
	c.File = file
	c.nodes = w.pos
	for i := range c.Suites {
		if len(c.Suites[i].Variants) == 0 {
			c.Suites[i].Variants = c.Variants
		}
		if c.Suites[i].Instrument == "" {
			c.Suites[i].Instrument = c.Instrument
		}
		if c.Suites[i].Instrument == "" && c.Suites[i].Preset == "go" {
			c.Suites[i].Instrument = DefaultInstrument("go")
		}
	}
	c.Defaults()
	errs := append(w.errs, c.check()...)
	return &c, errs.sorted()
}

// positions records the key and value node of every setting in the file,
// by path ("venues.github.repo", "schedules[0].cron").
type positions struct {
	key, value map[string]*yaml.Node
	// broken are the settings whose value could not be read.
	broken map[string]bool
}

// isBroken reports whether the setting at path could not be read.
func (p *positions) isBroken(path string) bool { return p != nil && p.broken[path] }

// at returns where an error about path belongs: the value when it is a
// scalar, the key of a mapping or list, or the nearest enclosing setting
// that is in the file.
func (p *positions) at(path string) (line, col int) {
	if p == nil {
		return 0, 0
	}
	for {
		if n := p.value[path]; n != nil && n.Kind == yaml.ScalarNode {
			return n.Line, n.Column
		}
		if k := p.key[path]; k != nil {
			return k.Line, k.Column
		}
		if n := p.value[path]; n != nil {
			return n.Line, n.Column
		}
		if path == "" {
			return 0, 0
		}
		path = parentPath(path)
	}
}

// parentPath drops the last element of a path.
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndex(path, "["); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i]
	}
	return ""
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// walker checks a YAML tree against the Go type it decodes into,
// collecting every mistake instead of stopping at the first.
type walker struct {
	file string
	errs Errors
	pos  *positions
}

func (w *walker) add(n *yaml.Node, path string, typed bool, format string, args ...any) {
	e := &Error{File: w.file, Path: path, Msg: fmt.Sprintf(format, args...), typed: typed}
	if typed {
		for p := path; ; p = parentPath(p) {
			w.pos.broken[p] = true
			if p == "" {
				break
			}
		}
	}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	w.errs = append(w.errs, e)
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
	suitesType      = reflect.TypeFor[Suites]()
	variantsType    = reflect.TypeFor[Variants]()
	matrixType      = reflect.TypeFor[Matrix]()
)

// walk checks n against t and records the positions of path.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	w.pos.value[path] = n
	if isNull(n) {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case suitesType:
		w.named(n, path, reflect.TypeFor[Suite](), "suites", "a mapping of suite name to its settings")
		return
	case variantsType:
		w.named(n, path, reflect.TypeFor[Variant](), "variants", "a mapping of variant name to its settings, such as {onheap: {env: {...}}}")
		return
	case matrixType:
		w.matrix(n, path)
		return
	case durationType:
		if !w.scalar(n, path, "a duration such as 30s, 10m or 1h") {
			return
		}
		if d, err := time.ParseDuration(n.Value); err != nil || d < 0 {
			w.add(n, path, true, "expected a duration such as 30s, 10m or 1h, got %s", describe(n))
		}
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		v := reflect.New(t).Interface().(yaml.Unmarshaler)
		if err := v.UnmarshalYAML(n); err != nil {
			w.add(n, path, true, "%s", plainMessage(err))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		w.mapping(n, t, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			w.add(n, path, true, "expected a mapping (key: value), got %s", describe(n))
			return
		}
		w.eachPair(n, path, func(k, v *yaml.Node, p string) { w.walk(v, t.Elem(), p) })
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.add(n, path, true, "expected a list, such as [a, b], got %s", describe(n))
			return
		}
		for i, e := range n.Content {
			w.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.String:
		w.scalar(n, path, "a text value")
	case reflect.Bool:
		if w.scalar(n, path, "true or false") {
			var b bool
			if n.Decode(&b) != nil {
				w.add(n, path, true, "expected true or false, got %s", describe(n))
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if w.scalar(n, path, "a whole number") {
			if n.Decode(reflect.New(t).Interface()) != nil {
				w.add(n, path, true, "expected a whole number, got %s", describe(n))
			}
		}
	case reflect.Float32, reflect.Float64:
		if w.scalar(n, path, "a number") {
			if n.Decode(reflect.New(t).Interface()) != nil {
				w.add(n, path, true, "expected a number, got %s", describe(n))
			}
		}
	}
}

// scalar reports a mapping or list where a single value belongs.
func (w *walker) scalar(n *yaml.Node, path, want string) bool {
	if n.Kind != yaml.ScalarNode {
		w.add(n, path, true, "expected %s, got %s", want, describe(n))
		return false
	}
	return true
}

// mapping checks the keys of a struct's mapping, suggesting the closest
// known key for an unknown one.
func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.MappingNode {
		w.add(n, path, true, "expected a mapping (key: value), got %s", describe(n))
		return
	}
	fields := fieldsOf(t)
	w.eachPair(n, path, func(k, v *yaml.Node, p string) {
		f, ok := fields[k.Value]
		if !ok {
			w.add(k, p, false, "%s", unknownKey(k.Value, fields))
			return
		}
		w.walk(v, f, p)
	})
}

// eachPair visits a mapping's pairs with their paths, reporting keys that
// are not plain text and keys given twice.
func (w *walker) eachPair(n *yaml.Node, path string, visit func(k, v *yaml.Node, p string)) {
	seen := map[string]*yaml.Node{}
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			merged = append(merged, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			w.add(k, path, true, "expected a plain key, got %s", describe(k))
			continue
		}
		p := joinPath(path, k.Value)
		if prev, ok := seen[k.Value]; ok {
			w.add(k, p, false, "%q is set twice (first at line %d): remove one", k.Value, prev.Line)
			continue
		}
		seen[k.Value] = k
		w.pos.key[p] = k
		visit(k, v, p)
	}
	// A merge key (<<: *defaults) adds the pairs of the mappings it names
	// that the mapping does not set itself.
	for _, m := range merged {
		if m.Kind == yaml.AliasNode && m.Alias != nil {
			m = m.Alias
		}
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, src := range sources {
			if src.Kind == yaml.AliasNode && src.Alias != nil {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode {
				w.add(src, path, true, "expected a mapping or an alias of one after <<, got %s", describe(src))
				continue
			}
			rest := &yaml.Node{Kind: yaml.MappingNode}
			for i := 0; i+1 < len(src.Content); i += 2 {
				if _, ok := seen[src.Content[i].Value]; !ok {
					rest.Content = append(rest.Content, src.Content[i], src.Content[i+1])
				}
			}
			w.eachPair(rest, path, visit)
		}
	}
}

// named checks an ordered mapping of names to settings (suites, variants).
func (w *walker) named(n *yaml.Node, path string, t reflect.Type, what, want string) {
	if n.Kind != yaml.MappingNode {
		w.add(n, path, true, "expected %s, got %s", want, describe(n))
		return
	}
	w.eachPair(n, path, func(k, v *yaml.Node, p string) {
		if strings.TrimSpace(k.Value) == "" {
			w.add(k, p, false, "a name is empty")
		}
		if what == "suites" && !isNull(v) && v.Kind != yaml.MappingNode {
			w.add(v, p, true, "expected the suite's settings as a mapping, such as {command: ...}, got %s", describe(v))
			return
		}
		w.walk(v, t, p)
	})
}

// matrix checks a mapping of parameter names to a value or list of values.
func (w *walker) matrix(n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		w.add(n, path, true, "expected a mapping of parameter to values, such as {threads: [1, 2, 4]}, got %s", describe(n))
		return
	}
	w.eachPair(n, path, func(k, v *yaml.Node, p string) {
		w.pos.value[p] = v
		switch v.Kind {
		case yaml.ScalarNode:
		case yaml.SequenceNode:
			if len(v.Content) == 0 {
				w.add(v, p, true, "expected at least one value")
			}
			for i, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					w.add(e, fmt.Sprintf("%s[%d]", p, i), true, "expected a single value, got %s", describe(e))
				}
			}
		default:
			w.add(v, p, true, "expected a value or a list of values, got %s", describe(v))
		}
	})
}

// fieldsOf maps a struct's YAML keys to their field types.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields
}

// unknownKey says a key is unknown and suggests the closest known one, or
// lists them all when none is close.
func unknownKey(key string, fields map[string]reflect.Type) string {
	var names []string
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	best, bestD := "", -1
	for _, name := range names {
		d := levenshtein(strings.ToLower(key), name)
		if bestD < 0 || d < bestD {
			best, bestD = name, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(key)/3) && bestD < len(key) {
		return fmt.Sprintf("unknown key; did you mean %s?", best)
	}
	return fmt.Sprintf("unknown key (known here: %s)", strings.Join(names, ", "))
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe says in words what a node holds: `"abc"`, `a mapping`.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// typeError is a value mistake that lets the decoder go on with the rest
// of the file.
func typeError(format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf(format, args...)}}
}

// plainMessage is an unmarshaler's error without the decoder's prefixes.
func plainMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = translate(lineRE().ReplaceAllString(m, ""))
		}
		return strings.Join(msgs, "; ")
	}
	return translate(lineRE().ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), ""))
}

var (
	lineRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): `) })
	unmarshalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("cannot unmarshal !!(\\w+) `(.*)` into (\\S+)") })
)

// translate turns the decoder's "cannot unmarshal !!str `abc` into int"
// into "expected a whole number, got "abc"".
func translate(msg string) string {
	m := unmarshalRE().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got := strconv.Quote(m[2])
	switch m[1] {
	case "map":
		got = "a mapping"
	case "seq":
		got = "a list"
	}
	want := "a " + m[3]
	switch {
	case strings.HasPrefix(m[3], "int"), strings.HasPrefix(m[3], "uint"):
		want = "a whole number"
	case strings.HasPrefix(m[3], "float"):
		want = "a number"
	case m[3] == "bool":
		want = "true or false"
	case m[3] == "string":
		want = "a text value"
	case m[3] == "time.Duration":
		want = "a duration such as 30s, 10m or 1h"
	case strings.HasPrefix(m[3], "[]"):
		want = "a list"
	case strings.HasPrefix(m[3], "map["), strings.HasPrefix(m[3], "config."):
		want = "a mapping"
	}
	return fmt.Sprintf("expected %s, got %s", want, got)
}

// syntaxError places a YAML syntax error at its line.
func syntaxError(file string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: file, Msg: "not valid YAML: " + msg}
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "not valid YAML: " + msg[len(m[0]):]
	}
	return e
}

// decoderErrors turns the decoder's errors into placed mistakes.
func decoderErrors(file string, err error) Errors {
	msgs := []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var out Errors
	for _, m := range msgs {
		e := &Error{File: file, Msg: translate(m)}
		if sm := lineRE().FindStringSubmatch(m); sm != nil {
			e.Line, _ = strconv.Atoi(sm[1])
			e.Msg = translate(m[len(sm[0]):])
		}
		out = append(out, e)
	}
	return out
}
