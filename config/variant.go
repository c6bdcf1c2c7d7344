package config

import (
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Variant is one side of a comparison described in the config: the same
// code under other settings (environment, extra arguments, placeholder
// values, configuration files), or other code (a ref, or a patch on the
// baseline), or both.
//
//	variants:
//	  sync:  {vars: {synchronous_commit: "on"}}
//	  async: {vars: {synchronous_commit: "off"}, env: {PGOPTIONS: "-c jit=off"}}
//
// The first variant is the baseline.
type Variant struct {
	// Name is the variant's key in the variants map; it names its column.
	Name string `yaml:"-"`
	// Line is where the variant is defined in the config file.
	Line int `yaml:"-"`

	// Ref checks out another ref for this variant (default: the baseline).
	Ref string `yaml:"ref"`
	// Patch is a patch file applied on the baseline for this variant,
	// relative to the config file.
	Patch string `yaml:"patch"`
	// Env is added to the environment of the variant's build, setup,
	// rounds and teardown, after the suite's own Env.
	Env map[string]string `yaml:"env"`
	// Args are appended to the suite's command, such as "-Dcache=offheap".
	Args string `yaml:"args"`
	// Vars give values to placeholders: {name} in build, setup, command
	// and teardown becomes Vars["name"]; they override the suite's Vars.
	Vars map[string]string `yaml:"vars"`
	// Files are configuration files written before setup: the key is a
	// path relative to the variant's {datadir}, the value its content
	// (placeholders are filled in it too).
	Files map[string]string `yaml:"files"`
}

// Settings describes the variant's settings one per line, for the report's
// provenance: "env HBASE_OPTS=...", "args ...", "var x=y", "file f".
func (v *Variant) Settings() []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(v.Env) {
		out = append(out, "env "+k+"="+v.Env[k])
	}
	if v.Args != "" {
		out = append(out, "args "+v.Args)
	}
	for _, k := range sortedKeys(v.Vars) {
		out = append(out, "var "+k+"="+v.Vars[k])
	}
	for _, k := range sortedKeys(v.Files) {
		out = append(out, "file "+k+": "+oneLine(v.Files[k]))
	}
	return out
}

// IsCode reports whether the variant changes the code (a ref or a patch),
// not only its settings.
func (v *Variant) IsCode() bool {
	return v != nil && (v.Ref != "" || v.Patch != "")
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\n", "; ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Variants is the ordered variants map; the first is the baseline.
type Variants []Variant

// UnmarshalYAML reads the variants mapping in file order, recording lines.
func (vs *Variants) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return typeError("variants: expected a mapping of variant name to its settings, such as {onheap: {env: {...}}}, got %s", describe(n))
	}
	var msgs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var variant Variant
		if v.Kind == yaml.MappingNode {
			msgs = append(msgs, decodeErrors(v.Decode(&variant))...)
		}
		variant.Name, variant.Line = k.Value, k.Line
		*vs = append(*vs, variant)
	}
	if len(msgs) > 0 {
		return &yaml.TypeError{Errors: msgs}
	}
	return nil
}

// Lookup returns the named variant.
func (vs Variants) Lookup(name string) (*Variant, bool) {
	for i := range vs {
		if vs[i].Name == name {
			return &vs[i], true
		}
	}
	return nil, false
}

// Names returns the variants' names in order.
func (vs Variants) Names() []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// check reports variants that cannot be compared; path is where they are.
func (vs Variants) check(v *validator, path string) {
	if len(vs) == 1 {
		v.add(path, "only %q is given; a comparison needs at least two", vs[0].Name)
	}
	for _, va := range vs {
		p := joinPath(path, va.Name)
		if strings.TrimSpace(va.Name) == "" {
			continue // the walk reports empty names
		}
		if va.Ref != "" && va.Patch != "" {
			v.add(p, "give ref or patch, not both (a patch applies on the baseline)")
		}
		for f := range va.Files {
			if filepath.IsAbs(f) || strings.HasPrefix(filepath.Clean(f), "..") {
				v.add(p+".files."+f, "expected a path inside the variant's data directory")
			}
		}
	}
}

// definesEverywhere reports whether every variant gives the var name.
func (vs Variants) definesEverywhere(name string) bool {
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		if _, ok := v.Vars[name]; !ok {
			return false
		}
	}
	return true
}
