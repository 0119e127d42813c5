package config_test

import (
	"fmt"

	"github.com/hinge-srl/hinge/config"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

func ExampleRead() {
	// The same code reads a PSL CLI .data file or a PSL 3 JSON config.
	for _, path := range []string{"testdata/acq/acq.data", "testdata/acq/acq.json"} {
		cfg, err := config.Read(path, "infer")
		if err != nil {
			fmt.Println(err)
			return
		}
		m := model.New()
		if err := cfg.Declare(m); err != nil {
			fmt.Println(err)
			return
		}
		s := store.New(m)
		if err := cfg.Load(s); err != nil {
			fmt.Println(err)
			return
		}
		o, t, tr := s.Counts()
		fmt.Printf("%s: %d predicates, %d rules, %d observed, %d targets, %d truth\n",
			path, len(m.Predicates), len(cfg.Rules), o, t, tr)
	}
	// Output:
	// testdata/acq/acq.data: 3 predicates, 0 rules, 13 observed, 4 targets, 4 truth
	// testdata/acq/acq.json: 4 predicates, 4 rules, 17 observed, 4 targets, 5 truth
}
