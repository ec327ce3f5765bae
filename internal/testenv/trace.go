package testenv

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/trace"
)

// WriteTrace writes the records as a trace file at path.
func WriteTrace(t testing.TB, path string, recs []trace.Record) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := trace.NewWriter(f, trace.Meta{Source: "test"})
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

// Args splits a command line on blanks into a record's arguments.
func Args(line string) [][]byte {
	var out [][]byte
	for _, a := range strings.Fields(line) {
		out = append(out, []byte(a))
	}
	return out
}
