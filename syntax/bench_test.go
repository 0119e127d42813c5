package syntax

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// benchModel generates a .psl file of n rules mixing the shapes of the PSL
// examples: collective-classification rules with comparisons and constants,
// priors, and arithmetic rules with summation variables and filters.
func benchModel(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "# rule %d\n%d.5: HasCat(A, C) & Link(A, B) & (A != B) >> HasCat(B, C) ^2\n", i, i%7)
		case 1:
			fmt.Fprintf(&b, "1.0: HasCat(A, '%d') & Link(A, B) -> HasCat(B, '%d') ^2\n", i, i)
		case 2:
			fmt.Fprintf(&b, "0.001: !HasCat%d(A, N) ^2\n", i)
		case 3:
			fmt.Fprintf(&b, "2 * P%d(A, +B) - |B| * Q(A) / 3 <= @Max[1, |B|] . {B: R(A, B) & !S(B)}\n", i)
		}
	}
	return []byte(b.String())
}

func BenchmarkParseFile(b *testing.B) {
	for _, n := range []int{100, 10000} {
		src := benchModel(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseFile("bench.psl", src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/rule")
		})
	}
}

func BenchmarkPrint(b *testing.B) {
	const n = 10000
	rules, err := ParseFile("bench.psl", benchModel(n))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Print(&buf, rules); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/rule")
}

// BenchmarkParseHostile times inputs built to stress the parser: deep
// nesting at the limit, long rules, and a file of errors (recovery).
func BenchmarkParseHostile(b *testing.B) {
	cases := map[string]string{
		"nesting":    strings.Repeat("1: "+strings.Repeat("(", maxDepth-1)+"A(X)"+strings.Repeat(")", maxDepth-1)+"\n", 1000),
		"longrule":   "1: " + strings.Repeat("A(X, 'c') & ", 20000) + "B(X)\n",
		"longsum":    strings.Repeat("2 A(X) - ", 20000) + "B(X) = 1 .\n",
		"errors":     strings.Repeat("1: A(1) -> B(X) &\n", 10000),
		"nostop":     strings.Repeat("A ", 50000),
		"unbalanced": strings.Repeat("( ", 50000),
	}
	for name, src := range cases {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				ParseFile("hostile.psl", []byte(src))
			}
		})
	}
}
