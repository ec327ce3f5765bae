package compressed

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReader(t *testing.T) {
	text := []byte("1700000000.000001 [0 a] \"PING\"\n")
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write(text)
	require.NoError(t, gw.Close())
	zw, err := zstd.NewWriter(&zs)
	require.NoError(t, err)
	_, _ = zw.Write(text)
	require.NoError(t, zw.Close())
	// bzip2 has no writer in Go: the committed sample is one.
	bz, err := os.ReadFile(filepath.Join("..", "..", "testdata", "wiki", "enwiki-abstract-sample-2019.xml.bz2"))
	require.NoError(t, err)
	for _, tc := range []struct {
		in   []byte
		kind string
	}{
		{text, "plain"}, {gz.Bytes(), "gzip"}, {zs.Bytes(), "zstd"}, {bz, "bzip2"}, {nil, "plain"}, {[]byte{0x1f}, "plain"},
	} {
		r, kind, done, err := Reader(bytes.NewReader(tc.in), 4096)
		require.NoError(t, err, tc.kind)
		assert.Equal(t, tc.kind, kind)
		got, err := io.ReadAll(r)
		require.NoError(t, err, tc.kind)
		if tc.kind != "bzip2" && len(tc.in) > 1 {
			assert.Equal(t, text, got, tc.kind)
		} else if tc.kind == "bzip2" {
			assert.Contains(t, string(got[:200]), "<", "the dump's XML")
		}
		done()
	}
	_, _, _, err = Reader(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}), 4096)
	assert.ErrorContains(t, err, "gzip:", "a broken gzip header is said")
}
