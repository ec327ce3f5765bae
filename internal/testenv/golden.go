package testenv

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is -update, in every test binary that imports testenv.
var update = flag.Bool("update", false, "rewrite golden files")

// Golden compares got with testdata/NAME, or rewrites the file when the
// test runs with -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (run with -update after checking the change):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// GoldenFile compares the file at path with testdata/NAME, as Golden.
func GoldenFile(t testing.TB, name, path string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	Golden(t, name, got)
}
