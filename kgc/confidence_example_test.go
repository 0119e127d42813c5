package kgc_test

import (
	"fmt"

	"github.com/hinge-srl/hinge/kgc"
)

// Two rules of point confidence 0.375 (pc 5): 3 of 3 body groundings
// supported, and 30 of 75. The lower end of the Wilson interval ranks the
// second, the better supported, first; a sampling error lowers it further.
func ExampleLowerConf() {
	thin, well := 3.0/(3+5), 30.0/(75+5)
	fmt.Printf("point %.3f and %.3f\n", thin, well)
	fmt.Printf("lower %.3f and %.3f\n", kgc.LowerConf(thin, 3, 0, kgc.DefaultLowerZ), kgc.LowerConf(well, 30, 0, kgc.DefaultLowerZ))
	fmt.Printf("sampled, +-0.05: %.3f\n", kgc.LowerConf(well, 30, 0.05, kgc.DefaultLowerZ))
	// Output:
	// point 0.375 and 0.375
	// lower 0.137 and 0.277
	// sampled, +-0.05: 0.227
}
