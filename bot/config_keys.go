package bot

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// strictSections are the sections of config.yaml the service alone reads,
// so an unknown key in them is a mistake; venues is shared with the venue
// clients and is not checked here.
var strictSections = map[string]bool{"service": true, "store": true, "triggers": true, "schedules": true, "digest": true}

// checkKeys reports keys of the service's sections that no field reads,
// naming the file, the line and the keys that are known.
func checkKeys(data []byte, file string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil // Decode reports syntax errors
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil
	}
	t := reflect.TypeOf(Config{})
	var errs []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !strictSections[k.Value] {
			continue
		}
		if f, ok := fieldByTag(t, k.Value); ok {
			errs = append(errs, unknownKeys(v, f.Type, k.Value, file)...)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func unknownKeys(n *yaml.Node, t reflect.Type, path, file string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		var errs []string
		for i, item := range n.Content {
			errs = append(errs, unknownKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), file)...)
		}
		return errs
	case n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct:
		return nil
	}
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		f, ok := fieldByTag(t, k.Value)
		if !ok {
			errs = append(errs, fmt.Sprintf("%s:%d: %s.%s: unknown key (known: %s)", file, k.Line, path, k.Value, strings.Join(tags(t), ", ")))
			continue
		}
		errs = append(errs, unknownKeys(n.Content[i+1], f.Type, path+"."+k.Value, file)...)
	}
	return errs
}

func tags(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
