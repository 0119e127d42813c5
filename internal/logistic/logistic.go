// Package logistic has the logistic function and its log-space companion,
// computed without overflow, for the pseudo-likelihoods of Markov logic
// and recursive random fields.
package logistic

import "math"

// Sigmoid is 1 / (1 + exp(-z)).
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Softplus is log(1 + exp(z)).
func Softplus(z float64) float64 {
	if z > 30 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}
