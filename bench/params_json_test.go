package bench

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParamsJSON checks that the quick reader of UnmarshalJSON reads what
// the general one reads, or leaves the input to it.
func FuzzParamsJSON(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { } `, `null`, `{"size":"1K","threads":"10"}`, ` {"a" : "b" , "c":"d"} `, `{"a":"b","a":"c"}`,
		`{"a":1}`, `{"a":true}`, `{"a":"b",}`, `{"a":"b"`, `{"a\"":"b"}`, `{"é":"ü"}`, "{\"a\":\"\xff\"}",
		"{\"a\":\"b\tc\"}", `{"a":"b"} x`, `["a"]`, `{"":""}`, `{"a":"b" "c":"d"}`, `{"a""b"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		quick, ok := plainParams(data)
		if !ok {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("plainParams read invalid JSON %q as %v", data, quick)
		}
		general, err := readParams(data)
		if err != nil || !reflect.DeepEqual(quick, general) {
			t.Fatalf("%q: plainParams read %#v, the general reader %#v, %v", data, quick, general, err)
		}
	})
}

// TestParamsJSONRoundTrip checks that parameters come back from JSON in
// their order, through either reader.
func TestParamsJSONRoundTrip(t *testing.T) {
	for _, ps := range []Params{
		{{Name: "size", Value: "1K"}, {Name: "threads", Value: "10"}},
		{{Name: "quote", Value: `say "hi"`}, {Name: "é", Value: "<ü>"}},
		nil,
	} {
		data, err := json.Marshal(ps)
		if err != nil {
			t.Fatal(err)
		}
		var got Params
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, ps) {
			t.Errorf("%s read back as %v, want %v", data, got, ps)
		}
	}
}
