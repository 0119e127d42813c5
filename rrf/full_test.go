package rrf

import (
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// groundFull is the grounder before evidence folding, kept as the oracle
// of the folding tests: every distinct grounding of a parfeature becomes
// one feature, its weights tied to the parfeature's, and every atom a leaf
// references becomes a variable, fixed unless it is one of the store's
// targets, which are all variables. maxFeatures bounds the ground features (0: 10 million).
func groundFull(p *Program, net *mln.Network, maxFeatures int) (*Grounded, error) {
	if maxFeatures <= 0 {
		maxFeatures = 10_000_000
	}
	gr := &Grounded{Evidence: &Evidence{}}
	varOf := map[string]int32{}
	atom := func(pred string, args []string) (int32, error) {
		key := pred + "\x00" + strings.Join(args, "\x00")
		if v, ok := varOf[key]; ok {
			return v, nil
		}
		v := int32(len(gr.Atoms))
		varOf[key] = v
		gr.Atoms = append(gr.Atoms, GroundAtom{Pred: pred, Args: append([]string(nil), args...)})
		mp := net.Model.Predicate(pred)
		fixed, val, target := true, false, false
		ids := make([]int32, len(args))
		known := mp != nil
		for k, a := range args {
			id, ok := net.Store.Dict.Lookup(a)
			ids[k], known = id, known && ok
		}
		if known {
			tab := net.Store.Table(mp)
			if r, found := tab.Find(ids); found {
				if tab.Kind(r) == store.Target {
					fixed, target = false, true
				} else {
					val = tab.Value(r) >= 0.5
				}
			}
		}
		gr.Evidence.Fixed = append(gr.Evidence.Fixed, fixed)
		gr.Evidence.X = append(gr.Evidence.X, val)
		gr.Target = append(gr.Target, target)
		return v, nil
	}
	type tmpFeature struct{ children []Child }
	var tmp []tmpFeature
	memo := map[string]int32{}
	var ground func(f *ParFeature, args []string) (int32, error)
	ground = func(f *ParFeature, args []string) (int32, error) {
		key := f.Name + "\x00" + strings.Join(args, "\x00")
		if id, ok := memo[key]; ok {
			return id, nil
		}
		if len(tmp) >= maxFeatures {
			return 0, srcpos.Errorf(f.Pos, "more than %d ground features", maxFeatures)
		}
		id := int32(len(tmp))
		memo[key] = id
		tmp = append(tmp, tmpFeature{})
		bind := map[string]string{}
		for k, v := range f.Params {
			bind[v] = args[k]
		}
		var children []Child
		for _, t := range f.Terms {
			var rec func(i int) error
			rec = func(i int) error {
				if i < len(t.Sum) {
					v := t.Sum[i]
					for _, c := range net.Domains[f.types[v]] {
						bind[v] = c
						if err := rec(i + 1); err != nil {
							return err
						}
					}
					delete(bind, v)
					return nil
				}
				cargs := make([]string, len(t.Args))
				for k, a := range t.Args {
					cargs[k] = a.Name
					if a.IsVar {
						cargs[k] = bind[a.Name]
					}
				}
				if t.Pred != "" {
					v, err := atom(t.Pred, cargs)
					if err != nil {
						return err
					}
					children = append(children, Child{Var: v, Feature: -1, Neg: t.Neg, Weight: int32(t.W)})
					return nil
				}
				c, err := ground(p.byName[t.Feature], cargs)
				if err != nil {
					return err
				}
				children = append(children, Child{Var: -1, Feature: c, Weight: int32(t.W)})
				return nil
			}
			if err := rec(0); err != nil {
				return 0, err
			}
		}
		tmp[id].children = children
		return id, nil
	}
	root, err := ground(p.byName["root"], nil)
	if err != nil {
		return nil, err
	}
	// Every unknown atom is a variable, also one no parfeature reaches.
	for _, mp := range net.Model.Predicates {
		tab := net.Store.Table(mp)
		for r := range tab.Len() {
			if tab.Kind(r) == store.Target {
				if _, err := atom(mp.Name, net.Store.Names(tab.Args(r))); err != nil {
					return nil, err
				}
			}
		}
	}
	// Number the features parents first (reverse postorder from the root),
	// the order Net requires.
	order := make([]int32, 0, len(tmp))
	seen := make([]bool, len(tmp))
	var post func(i int32)
	post = func(i int32) {
		seen[i] = true
		for _, c := range tmp[i].children {
			if c.Feature >= 0 && !seen[c.Feature] {
				post(c.Feature)
			}
		}
		order = append(order, i)
	}
	post(root)
	slices.Reverse(order)
	newID := make([]int32, len(tmp))
	for k, i := range order {
		newID[i] = int32(k)
	}
	n := &Net{NumVars: len(gr.Atoms), Features: make([][]Child, len(order)), Weights: append([]float64(nil), p.Weights...), Norm: p.Norm}
	for k, i := range order {
		cs := tmp[i].children
		for j := range cs {
			if cs[j].Feature >= 0 {
				cs[j].Feature = newID[cs[j].Feature]
			}
		}
		n.Features[k] = cs
	}
	gr.Net = n
	return gr, n.Validate()
}
