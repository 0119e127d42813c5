package main

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/hinge-srl/hinge/mln"
)

// Every report's field keys are lower case (snake_case), whatever command
// writes it: a reader of one report can read the others. The keys are
// found from the report types' fields (their json tags, or the field name
// without one), down through nested structs, pointers, slices and maps;
// keys that are data (a map's keys: the user's predicate names, PSL's
// metric names) are not fields and not checked. mln learn writes
// mln.LearnResult itself; the map-built MC-SAT reports nest exactSummary.
func TestReportKeysLowerCase(t *testing.T) {
	for _, v := range []any{
		explainJSON{}, groundReport{}, inferReport{}, kgcReport{}, learnReport{}, liftReport{},
		maxsatFileReport{}, maxsatExactReport{}, mlnReport{}, lazyReport{}, lazyExactReport{},
		solveReport{}, structureReport{}, exactSummary{}, mln.LearnResult{}, rrfReport{},
	} {
		seen := map[reflect.Type]bool{}
		var walk func(path string, ty reflect.Type)
		walk = func(path string, ty reflect.Type) {
			for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
				ty = ty.Elem()
			}
			if ty.Kind() != reflect.Struct || seen[ty] {
				return
			}
			seen[ty] = true
			if _, ok := reflect.New(ty).Interface().(interface{ MarshalJSON() ([]byte, error) }); ok {
				return // its own encoding
			}
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				if !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue
				}
				if name == "" && f.Anonymous {
					walk(path, f.Type)
					continue
				}
				if name == "" {
					name = f.Name
				}
				if strings.IndexFunc(name, unicode.IsUpper) >= 0 {
					t.Errorf("%s.%s: key %q has upper case", path, f.Name, name)
				}
				walk(path+"."+name, f.Type)
			}
		}
		ty := reflect.TypeOf(v)
		walk(ty.Name(), ty)
	}
}
