package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(existing, []byte("kept"), 0o644))
	fresh := filepath.Join(dir, "new.json")
	cases := []struct {
		path, want string // want: "" when accepted, else part of the error
	}{
		{"", ""},
		{"-", ""},
		{fresh, ""},
		{existing, ""},
		{"/nonexistent-tairbench/dir/x.json", "the folder /nonexistent-tairbench/dir does not exist"},
		{"/proc/x.json", "cannot write /proc/x.json"},
		{filepath.Join(existing, "x.json"), "does not exist"},
	}
	for _, c := range cases {
		err := CheckPaths(c.path)
		if c.want == "" {
			assert.NoError(t, err, c.path)
			continue
		}
		assert.ErrorContains(t, err, c.want, c.path)
	}
	_, err := os.Stat(fresh)
	assert.True(t, os.IsNotExist(err), "the check leaves no new file behind")
	raw, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(raw), "an existing file is not truncated by the check")
}
