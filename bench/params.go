package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*ps = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("params: expected a JSON object, got %v", tok)
	}
	var out Params
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case float64, bool:
			s = fmt.Sprint(v)
		default:
			return fmt.Errorf("params: value of %q must be a string or number", kt)
		}
		out = append(out, Param{Name: kt.(string), Value: s})
	}
	*ps = out
	return nil
}
