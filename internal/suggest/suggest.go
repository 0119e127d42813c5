// Package suggest finds, for a word that names nothing (a flag, a
// predicate), the nearest one that does: the "did you mean" of messages.
package suggest

import "strings"

// Nearest returns the candidate closest to word in edit distance, ignoring
// case, when it is close enough to be a misspelling of it (at most a third
// of word's length, at least 1), else "". Ties go to the earlier candidate.
func Nearest(word string, candidates []string) string {
	best, bestD := "", 0
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := Distance(w, strings.ToLower(c))
		if d <= max(1, len(word)/3) && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
