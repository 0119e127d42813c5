package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCSVAndMarkdown(t *testing.T) {
	rows := [][]string{{"a", "b"}, {"1", "x,y"}}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := WriteCSV(path, rows); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a,b\n1,\"x,y\"\n" {
		t.Errorf("CSV %q", b)
	}
	var md strings.Builder
	Markdown(&md, rows)
	if want := "| a | b |\n|---|---|\n| 1 | x,y |\n\n"; md.String() != want {
		t.Errorf("Markdown %q, want %q", md.String(), want)
	}
}
