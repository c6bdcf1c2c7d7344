// Package finite carries NaN and the infinities, which a comparison holds
// (a p-value that could not be computed, an unbounded interval) and JSON
// cannot, through JSON.
package finite

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Sentinels stand in for the non-finite numbers: numbers near the largest
// float64, which no measurement comes close to.
var (
	nanSentinel    = math.Float64frombits(0x7fefffffffff1234)
	posInfSentinel = math.Float64frombits(0x7fefffffffff1235)
	negInfSentinel = -posInfSentinel
)

// ToSentinel replaces a non-finite number by its sentinel.
func ToSentinel(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return nanSentinel
	case math.IsInf(x, 1):
		return posInfSentinel
	case math.IsInf(x, -1):
		return negInfSentinel
	}
	return x
}

// FromSentinel turns a sentinel back into the number it stands for.
func FromSentinel(x float64) float64 {
	switch x {
	case nanSentinel:
		return math.NaN()
	case posInfSentinel:
		return math.Inf(1)
	case negInfSentinel:
		return math.Inf(-1)
	}
	return x
}

// Marshal is json.Marshal writing each NaN and infinity v holds as its
// sentinel (lossless: Unmarshal reads them back) or, with null set, as
// null (what a reader that knows no sentinel should see). v must be a
// pointer; its numbers are swapped for sentinels while it is marshalled,
// so nothing else may use it meanwhile.
func Marshal(v any, null bool) ([]byte, error) {
	rv := reflect.ValueOf(v)
	Map(rv, ToSentinel)
	defer Map(rv, FromSentinel)
	data, err := json.Marshal(v)
	if err != nil || !null {
		return data, err
	}
	// The negative one first: the positive one is part of its text.
	for _, s := range []float64{negInfSentinel, nanSentinel, posInfSentinel} {
		data = bytes.ReplaceAll(data, []byte(strconv.FormatFloat(s, 'g', -1, 64)), []byte("null"))
	}
	return data, nil
}

// Unmarshal is json.Unmarshal reading sentinels back as NaN and the
// infinities.
func Unmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	Map(reflect.ValueOf(v), FromSentinel)
	return nil
}

// Map applies f to every float64 v reaches through pointers, structs,
// slices and arrays (exported fields only), in place.
func Map(v reflect.Value, f func(float64) float64) {
	switch v.Kind() {
	case reflect.Float64:
		if v.CanSet() {
			v.SetFloat(f(v.Float()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			Map(v.Elem(), f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				Map(v.Field(i), f)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			Map(v.Index(i), f)
		}
	}
}
