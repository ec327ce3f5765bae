// Package compressed reads a stream that may be compressed, telling gzip,
// bzip2 and zstd from plain bytes by their first bytes (not by a file's
// name): one reader for every input tairbench takes (dumps, corpora, ID
// files, MONITOR logs).
package compressed

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// The magic numbers of the formats told apart.
var (
	gzipMagic  = []byte{0x1f, 0x8b}
	bzip2Magic = []byte("BZh")
	zstdMagic  = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Reader returns r decompressed when it starts as a gzip, bzip2 or zstd
// stream does, and as it is otherwise (buffered, with size bytes of
// buffer); done releases the decoder. Kind names what was found ("gzip",
// "bzip2", "zstd" or "plain").
func Reader(r io.Reader, size int) (out io.Reader, kind string, done func(), err error) {
	br := bufio.NewReaderSize(r, size)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, "gzip", nil, fmt.Errorf("gzip: %w", err)
		}
		return z, "gzip", func() { z.Close() }, nil
	case bytes.HasPrefix(magic, bzip2Magic):
		return bzip2.NewReader(br), "bzip2", func() {}, nil
	case bytes.HasPrefix(magic, zstdMagic):
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, "zstd", nil, fmt.Errorf("zstd: %w", err)
		}
		return z, "zstd", z.Close, nil
	}
	return br, "plain", func() {}, nil
}
