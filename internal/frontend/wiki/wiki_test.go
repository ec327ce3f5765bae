package wiki

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
)

func TestGenThenCount(t *testing.T) {
	var out, errb bytes.Buffer
	io := harness.IO{Out: &out, Err: &errb, In: strings.NewReader("")}
	path := filepath.Join(t.TempDir(), "wiki.xml")
	require.NoError(t, Gen(GenOptions{Docs: 25, Out: path, Seed: 1}, io))
	assert.Contains(t, errb.String(), "wrote 25 documents")
	require.NoError(t, Count(path, io))
	assert.Equal(t, "25 documents\n", out.String())
	assert.ErrorContains(t, Gen(GenOptions{Docs: 0, Out: path}, io), "need --docs N")
	assert.ErrorContains(t, Gen(GenOptions{Docs: 1}, io), "--out FILE")
	assert.Error(t, Count(filepath.Join(t.TempDir(), "none.xml"), io))
}
