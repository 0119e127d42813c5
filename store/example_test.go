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
