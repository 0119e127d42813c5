package store_test

import (
	"fmt"
	"strings"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

func ExampleLoadTSV() {
	m := model.New()
	knows, _ := m.AddPredicate("Knows", 2, false)
	s := store.New(m)
	obs := "Alice\tBob\t1.0\nBob\tCarol\t0.25\n"
	if err := store.LoadTSV(s, knows, store.Observations, strings.NewReader(obs), "knows_obs.txt"); err != nil {
		fmt.Println(err)
	}
	targets := "Alice\tCarol\n"
	if err := store.LoadTSV(s, knows, store.Targets, strings.NewReader(targets), "knows_targets.txt"); err != nil {
		fmt.Println(err)
	}
	o, t, _ := s.Counts()
	fmt.Println(o, "observed,", t, "target")

	// Errors name the file, line and column.
	err := store.LoadTSV(s, knows, store.Targets, strings.NewReader("Alice\tDave\nBob\tCarol\n"), "more_targets.txt")
	fmt.Println(err)
	err = store.LoadTSV(s, knows, store.Observations, strings.NewReader("Carol\tDave\t1.5\n"), "bad.txt")
	fmt.Println(err)
	// Output:
	// 2 observed, 1 target
	// more_targets.txt:2:1: Knows('Bob', 'Carol') is listed both as an observation and as a target
	// bad.txt:1:12: truth value 1.5 is outside [0,1]
}

func ExampleReadConfig() {
	// The same code reads a PSL CLI .data file or a PSL 3 JSON config.
	for _, path := range []string{"testdata/acq/acq.data", "testdata/acq/acq.json"} {
		cfg, err := store.ReadConfig(path, "infer")
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
