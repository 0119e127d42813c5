package chromium

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestErrorsAndRequests: the checks the report tests make can fail: a
// console error, an uncaught exception and a request for something else
// than the page are all seen.
func TestErrorsAndRequests(t *testing.T) {
	b := Start(t)
	page := filepath.Join(t.TempDir(), "p.html")
	html := `<!DOCTYPE html><html><body><input id="q">
<img src="http://127.0.0.1:9/x.png">
<script>
console.error("boom");
document.getElementById("q").addEventListener("input", e => { document.body.dataset.typed = e.target.value; });
setTimeout(() => { throw new Error("bang"); }, 0);
</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := b.Open("file://" + page)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Eval(`document.getElementById("q").focus()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.InsertText("Cancer('Bob')"); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(`document.body.dataset.typed === "Cancer('Bob')"`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.Eval(`1 + 2`, &n); err != nil || n != 3 {
		t.Fatalf("Eval: %d, %v", n, err)
	}
	if err := p.Eval(`(() => { throw new Error("thrown") })()`, nil); err == nil || !strings.Contains(err.Error(), "thrown") {
		t.Fatalf("an exception in Eval: %v", err)
	}
	errs := strings.Join(p.Errors(), "\n")
	for _, want := range []string{"console.error: boom", "bang"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
	if reqs := p.Requests(); !slices.Contains(reqs, "http://127.0.0.1:9/x.png") || !slices.Contains(reqs, "file://"+page) {
		t.Errorf("requests: %v", reqs)
	}
}
