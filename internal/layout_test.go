package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBans(t *testing.T) {
	cases := []struct {
		banned, dep string
		want        bool
	}{
		{"internal/run", module + "internal/run", true},
		{"internal/run", module + "internal/run/capacity", true},
		{"internal/run", "internal/runtime/atomic", false},
		{"internal/run", module + "internal/runner", false},
		{module + "internal/", module + "internal/stats", true},
		{module + "internal/", module + "pkg/result", false},
		{"cobra", "github.com/spf13/cobra", true},
		{"go-redis", "github.com/redis/go-redis/v9/internal/pool", true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, bans(c.banned, c.dep), "%s bans %s", c.banned, c.dep)
	}
}

// goFiles lists the repository's Go files outside tests, experiments
// (their own module) and hidden or ignored folders.
func goFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", "..", "ls-files", "--cached", "--others", "--exclude-standard", "*.go").Output()
	require.NoError(t, err)
	var files []string
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "experiments/") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", f)); err == nil {
			files = append(files, filepath.Join("..", f))
		}
	}
	require.NotEmpty(t, files)
	return files
}

// dataTables are functions allowed past the length limit because they are
// a table of data rather than logic (none today).
var dataTables = map[string]bool{}

// TestFunctionsFitOnAScreen keeps every function (and function literal)
// outside tests to at most 120 lines.
func TestFunctionsFitOnAScreen(t *testing.T) {
	const limit = 120
	fset := token.NewFileSet()
	for _, path := range goFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, name = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			}
			if body == nil {
				return true
			}
			start := fset.Position(body.Pos())
			lines := fset.Position(body.End()).Line - start.Line + 1
			if !dataTables[path+":"+name] {
				assert.LessOrEqual(t, lines, limit, "%s:%d %s is %d lines: split it", path, start.Line, name, lines)
			}
			return true
		})
	}
}

// TestNoInitRegistration: lists are explicit (a registry line where a thing
// is chosen), never filled by init().
func TestNoInitRegistration(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range goFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init() (list the thing where it is chosen instead)", fset.Position(fn.Pos()))
			}
		}
	}
}

// TestDevelopmentGuideListsEveryPackage keeps docs/development.md's package
// table equal to the tree: every package once, no package that is gone.
func TestDevelopmentGuideListsEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "../...").Output()
	require.NoError(t, err)
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p = strings.TrimPrefix(p, module); p != strings.TrimSuffix(module, "/") && p != "internal" {
			pkgs = append(pkgs, p)
		}
	}
	doc, err := os.ReadFile("../docs/development.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_/.-]+)` \\| ([^|]+) \\|$")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		listed = append(listed, m[1])
		assert.NotEmpty(t, strings.TrimSpace(m[2]), "%s has no job in the table", m[1])
	}
	slices.Sort(pkgs)
	slices.Sort(listed)
	for _, p := range pkgs {
		assert.Contains(t, listed, p, "docs/development.md's package table misses %s", p)
	}
	for _, p := range listed {
		assert.Contains(t, pkgs, p, "docs/development.md lists %s, which is not a package", p)
	}
	assert.Equal(t, len(slices.Compact(slices.Clone(listed))), len(listed), "a package is listed twice")
}

// figuresPending are measured tables (file and the start of their first
// line) that predate this rule and still lack their commit: regenerate
// each (make docs-figures, or the command its text names) and take it off
// this list.
var figuresPending = map[string]bool{}

// pending says whether a table (its file and first line) is on the list.
func pending(key string) bool {
	for p := range figuresPending {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

var (
	measured = regexp.MustCompile(`\d[\d,]*\.\d+|\d{2,}[\d,]*\s*(?:K|MB|/s|ms|µs|%)`)
	stamped  = regexp.MustCompile(`commit [0-9a-f]{7}[^\n]*20\d\d-\d\d-\d\d|20\d\d-\d\d-\d\d[^\n]*commit [0-9a-f]{7}`)
)

// TestMeasuredFiguresNameTheirCommit: every table of measured figures in
// README.md and docs/ has, in the dozen lines above it, the commit and the
// date it came from (a figures block's stamp line, or the text's own).
func TestMeasuredFiguresNameTheirCommit(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	for _, path := range append([]string{"../README.md"}, docs...) {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.Split(string(raw), "\n")
		name := strings.TrimPrefix(path, "../")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "|") {
				continue
			}
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			table := strings.Join(lines[i:j], "\n")
			key := name + ": " + lines[i]
			if len(measured.FindAllString(table, -1)) >= 3 && !pending(key) {
				above := strings.Join(lines[max(0, i-12):i], " ")
				assert.Regexp(t, stamped, above, "%s:%d: a table of measured figures with no commit and date above it (%q)", name, i+1, key)
			}
			i = j
		}
	}
}

// blocksPending are code blocks of tool output (file and the start of
// their first line) that predate the rule below and still lack the
// commit and date they came from: run each again and stamp it, then take
// it off this list.
var blocksPending = map[string]bool{}

// TestMeasuredOutputNamesItsCommit: every code block of tool output with
// measured figures (not a shell block of commands) in README.md and docs/
// has the commit and date it came from in the dozen lines above it.
func TestMeasuredOutputNamesItsCommit(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	for _, path := range append([]string{"../README.md"}, docs...) {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.Split(string(raw), "\n")
		name := strings.TrimPrefix(path, "../")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "```") {
				continue
			}
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
				j++
			}
			shell := strings.TrimPrefix(lines[i], "```") == "sh"
			block := strings.Join(lines[i+1:min(j, len(lines))], "\n")
			if !shell && i+1 < len(lines) && len(measured.FindAllString(block, -1)) >= 3 {
				key := name + ": " + lines[i+1]
				pend := false
				for p := range blocksPending {
					pend = pend || strings.HasPrefix(key, p)
				}
				if !pend {
					above := strings.Join(lines[max(0, i-12):i], " ")
					assert.Regexp(t, stamped, above, "%s:%d: tool output with measured figures and no commit and date above it (%q)", name, i+1, key)
				}
			}
			i = j
		}
	}
}
