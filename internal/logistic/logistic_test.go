package logistic

import (
	"math"
	"testing"
)

func TestAgainstClosedForm(t *testing.T) {
	for _, z := range []float64{-800, -40, -3, -0.5, 0, 0.5, 3, 40, 800} {
		s, sp := Sigmoid(z), Softplus(z)
		if math.IsNaN(s) || math.IsInf(sp, 0) || s < 0 || s > 1 {
			t.Fatalf("z %g: sigmoid %g, softplus %g", z, s, sp)
		}
		if math.Abs(z) <= 30 {
			if want := 1 / (1 + math.Exp(-z)); math.Abs(s-want) > 1e-15 {
				t.Errorf("Sigmoid(%g) = %g, want %g", z, s, want)
			}
			if want := math.Log(1 + math.Exp(z)); math.Abs(sp-want) > 1e-12*max(1, want) {
				t.Errorf("Softplus(%g) = %g, want %g", z, sp, want)
			}
		}
	}
	if got := Softplus(800); got != 800 {
		t.Errorf("Softplus(800) = %g", got)
	}
}
