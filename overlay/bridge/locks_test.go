package bridge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockTableNamesEveryMutex keeps ARCHITECTURE.md's table of the
// bridge's mutexes complete: a new mutex must say what it guards and
// where it sits in the lock order before it lands.
func TestLockTableNamesEveryMutex(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := lockTable(string(doc))
	for _, m := range bridgeMutexes(t) {
		if !strings.Contains(table, "`"+m+"`") {
			t.Errorf("ARCHITECTURE.md's lock table does not name %s: add a row saying what it guards", m)
		}
	}
}

// lockTable returns the section of the document that holds the table.
func lockTable(doc string) string {
	start := strings.Index(doc, "## The bridge's mutexes and lock order")
	if start < 0 {
		return ""
	}
	rest := doc[start+3:]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// bridgeMutexes lists every sync.Mutex or sync.RWMutex field of a struct
// declared in the package's non-test files, as "Type.field".
func bridgeMutexes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				out = append(out, mutexFields(ts.Name.Name, st)...)
			}
			return false
		})
	}
	if len(out) == 0 {
		t.Fatal("found no mutex in the bridge: the parser reads the wrong files")
	}
	return out
}

func mutexFields(typ string, st *ast.StructType) []string {
	var out []string
	for _, fld := range st.Fields.List {
		sel, ok := fld.Type.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Mutex" && sel.Sel.Name != "RWMutex") {
			continue
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "sync" {
			continue
		}
		for _, n := range fld.Names {
			out = append(out, typ+"."+n.Name)
		}
	}
	return out
}
