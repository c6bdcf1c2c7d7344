package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Param is one named benchmark parameter, such as threads=10.
type Param struct {
	Name  string
	Value string
}

// Params is an ordered list of parameters. It marshals to a JSON object whose
// keys keep the list's order.
type Params []Param

// Get returns the value of the named parameter and whether it is present.
func (ps Params) Get(name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// Without returns a copy of ps without the named parameter.
func (ps Params) Without(name string) Params {
	out := make(Params, 0, len(ps))
	for _, p := range ps {
		if p.Name != name {
			out = append(out, p)
		}
	}
	return out
}

// String renders the parameters as "a=1/b=2".
func (ps Params) String() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Name + "=" + p.Value
	}
	return strings.Join(parts, "/")
}

// MarshalJSON writes the parameters as a JSON object in their order.
func (ps Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of string values, keeping key order.
func (ps *Params) UnmarshalJSON(data []byte) error {
	if out, ok := plainParams(data); ok {
		*ps = out
		return nil
	}
	out, err := readParams(data)
	if err != nil {
		return err
	}
	*ps = out
	return nil
}

// readParams is UnmarshalJSON's general reader.
func readParams(data []byte) (Params, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("params: expected a JSON object, got %v", tok)
	}
	var out Params
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case float64, bool:
			s = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("params: value of %q must be a string or number", kt)
		}
		out = append(out, Param{Name: kt.(string), Value: s})
	}
	return out, nil
}

// plainParams reads the common case of UnmarshalJSON quickly (a stored
// comparison holds thousands): a valid JSON object whose keys and values
// are strings without escapes, in valid UTF-8. It reports false for
// anything else, which the general reader takes.
func plainParams(data []byte) (Params, bool) {
	if bytes.IndexByte(data, '\\') >= 0 || !utf8.Valid(data) {
		return nil, false
	}
	i := 0
	space := func() {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
			i++
		}
	}
	str := func() (string, bool) {
		if i >= len(data) || data[i] != '"' {
			return "", false
		}
		j := bytes.IndexByte(data[i+1:], '"')
		if j < 0 || bytes.ContainsFunc(data[i+1:i+1+j], func(r rune) bool { return r < 0x20 }) {
			return "", false
		}
		v := string(data[i+1 : i+1+j])
		i += j + 2
		return v, true
	}
	space()
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i++
	var out Params
	for {
		space()
		if i < len(data) && data[i] == '}' && len(out) == 0 {
			i++
			break
		}
		k, ok := str()
		if !ok {
			return nil, false
		}
		space()
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		i++
		space()
		v, ok := str()
		if !ok {
			return nil, false
		}
		out = append(out, Param{Name: k, Value: v})
		space()
		if i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == '}' {
			i++
			break
		}
		return nil, false
	}
	space()
	if i != len(data) {
		return nil, false
	}
	return out, true
}
