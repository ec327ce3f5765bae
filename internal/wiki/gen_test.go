package wiki

import (
	"bytes"
	"crypto/sha256"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gen(t testing.TB, docs int64, seed uint64) []byte {
	var b bytes.Buffer
	require.NoError(t, Generate(&b, GenOptions{Docs: docs, Seed: seed}))
	return b.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := gen(t, 2000, 7), gen(t, 2000, 7)
	assert.Equal(t, sha256.Sum256(a), sha256.Sum256(b))
	assert.NotEqual(t, sha256.Sum256(a), sha256.Sum256(gen(t, 2000, 8)))
}

func TestGeneratedRoundTrips(t *testing.T) {
	const n = 25_000 // past the 10,401 titles, so numbered titles appear
	docs, err := readAll(t, NewReader(bytes.NewReader(gen(t, n, 1))))
	require.NoError(t, err)
	require.Len(t, docs, n)
	assert.Equal(t, int64(n), docs[n-1].ID)
	assert.Contains(t, docs[n-1].Title, "(3)")
	for _, d := range docs[:100] {
		assert.True(t, strings.HasPrefix(d.URL, "https://en.wikipedia.org/wiki/"))
	}
}

var wordRe = regexp.MustCompile(`[\p{L}\p{N}]+`)

// topShares returns the share of all word tokens taken by each word.
func shares(texts []string) map[string]float64 {
	counts := map[string]float64{}
	total := 0.0
	for _, s := range texts {
		for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
			counts[w]++
			total++
		}
	}
	for w := range counts {
		counts[w] /= total
	}
	return counts
}

// TestTopWordFrequencies checks that the 20 most frequent words of the real
// text keep their share of tokens in generated text within 25%.
func TestTopWordFrequencies(t *testing.T) {
	var real []string
	for _, line := range strings.Split(strings.TrimSpace(vocabTSV), "\n") {
		tok, n, _ := strings.Cut(line, "\t")
		c := 0
		for _, ch := range n {
			c = c*10 + int(ch-'0')
		}
		real = append(real, strings.Repeat(tok+" ", c))
	}
	want := shares(real)
	docs, err := readAll(t, NewReader(bytes.NewReader(gen(t, 20_000, 3))))
	require.NoError(t, err)
	var texts []string
	for _, d := range docs {
		texts = append(texts, d.Abstract)
	}
	got := shares(texts)
	type ws struct {
		w string
		s float64
	}
	var top []ws
	for w, s := range want {
		top = append(top, ws{w, s})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].s > top[j].s })
	for _, x := range top[:20] {
		assert.InEpsilon(t, x.s, got[x.w], 0.25, "share of %q", x.w)
	}
	// "world" is in a realistic share of documents: 1.6% of the real abstracts,
	// 11% of the longer summaries; generated abstracts have the abstracts' lengths.
	withWorld := 0
	for _, d := range docs {
		if strings.Contains(strings.ToLower(d.Abstract), "world") {
			withWorld++
		}
	}
	share := float64(withWorld) / float64(len(docs))
	assert.True(t, share > 0.01 && share < 0.11, "share %.3f", share)
}

func TestGenerateLargeStreams(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "g*.xml")
	require.NoError(t, err)
	require.NoError(t, Generate(f, GenOptions{Docs: 50_000, Seed: 1}))
	require.NoError(t, f.Close())
	r, c, err := Open(f.Name())
	require.NoError(t, err)
	defer c.Close()
	docs, err := readAll(t, r)
	require.NoError(t, err)
	assert.Len(t, docs, 50_000)
}
