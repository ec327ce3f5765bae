package track

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
)

// analyzed is one token of TFT.ANALYZER or _analyze.
type analyzed struct {
	Token    string `json:"token"`
	Start    int    `json:"start_offset"`
	End      int    `json:"end_offset"`
	Position int    `json:"position"`
}

func parseAnalyzed(t *testing.T, b []byte) []analyzed {
	t.Helper()
	var out struct {
		Tokens []analyzed `json:"tokens"`
	}
	require.NoError(t, json.Unmarshal(b, &out), string(b))
	return out.Tokens
}

// zhMapping is the spec's jieba example: the built-in jieba analyzer, and
// a custom one with a user word.
const zhMapping = `{"mappings":{"properties":{"f0":{"type":"text","analyzer":"jieba"},"f1":{"type":"text","analyzer":"my_jieba"}}},` +
	`"settings":{"analysis":{"analyzer":{"my_jieba":{"type":"jieba","userwords":["key-value数据结构存储"],"use_hmm":true}}}}}`

// TestJiebaPluginCutsAsTairSearch: the jieba analyzer the Elasticsearch
// plugin adds (scripts/es-analysis-zh, on jieba-analysis 1.0.2) cuts the
// spec's reference paragraph into the tokens TFT.ANALYZER gives on the
// embedded server, with the same offsets and the same positions, and keeps
// a user word whole as the custom analyzer does. The one difference is the
// order (Lucene indexes tokens only in the order of their start offsets, so
// the plugin gives 高性能 before 性能, and hands out the same positions in
// that order), so tokens are compared by offset and positions as a set.
func TestJiebaPluginCutsAsTairSearch(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	ctx := context.Background()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Do(ctx, "TFT.CREATEINDEX", "zh", zhMapping).Err())

	body, _, err := ProposeElasticsearch(json.RawMessage(zhMapping), ChineseJieba)
	require.NoError(t, err)
	index := fmt.Sprintf("tairbench-jieba-%d", time.Now().UnixNano())
	testenv.ESRequest(t, http.MethodPut, url+"/"+index, body)
	t.Cleanup(func() { testenv.ESRequest(t, http.MethodDelete, url+"/"+index, nil) })

	for _, tc := range []struct{ field, analyzer, text string }{
		{"f0", "jieba", paragraph},
		{"f1", "my_jieba", "Tair是一个key-value数据结构存储服务，" + paragraph},
	} {
		t.Run(tc.analyzer, func(t *testing.T) {
			out, err := c.Do(ctx, "TFT.ANALYZER", tc.analyzer, tc.text, "INDEX", "zh").Text()
			require.NoError(t, err)
			tair := parseAnalyzed(t, []byte(out))
			req, _ := json.Marshal(map[string]string{"field": tc.field, "text": tc.text})
			es := parseAnalyzed(t, testenv.ESRequest(t, http.MethodPost, url+"/"+index+"/_analyze", req))
			require.NotEmpty(t, tair)
			assert.Equal(t, byOffset(tair), byOffset(es), "the same tokens at the same offsets")
			assert.Equal(t, positions(tair), positions(es), "the same positions")
		})
	}
}

// paragraph is the spec's jieba reference paragraph (tair-api.md 3.8).
const paragraph = "Redis是完全开源免费的，遵守BSD协议，是一个灵活的高性能key-value数据结构存储，可以用来作为数据库、缓存和消息队列。"

func byOffset(ts []analyzed) []string {
	s := slices.Clone(ts)
	slices.SortStableFunc(s, func(a, b analyzed) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End)) })
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%s %d-%d", x.Token, x.Start, x.End)
	}
	return out
}

func positions(ts []analyzed) []int {
	out := make([]int, len(ts))
	for i, x := range ts {
		out[i] = x.Position
	}
	slices.Sort(out)
	return out
}
