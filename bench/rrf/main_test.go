package main

import (
	"reflect"
	"testing"
)

func TestInclusionDeterministic(t *testing.T) {
	cfg := paperInclusion(0.01, 0.2)
	a, b := genInclusion(cfg, 5), genInclusion(cfg, 5)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different worlds")
	}
	if c := genInclusion(cfg, 6); reflect.DeepEqual(a.Manages, c.Manages) {
		t.Fatal("different seeds, same management relation")
	}
}

// TestInclusionPlanted checks the planted structure of a clean world
// without spurious links: every management link comes from a led project
// (so every manager leads a project), every member of a lead's project team
// is managed by the lead, only leaders lead, and the observed copies are the
// truth.
func TestInclusionPlanted(t *testing.T) {
	cfg := paperInclusion(0, 0)
	for seed := range uint64(3) {
		w := genInclusion(cfg, seed)
		leads, links := 0, 0
		for x := range cfg.People {
			fromTeams := make([]bool, cfg.People)
			ledAny := false
			for y := range cfg.Projects {
				if w.Lead[x][y] {
					leads++
					ledAny = true
					if !w.Leader[x] {
						t.Fatalf("seed %d: %d leads project %d but is not a leader", seed, x, y)
					}
					for _, z := range w.Team[x][y] {
						if !w.Manages[x][z] || z == x {
							t.Fatalf("seed %d: %d leads %d with %d on the team but does not manage them", seed, x, y, z)
						}
						fromTeams[z] = true
					}
				} else if w.Team[x][y] != nil {
					t.Fatalf("seed %d: a team for a project %d does not lead", seed, x)
				}
				if w.ObsLead[x][y] != w.Lead[x][y] {
					t.Fatal("noise 0 changed an observed ProjectLead")
				}
			}
			for z := range cfg.People {
				if w.Manages[x][z] {
					links++
					if !fromTeams[z] || !ledAny {
						t.Fatalf("seed %d: %d manages %d without a project that explains it", seed, x, z)
					}
				}
				if w.ObsMan[x][z] != w.Manages[x][z] {
					t.Fatal("noise 0 changed an observed ManagerOf")
				}
			}
		}
		// 25 leaders x 10 projects expected; management ~ 250 x 5 less overlaps.
		if leads < 100 || leads > 500 || links < 400 || links > 2500 {
			t.Errorf("seed %d: %d leads, %d management links: far from the expected 250 and ~1200", seed, leads, links)
		}
	}
}

// TestInclusionNoise: at noise 1 every observed atom is the truth flipped.
func TestInclusionNoise(t *testing.T) {
	w := genInclusion(paperInclusion(0.05, 1), 2)
	for x := range w.Cfg.People {
		for y := range w.Cfg.Projects {
			if w.ObsLead[x][y] == w.Lead[x][y] {
				t.Fatal("noise 1 kept an observed ProjectLead")
			}
		}
		for z := range w.Cfg.People {
			if w.ObsMan[x][z] == w.Manages[x][z] {
				t.Fatal("noise 1 kept an observed ManagerOf")
			}
		}
	}
}

// TestFDPlanted checks the functional-dependency generator: deterministic
// per seed; without noise every tuple's name belongs to its tax ID's group
// (the dependency holds), and the ground truth is the group partition.
func TestFDPlanted(t *testing.T) {
	for _, k := range []int{1, 2, 5} {
		cfg := paperFD(k, 0)
		w := genFD(cfg, 3)
		if !reflect.DeepEqual(w, genFD(cfg, 3)) {
			t.Fatal("same seed, different tables")
		}
		tuples := 0
		for tax := range cfg.TaxIDs {
			for n := range cfg.Names {
				for z := range cfg.Parts {
					if w.Supplier[tax][n][z] != w.Clean[tax][n][z] {
						t.Fatal("noise 0 changed a tuple")
					}
					if w.Supplier[tax][n][z] {
						tuples++
						if w.Group[n] != w.TaxGroup[tax] {
							t.Fatalf("k %d: tax ID %d (group %d) has name %d of group %d", k, tax, w.TaxGroup[tax], n, w.Group[n])
						}
					}
				}
			}
		}
		// 30 tax IDs x k names x 30 parts x 0.25.
		if want := 30 * k * 30 / 4; tuples < want/2 || tuples > 2*want {
			t.Errorf("k %d: %d tuples, expected about %d", k, tuples, want)
		}
		truth := w.Truth()
		pos := 0
		for _, v := range truth {
			if v {
				pos++
			}
		}
		if len(truth) != 30*29 || pos != 30*(k-1) {
			t.Errorf("k %d: %d scored pairs (%d equivalent), want %d (%d)", k, len(truth), pos, 30*29, 30*(k-1))
		}
	}
	// With noise, some tuples move to names outside the tax ID's group.
	w := genFD(paperFD(3, 0.5), 4)
	moved := 0
	for tax := range w.Cfg.TaxIDs {
		for n := range w.Cfg.Names {
			for z := range w.Cfg.Parts {
				if w.Supplier[tax][n][z] && w.Group[n] != w.TaxGroup[tax] {
					moved++
				}
			}
		}
	}
	if moved == 0 {
		t.Error("noise 0.5 moved no tuple out of its group")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-k", "7"}, {"-noise", "2"}, {"-pairs", "0"}, {"-experiments", "nope"}, {"-mln-infer", "bp"},
		{"-norm", "sum"}, {"-areas", "ai,biology"}, {"-why-k", "4"}, {"-why-noise", "1.5"}, {"-lambda", "0"}, {"-uw-iter", "-1"}, {"-memory-limit", "lots"}} {
		if err := run(t.Context(), append(args, "-out", t.TempDir()), nil, discard{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
