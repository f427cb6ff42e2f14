package central

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlLiteral is a Go string that reads as an SQL statement.
var sqlLiteral = regexp.MustCompile(`(?is)^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|LOCK|CREATE|ALTER|DROP|GRANT|REVOKE)\s+\S`)

// statement is an SQL text without its comment lines and with its spacing
// collapsed: two files or constants saying the same are the same query.
func statement(sql string) string {
	var lines []string
	for l := range strings.SplitSeq(sql, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// The package's SQL hygiene (issue "The house", item 7): every statement
// is a file of sql/, read by exactly one query("name") call with a literal
// name, or a named constant of Go used exactly once; none says what another
// says. Migrations are history and not checked here.
func TestSQLStatementsAreNamedOnce(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}     // query("name") calls per name
	consts := map[string]string{} // SQL constant name → text
	uses := map[string]int{}      // identifier uses (not declarations)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		inConst := map[*ast.BasicLit]bool{}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					if sqlLiteral.MatchString(s) {
						inConst[lit] = true
						consts[vs.Names[i].Name] = s
					}
				}
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "query" {
					lit, ok := n.Args[0].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: query() of a name that is not a string literal", fset.Position(n.Pos()))
						return true
					}
					name, _ := strconv.Unquote(lit.Value)
					calls[name]++
				}
			case *ast.BasicLit:
				if s, _ := strconv.Unquote(n.Value); n.Kind == token.STRING && sqlLiteral.MatchString(s) && !inConst[n] {
					t.Errorf("%s: SQL in a string literal: put it in sql/ or a named constant", fset.Position(n.Pos()))
				}
			case *ast.Ident:
				uses[n.Name]++
			}
			return true
		})
	}

	seen := map[string]string{} // statement → where
	entries, err := fs.ReadDir(queryFS, "sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sql")
		switch n := calls[name]; {
		case n == 0:
			t.Errorf("sql/%s: no query(%q) reads it", e.Name(), name)
		case n > 1:
			t.Errorf("sql/%s: read by %d query(%q) calls, want one (a function of its own if shared)", e.Name(), n, name)
		}
		delete(calls, name)
		st := statement(query(name))
		if w, ok := seen[st]; ok {
			t.Errorf("sql/%s says what %s says", e.Name(), w)
		}
		seen[st] = "sql/" + e.Name()
	}
	for name := range calls {
		t.Errorf("query(%q): no sql/%s.sql", name, name)
	}
	for name, s := range consts {
		if n := uses[name] - 1; n != 1 { // less its declaration
			t.Errorf("constant %s is used %d times, want once (next to its use)", name, n)
		}
		st := statement(s)
		if w, ok := seen[st]; ok {
			t.Errorf("constant %s says what %s says", name, w)
		}
		seen[st] = "constant " + name
	}
	if len(consts) == 0 || len(entries) == 0 {
		t.Fatalf("found %d SQL constants and %d files of sql/: the test reads nothing", len(consts), len(entries))
	}
}
