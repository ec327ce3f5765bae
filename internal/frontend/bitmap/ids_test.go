package bitmap

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func u32(vs ...uint32) string {
	var b bytes.Buffer
	for _, v := range vs {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	return b.String()
}

func u64(vs ...uint64) string {
	var b bytes.Buffer
	for _, v := range vs {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	return b.String()
}

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

func TestReadIDs(t *testing.T) {
	cases := []struct {
		name, in, format string
		card, dups       uint64
		err              string
	}{
		{name: "text", in: "5\n3\n9\n", format: FormatText, card: 3},
		{name: "no final newline, spaces, blank lines", in: " 5 \n\n3\r\n9", format: FormatText, card: 3},
		{name: "duplicates counted, not an error", in: "1\n1\n2\n1\n", format: FormatText, card: 2, dups: 2},
		{name: "largest ID", in: "4294967295\n", format: FormatText, card: 1},
		{name: "negative", in: "1\n2\n-5\n", format: FormatText, err: `line 3: "-5" is negative`},
		{name: "garbage", in: "1\nabc\n", format: FormatText, err: `line 2: "abc" is not a whole number`},
		{name: "two numbers on a line", in: "1 2\n", format: FormatText, err: `line 1: "1 2" is not a whole number`},
		{name: "above 32 bits", in: "4294967296\n", format: FormatText, err: "line 1: 4294967296 is above 4294967295"},
		{name: "gzip text", in: gz("7\n8\n"), format: FormatText, card: 2},
		{name: "u32", in: u32(1, 2, 2, 1<<31), format: FormatU32, card: 3, dups: 1},
		{name: "u64", in: u64(1, 1<<32-1), format: FormatU64, card: 2},
		{name: "u64 above 32 bits", in: u64(1, 1<<32), format: FormatU64, err: "byte offset 8: 4294967296 is above"},
		{name: "u32 truncated", in: u32(1, 2) + "\x01\x02", format: FormatU32, err: "byte offset 8: 2 bytes left"},
		{name: "gzip u64", in: gz(u64(3, 4)), format: FormatU64, card: 2},
		{name: "unknown format", in: "1\n", format: "csv", err: `unknown format "csv"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := ReadIDs(strings.NewReader(c.in), c.format)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				assert.Nil(t, set.IDs, "nothing is kept from a bad file")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.card, set.IDs.GetCardinality())
			assert.Equal(t, c.dups, set.Duplicates)
			assert.Equal(t, c.card+c.dups, set.Read)
		})
	}
}

func FuzzReadIDs(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"), uint8(0))
	f.Add([]byte(u32(1, 2)), uint8(1))
	f.Add([]byte(u64(1, 2)), uint8(2))
	f.Add([]byte(gz("1\n")), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, which uint8) {
		format := []string{FormatText, FormatU32, FormatU64}[which%3]
		set, err := ReadIDs(bytes.NewReader(in), format)
		if err == nil {
			require.Equal(t, set.IDs.GetCardinality()+set.Duplicates, set.Read)
		}
	})
}
