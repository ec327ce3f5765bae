package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestEveryCommandHasHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"redis", "--help"}, {"serve", "--help"}, {"roaring", "--help"},
		{"roaring", "stat", "--help"}, {"search", "--help"}, {"search", "compare", "--help"}, {"wiki", "gen", "--help"},
		{"wiki", "count", "--help"}, {"--version"}} {
		res := runCLI(context.Background(), args...)
		assert.Equal(t, 0, res.code, "%v: %s", args, res.err)
		assert.NotEmpty(t, res.out, "%v", args)
	}
}

func TestWikiGenAndCount(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.xml")
	res := runCLI(context.Background(), "wiki", "gen", "--docs", "500", "--out", out)
	require.Equal(t, 0, res.code, res.err)
	res = runCLI(context.Background(), "wiki", "count", out)
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, "500 documents\n", res.out)
	require.NoError(t, os.WriteFile(out, []byte("<feed><doc><title>x</title>"), 0o644))
	res = runCLI(context.Background(), "wiki", "count", out)
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "line 1 (byte 6): truncated input")
}

func TestSearchWriteAndQueryEmbedded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.xml")
	require.Equal(t, 0, runCLI(context.Background(), "wiki", "gen", "--docs", "2000", "--out", out).code)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	res := runCLI(context.Background(), "search", "-t", "write", "--embedded", "-f", out, "-c", "4", "-n", "1500", "--quiet", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "commands     1500 in 1500 requests")
	assert.Contains(t, res.out, "memory ")
	r := readResult(t, jsonPath)
	assert.Equal(t, "input-exhausted", r.StopReason)
	assert.Equal(t, int64(1500), r.Totals.Ops, "every one of -n documents is written")

	res = runCLI(context.Background(), "search", "-t", "search", "--embedded", "-c", "2", "-n", "50", "-q", `{"query":{"term":{"abstract":"x"}}}`, "--quiet")
	assert.Equal(t, ExitRunFailed, res.code, "the embedded server starts empty: every query fails")
	assert.Contains(t, res.out, "tairsearch index not exists")

	for _, bad := range [][]string{{"-t", "nope", "--embedded"}, {"-t", "write", "--embedded"}, {"-t", "search", "--embedded", "-q", "x"}, {"-t", "write"}} {
		res = runCLI(context.Background(), append([]string{"search"}, bad...)...)
		assert.Equal(t, ExitError1, res.code, "%v", bad)
		assert.True(t, strings.HasPrefix(res.err, "tairbench: ") || strings.Contains(res.err, "\ntairbench: "), res.err)
	}
}

func TestSearchCompareCommand(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	out := filepath.Join(t.TempDir(), "w.xml")
	require.Equal(t, 0, runCLI(context.Background(), "wiki", "gen", "--docs", "1500", "--out", out).code)
	jsonPath := filepath.Join(t.TempDir(), "cmp.json")
	res := runCLI(context.Background(), "search", "compare", "--embedded", "--es", url, "-f", out, "-c", "4", "--bulk", "100",
		"--queries", "100", "--index", "clicmp", "--term-query", `{"query":{"term":{"abstract":"world"}}}`,
		"--agg-query", `{"size":0,"query":{"term":{"abstract":"world"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`,
		"--known-items", "20", "--threshold", "recall@10>=0", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	for _, want := range []string{"agree", "Write (documents/s", "tairsearch (cache on)", "not Tair",
		"relevance: known items: 20 documents, each found by its title in the abstracts", "PASS"} {
		assert.Contains(t, res.out, want)
	}
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"schema": "`+result.SchemaSearch+`"`)
	assert.Contains(t, string(raw), `(embedded server, not Tair)"`, "the stored set-up names the embedded server")

	// Elasticsearch is asked who it is (GET /): the set-up, the runs' targets
	// and the report name its version.
	doc, err := result.ReadFile(jsonPath)
	require.NoError(t, err)
	cmp := doc.(*result.SearchComparison)
	assert.Regexp(t, `^http://\S+ \(elasticsearch 8\.19\.\d+, build [0-9a-f]+\)$`, cmp.Config.Engines["elasticsearch"])
	assert.Regexp(t, `vs Elasticsearch at http://\S+ \(elasticsearch 8\.19\.\d+, build [0-9a-f]+\)`, res.out)
	for _, er := range cmp.Engines {
		if er.Engine != "elasticsearch" {
			continue
		}
		tg := er.Write.Config.Target
		require.NotNil(t, tg, "the Elasticsearch write run names its target")
		require.NotNil(t, tg.Server)
		assert.Equal(t, "elasticsearch", tg.Server.Name)
		assert.Regexp(t, `^8\.19\.\d+$`, tg.Server.Version)
		assert.Equal(t, url, tg.Addr)
		assert.Zero(t, tg.RESP, "not a RESP target")
	}
	html := filepath.Join(t.TempDir(), "r.html")
	res = runCLI(context.Background(), "report", jsonPath, "-o", html)
	require.Equal(t, 0, res.code, res.err)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.NotContains(t, string(page), "(not recorded)", "every run's target is named")
	assert.Regexp(t, `elasticsearch 8\.19\.\d+`, string(page))
}

// indexed is the documents Elasticsearch's index "wiki" has indexed so far
// (its indexing statistics), 0 when it cannot tell.
func indexed(t *testing.T, url string) int64 {
	resp, err := http.Get(url + "/wiki/_stats/indexing")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var st struct {
		All struct {
			Total struct {
				Indexing struct {
					IndexTotal int64 `json:"index_total"`
				} `json:"indexing"`
			} `json:"total"`
		} `json:"_all"`
	}
	if json.NewDecoder(resp.Body).Decode(&st) != nil {
		return 0
	}
	return st.All.Total.Indexing.IndexTotal
}
