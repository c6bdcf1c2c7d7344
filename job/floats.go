package job

import (
	"math"
	"reflect"
)

// JSON has no NaN nor infinities, which a comparison holds (a p-value
// that could not be computed, an unbounded interval). An outcome's JSON
// writes each as a number of its own near the largest float64, which no
// measurement comes close to, and reads it back as what it stood for.
var (
	nanSentinel    = math.Float64frombits(0x7fefffffffff1234)
	posInfSentinel = math.Float64frombits(0x7fefffffffff1235)
	negInfSentinel = -posInfSentinel
)

// toSentinel replaces a non-finite number by its sentinel.
func toSentinel(x float64) float64 {
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

// fromSentinel turns a sentinel back into the number it stands for.
func fromSentinel(x float64) float64 {
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

// mapFloats applies f to every float64 v reaches through pointers,
// structs, slices and arrays (exported fields only), in place.
func mapFloats(v reflect.Value, f func(float64) float64) {
	switch v.Kind() {
	case reflect.Float64:
		if v.CanSet() {
			v.SetFloat(f(v.Float()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			mapFloats(v.Elem(), f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				mapFloats(v.Field(i), f)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			mapFloats(v.Index(i), f)
		}
	}
}
