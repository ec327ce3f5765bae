package testenv

import (
	"bytes"
	"io"
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

// ReadTrace reads a trace file whole: its metadata and records (each
// with arguments of its own).
func ReadTrace(t testing.TB, path string) (trace.Meta, []trace.Record) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := trace.NewReader(f)
	require.NoError(t, err)
	defer r.Close()
	var out []trace.Record
	var rec trace.Record
	for {
		err := r.Read(&rec)
		if err == io.EOF {
			return r.Meta(), out
		}
		require.NoError(t, err)
		c := rec
		c.Args = make([][]byte, len(rec.Args))
		for i, a := range rec.Args {
			c.Args[i] = bytes.Clone(a)
		}
		out = append(out, c)
	}
}
