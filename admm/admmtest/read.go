package admmtest

import (
	"os"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// ReadProblem reads an exchange-format file, failing t on any error; tests
// of every solver read their data sets through it.
func ReadProblem(t testing.TB, path string) *hlmrf.Problem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := hlmrf.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
