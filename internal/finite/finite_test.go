package finite

import (
	"math"
	"strings"
	"testing"
)

type cell struct {
	P       float64
	Samples []float64
	Lo      *float64
	Name    string
	Data    []byte
}

func TestMarshal(t *testing.T) {
	lo := math.Inf(-1)
	in := &cell{P: math.NaN(), Samples: []float64{1.5, math.Inf(1)}, Lo: &lo, Name: "x", Data: []byte{1}}
	data, err := Marshal(in, false)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(in.P) || !math.IsInf(in.Samples[1], 1) || !math.IsInf(*in.Lo, -1) {
		t.Errorf("the value marshalled was left changed: %+v", in)
	}
	var out cell
	if err := Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(out.P) || out.Samples[0] != 1.5 || !math.IsInf(out.Samples[1], 1) || !math.IsInf(*out.Lo, -1) || out.Name != "x" {
		t.Errorf("read back %+v from %s", out, data)
	}
	null, err := Marshal(in, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"P":null,"Samples":[1.5,null],"Lo":null,"Name":"x","Data":"AQ=="}`; string(null) != want {
		t.Errorf("with null: %s, want %s", null, want)
	}
	if strings.Contains(string(data), "null") {
		t.Errorf("lossless form holds null: %s", data)
	}
}
