package hinge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/shareddata"
)

// A README's shell block whose fence reads "```sh quick" is run by
// TestReadmeCommands, in the order written, from the repository root; one
// that also says "needs-data" reads the shared data sets and is skipped,
// with the reason, when they are absent. So a command a user copies from a
// README cannot silently stop working.

// shellBlock is one fenced shell block of a README.
type shellBlock struct {
	file      string
	line      int // of the opening fence
	script    string
	needsData bool
}

// quickBlocks returns the quick shell blocks of the markdown file at path.
func quickBlocks(t *testing.T, path string) []shellBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []shellBlock
	var cur *shellBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			words := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			if len(words) >= 2 && (words[0] == "sh" || words[0] == "bash") && words[1] == "quick" {
				cur = &shellBlock{file: path, line: n}
				for _, w := range words[2:] {
					cur.needsData = cur.needsData || w == "needs-data"
				}
			} else if len(words) > 0 || trimmed == "```" {
				// Another block: skip to its end.
				cur = &shellBlock{line: -1}
			}
		case cur != nil && trimmed == "```":
			if cur.line > 0 {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil && cur.line > 0:
			cur.script += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: code block not closed", path, cur.line)
	}
	return out
}

// readmes lists the README.md files of the repository, the top one first.
func readmes(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "README.md" && path != "README.md" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReadmeCommands runs every quick shell block of every README with bash,
// from the repository root, each README's blocks in order. Paths under /tmp/
// are moved into the test's temporary directory so that runs do not share
// files.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands (go run, real data); skipped in -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run the README's commands")
	}
	dataErr := error(nil)
	if _, err := shareddata.Dir(); err != nil {
		dataErr = err
	}
	total := 0
	for _, readme := range readmes(t) {
		blocks := quickBlocks(t, readme)
		if len(blocks) == 0 {
			continue
		}
		total += len(blocks)
		t.Run(readme, func(t *testing.T) {
			tmp := t.TempDir()
			for _, b := range blocks {
				name := fmt.Sprintf("%s:%d", b.file, b.line)
				if b.needsData && dataErr != nil {
					t.Logf("%s: skipped: needs the shared data sets: %v", name, dataErr)
					continue
				}
				script := strings.ReplaceAll(b.script, "/tmp/", tmp+"/")
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				start := time.Now()
				err := cmd.Run()
				cancel()
				if err != nil {
					t.Fatalf("%s: %v\n--- script\n%s--- output\n%s", name, err, b.script, out.String())
				}
				t.Logf("%s: ok in %.1f s", name, time.Since(start).Seconds())
			}
		})
	}
	if total == 0 {
		t.Fatal("no README block is marked quick (```sh quick)")
	}
}

func TestQuickBlocks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "R.md")
	text := "# x\n```sh quick\necho a\necho b\n```\n```sh\nnot run\n```\n```\nplain\n```\n  ```bash quick needs-data\nls\n  ```\n```go\nx := 1\n```\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := quickBlocks(t, path)
	if len(got) != 2 || got[0].script != "echo a\necho b\n" || got[0].needsData || got[0].line != 2 ||
		got[1].script != "ls\n" || !got[1].needsData || got[1].line != 12 {
		t.Fatalf("%+v", got)
	}
}
