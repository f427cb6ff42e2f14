package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/operating.md's command list from the table")

const (
	listStart = "<!-- The command list: written from cli/commands.go by `go test ./cli -run TestDocsCommandList -update`. -->\n"
	listEnd   = "<!-- End of the command list. -->\n"
)

// commandList is the command table as docs/operating.md shows it.
func commandList() string {
	var b strings.Builder
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, c := range listed() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(synopsis(c), "|", `\|`), c.help)
	}
	return b.String()
}

// The documentation's command list is the table's.
func TestDocsCommandList(t *testing.T) {
	path := filepath.Join("..", "docs", "operating.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), listStart)
	_, after, ok2 := strings.Cut(rest, listEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the command list's markers", path)
	}
	want := before + listStart + commandList() + listEnd + after
	if want == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's command list differs from the table: run go test ./cli -run TestDocsCommandList -update", path)
}

// Every command line shown in the README and docs/ (the lines of ```sh
// blocks) is one the program takes: its command exists, its flags too, and
// it has the arguments it needs. Each is parsed, not run. A make target
// shown exists in the Makefile.
func TestDocsCommandsParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "README.md"))
	makefile, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```")
	seen := 0
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(doc), -1) {
			for _, line := range strings.Split(m[1], "\n") {
				line, _, _ = strings.Cut(line, " #")
				words, ok := shellWords(line)
				switch {
				case len(words) == 0:
				case !ok:
					t.Errorf("%s: cannot read %q as a command line", f, line)
				case words[0] == "make":
					for _, target := range words[1:] {
						if name, _, isVar := strings.Cut(target, "="); !isVar && !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(name)+`:`).Match(makefile) {
							t.Errorf("%s: %q: no target %s in the Makefile", f, line, name)
						}
					}
					seen++
				case words[0] == "starfortune":
					if err := parses(words[1:]); err != nil {
						t.Errorf("%s: %q: %v", f, line, err)
					}
					seen++
				default:
					t.Errorf("%s: %q: a ```sh block holds starfortune and make commands only", f, line)
				}
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d commands found in the docs", seen)
	}
}

// parses says why the command line args would be refused as a mistake in
// the command line, or nil.
func parses(args []string) error {
	_, _, err := parseLine(args, &call{out: io.Discard, stderr: io.Discard})
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// shellWords splits a line as sh would, for the quoting the docs use:
// single and double quotes, no expansions. A line that pipes or redirects
// keeps its first command.
func shellWords(line string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(line[i+1:], ch)
			if j < 0 {
				return nil, false
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == ' ' || ch == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case ch == '|' || ch == '<' || ch == '>':
			if inWord {
				words = append(words, w.String())
			}
			return words, true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}
