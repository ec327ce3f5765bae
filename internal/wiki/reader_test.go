package wiki

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = "../../testdata/wiki/enwiki-abstract-sample-2019.xml"

func readAll(t testing.TB, r *Reader) ([]Doc, error) {
	var docs []Doc
	for {
		var d Doc
		err := r.Next(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, d)
	}
}

func TestRealSample(t *testing.T) {
	r, c, err := Open(sample)
	require.NoError(t, err)
	defer c.Close()
	docs, err := readAll(t, r)
	require.NoError(t, err)
	require.Len(t, docs, 368)
	first, last := docs[0], docs[len(docs)-1]
	assert.Equal(t, int64(1), first.ID)
	assert.Equal(t, "Anarchism", first.Title)
	assert.Equal(t, "https://en.wikipedia.org/wiki/Anarchism", first.URL)
	assert.True(t, strings.HasPrefix(first.Abstract, "Anarchism is an anti-authoritarian political philosophy"))
	assert.Equal(t, int64(368), last.ID)
	assert.Equal(t, "Apatosaurus", last.Title)
	assert.Equal(t, "https://en.wikipedia.org/wiki/Apatosaurus", last.URL)
	for _, d := range docs {
		assert.False(t, strings.HasPrefix(d.Title, "Wikipedia: "), d.Title)
		assert.True(t, strings.HasPrefix(d.URL, "https://en.wikipedia.org/wiki/"), d.URL)
	}
}

func TestCompressedSamples(t *testing.T) {
	raw, err := os.ReadFile(sample)
	require.NoError(t, err)
	dir := t.TempDir()
	gzPath := filepath.Join(dir, "a.xml.gz")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(raw)
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(gzPath, gz.Bytes(), 0o644))
	// The .bz2 is a committed copy of the sample (Go has no bzip2 writer).
	for _, p := range []string{gzPath, sample + ".bz2"} {
		r, c, err := Open(p)
		require.NoError(t, err)
		docs, err := readAll(t, r)
		c.Close()
		require.NoError(t, err, p)
		assert.Len(t, docs, 368, p)
	}
}

func TestMalformedInput(t *testing.T) {
	tests := []struct {
		name, in, msg string
		line          int64
	}{
		{"truncated", "<feed>\n<doc>\n<title>Wikipedia: A</title>\n<abstract>x", "truncated input", 2},
		{"no title", "<feed>\n<doc><url>u</url></doc>\n</feed>", "no <title>", 2},
		{"unclosed abstract", "<feed><doc><title>Wikipedia: A</title>\n<abstract>x</doc></feed>", "<abstract> has no </abstract>", 1},
		{"junk between docs", "<feed><doc><title>A</title></doc>\ngarbage<doc><title>B</title></doc></feed>", "unexpected content \"garbage\"", 1},
		{"junk at end", "<feed><doc><title>A</title></doc>\n<oops>", "unexpected content", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(t, NewReader(strings.NewReader(tc.in)))
			require.Error(t, err)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, tc.line, se.Line, err.Error())
		})
	}
}

func TestEntitiesAndEmptyElements(t *testing.T) {
	in := `<feed><doc><title>Wikipedia: A &amp; B</title><url>u</url><abstract not-applicable="" /></doc>` +
		`<doc><title>Wikipedia: C</title><abstract>x &lt;y&gt; &#233;</abstract></doc></feed>`
	docs, err := readAll(t, NewReader(strings.NewReader(in)))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, "A & B", docs[0].Title)
	assert.Equal(t, "", docs[0].Abstract)
	assert.Equal(t, "x <y> é", docs[1].Abstract)
	assert.Equal(t, int64(2), docs[1].ID)
}

func FuzzReader(f *testing.F) {
	f.Add("<feed><doc><title>Wikipedia: A</title><url>u</url><abstract>a</abstract></doc></feed>")
	f.Add("<feed><doc><title>A</title><abstract/></doc>")
	f.Add("<doc><title></doc>")
	f.Fuzz(func(t *testing.T, s string) {
		r := NewReader(strings.NewReader(s))
		for i := 0; i < 1000; i++ {
			var d Doc
			if err := r.Next(&d); err != nil {
				return
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	raw, err := os.ReadFile(sample)
	require.NoError(b, err)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(raw))
		var d Doc
		for r.Next(&d) == nil {
		}
	}
}
