package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tairbench/tairbench/internal/wiki"
)

// WikiFile writes docs generated abstracts (seed seed) to a file in the
// test's temporary folder and returns its path.
func WikiFile(t testing.TB, docs int64, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wiki.xml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := wiki.Generate(f, wiki.GenOptions{Docs: docs, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
