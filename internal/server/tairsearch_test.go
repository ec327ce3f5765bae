package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twoText = `{"mappings":{"properties":{"f0":{"type":"text"},"f1":{"type":"text"}}}}`

const twoTextNormalized = `{"_source":{"enabled":true,"excludes":[],"includes":[]},"dynamic":"false","properties":{` +
	`"f0":{"boost":1.0,"enabled":true,"ignore_above":-1,"index":true,"similarity":"classic","type":"text"},` +
	`"f1":{"boost":1.0,"enabled":true,"ignore_above":-1,"index":true,"similarity":"classic","type":"text"}}}`

func TestSearchSpecExamples(t *testing.T) {
	tests := map[string][]step{
		"create and getindex": {
			{[]any{"tft.createindex", "tftkey", twoText}, "OK", false},
			{[]any{"tft.createindex", "tftkey", twoText}, "already exists", true},
			{[]any{"tft.getindex", "tftkey", "mappings"}, `{"tftkey":{"mappings":` + twoTextNormalized + `}}`, false},
			{[]any{"tft.getindex", "tftkey", "settings"}, `{"tftkey":{"settings":{}}}`, false},
			{[]any{"tft.getindex", "tftkey"}, `{"tftkey":{"mappings":` + twoTextNormalized + `,"settings":{}}}`, false},
			{[]any{"tft.getindex", "missing"}, nil, false},
			{[]any{"tft.mappingindex", "s", `{"mappings":{"properties":{"f0":{"type":"text","analyzer":"my"}}},"settings":{"analysis":{"analyzer":{"my":{"type":"custom","tokenizer":"whitespace"}}}}}`}, "OK", false},
			{[]any{"tft.getindex", "s", "settings"}, `{"s":{"settings":{"analysis":{"analyzer":{"my":{"type":"custom","tokenizer":"whitespace"}}}}}}`, false},
			{[]any{"tft.updateindex", "tftkey", `{"mappings":{"properties":{"f2":{"type":"long"}}}}`}, "OK", false},
			{[]any{"tft.createindex", "bad", `{"mappings":{"properties":{"f0":{"type":"geo_point"}}}}`}, "unsupported type", true},
			{[]any{"type", "tftkey"}, "tairsearch", false},
		},
		"documents": {
			{[]any{"tft.createindex", "i", twoText}, "OK", false},
			{[]any{"tft.adddoc", "i", `{"f0":"redis is a nosql database"}`, "WITH_ID", "00001"}, `{"_id":"00001"}`, false},
			{[]any{"tft.getdoc", "i", "00001"}, `{"_id":"00001","_source":{"f0":"redis is a nosql database"}}`, false},
			{[]any{"tft.updatedocfield", "i", "00001", `{"f1":"mysql is a dbms"}`}, "OK", false},
			{[]any{"tft.getdoc", "i", "00001"}, `{"_id":"00001","_source":{"f1":"mysql is a dbms","f0":"redis is a nosql database"}}`, false},
			{[]any{"tft.exists", "i", "00001"}, int64(1), false},
			{[]any{"tft.exists", "i", "nope"}, int64(0), false},
			{[]any{"tft.madddoc", "i", `{"f0":"a"}`, "1", `{"f0":"b"}`, "2", `{"f0":"c"}`, "2"}, "OK", false},
			{[]any{"tft.docnum", "i"}, int64(3), false},
			{[]any{"tft.getdoc", "i", "2"}, `{"_id":"2","_source":{"f0":"c"}}`, false},
			{[]any{"tft.deldoc", "i", "1", "missing"}, "1", false},
			{[]any{"tft.getdoc", "i", "1"}, nil, false},
			{[]any{"tft.incrlongdocfield", "i", "n", "cnt", 1}, int64(1), false},
			{[]any{"tft.incrlongdocfield", "i", "n", "cnt", -1}, int64(0), false},
			{[]any{"tft.exists", "i", "n"}, int64(1), false},
			{[]any{"tft.incrfloatdocfield", "i", "n", "fl", "1.1"}, "1.1", false},
			{[]any{"tft.incrfloatdocfield", "i", "n", "fl", "-1.1"}, "0", false},
			{[]any{"tft.deldocfield", "i", "n", "cnt", "fl", "zz"}, int64(2), false},
			{[]any{"tft.deldocfield", "missing", "n", "x"}, int64(0), false},
			{[]any{"tft.incrlongdocfield", "i", "n", "f0", 1}, "incrlongdocfield only supports field of int or long type", true},
			{[]any{"tft.incrfloatdocfield", "i", "n", "f0", "1"}, "incrfloatdocfield only supports field of double type", true},
			{[]any{"tft.incrlongdocfield", "missing", "n", "x", 1}, "not exists", true},
			{[]any{"tft.delall", "i"}, "OK", false},
			{[]any{"tft.docnum", "i"}, int64(0), false},
			{[]any{"tft.adddoc", "i", `not json`}, "ERR", true},
		},
		"scandocid": {
			{[]any{"tft.createindex", "i", twoText}, "OK", false},
			{[]any{"tft.madddoc", "i", `{"f0":"x"}`, "1", `{"f0":"x"}`, "2", `{"f0":"x"}`, "3", `{"f0":"x"}`, "4", `{"f0":"x"}`, "5"}, "OK", false},
			{[]any{"tft.scandocid", "i", "0"}, []any{"0", []any{"1", "2", "3", "4", "5"}}, false},
			{[]any{"tft.scandocid", "i", "0", "COUNT", 3}, []any{"3", []any{"1", "2", "3"}}, false},
			{[]any{"tft.scandocid", "i", "3", "COUNT", 3}, []any{"0", []any{"4", "5"}}, false},
			{[]any{"tft.scandocid", "i", "0", "MATCH", "[24]", "COUNT", 10}, []any{"0", []any{"2", "4"}}, false},
		},
		"analyzer": {
			{[]any{"tft.analyzer", "standard", "tair is a nosql database"},
				`{"tokens":[{"token":"tair","start_offset":0,"end_offset":4,"position":0},{"token":"nosql","start_offset":10,"end_offset":15,"position":3},{"token":"database","start_offset":16,"end_offset":24,"position":4}]}`, false},
			{[]any{"tft.analyzer", "whitespace", "Redis in-memory"},
				`{"tokens":[{"token":"Redis","start_offset":0,"end_offset":5,"position":0},{"token":"in-memory","start_offset":6,"end_offset":15,"position":1}]}`, false},
			{[]any{"tft.analyzer", "ik", "x"}, "unsupported analyzer 'ik' (the embedded server ships no IK dictionary", true},
			{[]any{"tft.analyzer", "ik_smart", "x"}, "unsupported analyzer 'ik_smart' (", true},
			{[]any{"tft.analyzer", "ik_max_word", "x"}, "unsupported analyzer 'ik_max_word' (", true},
			{[]any{"tft.createindex", "ik", `{"mappings":{"properties":{"f0":{"type":"text","analyzer":"ik_smart"}}}}`}, "unsupported analyzer 'ik_smart' (", true},
			{[]any{"tft.analyzer", "nope", "x"}, "unknown analyzer 'nope'", true},
		},
		"suggestions": {
			{[]any{"tft.createindex", "i", twoText}, "OK", false},
			{[]any{"tft.addsug", "i", "redis cluster", 10, "redis lock", 4, "redis is a memory database", 3}, int64(3), false},
			{[]any{"tft.sugnum", "i"}, int64(3), false},
			{[]any{"tft.getsug", "i", "res", "MAX_COUNT", 2, "FUZZY"}, []any{"redis cluster", "redis lock"}, false},
			{[]any{"tft.getsug", "i", "redis"}, []any{"redis cluster", "redis lock", "redis is a memory database"}, false},
			{[]any{"tft.getsug", "i", "res"}, []any{}, false},
			{[]any{"tft.getallsugs", "i"}, []any{"redis cluster", "redis lock", "redis is a memory database"}, false},
			{[]any{"tft.delsug", "i", "redis lock", "redis cluster"}, int64(2), false},
			{[]any{"tft.sugnum", "i"}, int64(1), false},
		},
	}
	for name, steps := range tests {
		t.Run(name, func(t *testing.T) {
			_, c := start(t, Config{})
			runSteps(t, c, steps)
		})
	}
}

// doSearch runs a TFT.SEARCH and returns the reply text.
func doSearch(t *testing.T, c *goredis.Client, index, query string, extra ...any) string {
	t.Helper()
	out, err := c.Do(context.Background(), append([]any{"tft.search", index, query}, extra...)...).Text()
	require.NoError(t, err, query)
	return out
}

func TestSearchScoresAndShapes(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "tft.createindex", "tftkey", twoText).Err())
	require.NoError(t, c.Do(ctx, "tft.adddoc", "tftkey", `{"f0":"redis is a nosql database"}`, "WITH_ID", "1").Err())

	// N=1, n=1: idf = 1+ln(1/2) = 0.306853; dl = 3 after stop words; tf = 1/sqrt(3).
	assert.Equal(t, `{"hits":{"hits":[{"_id":"1","_index":"tftkey","_score":0.054363,"_source":{"f0":"redis is a nosql database"}}],"max_score":0.054363,"total":{"relation":"eq","value":1}}}`,
		doSearch(t, c, "tftkey", `{"query":{"term":{"f0":"redis"}}}`))
	explained, err := c.Do(ctx, "tft.explainscore", "tftkey", `{"query":{"term":{"f0":"redis"}}}`).Text()
	require.NoError(t, err)
	assert.Contains(t, explained, `"_explanation":{"score":0.054363,"description":"score, computed as query_boost * idf * idf * tf","field":"f0","term":"redis","query_boost":1.0,"details":[{"value":0.306853,"description":"idf, computed as 1 + log(N / (n + 1))","details":[{"value":1,"description":"n, number of documents containing term"},{"value":1,"description":"N, total number of documents"}]},{"value":0.57735,"description":"tf, computed as sqrt(freq) / sqrt(dl)","details":[{"value":1,"description":"freq, occurrences of term within document"},{"value":3,"description":"dl, length of field"}]}]}`)

	// terms: coord halves the score when one of two terms matches.
	out := doSearch(t, c, "tftkey", `{"query":{"terms":{"f0":["Redis","apple"]}}}`)
	assert.Contains(t, out, `"_score":0.027181`)
	// size 0, match_all boost, sort by _doc.
	assert.Equal(t, `{"hits":{"hits":[],"max_score":null,"total":{"relation":"eq","value":1}}}`, doSearch(t, c, "tftkey", `{"size":0,"query":{"match_all":{}}}`))
	assert.Contains(t, doSearch(t, c, "tftkey", `{"query":{"match_all":{"boost":2.0}}}`), `"_score":2.0`)
	assert.Contains(t, doSearch(t, c, "tftkey", `{"query":{"match":{"f0":"nosql"}},"sort":[{"_doc":{"order":"asc"}}]}`), `"_score":1.0`)
	assert.Contains(t, doSearch(t, c, "tftkey", `{"query":{"term":{"f0":"redis"}},"_source":{"includes":[],"excludes":["f0"]}}`), `"_source":{}`)
	// DSL outside the supported set is an error naming the part.
	err = c.Do(ctx, "tft.search", "tftkey", `{"query":{"match_phrase":{"f0":"a b"}}}`).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported query type 'match_phrase'")
	err = c.Do(ctx, "tft.search", "tftkey", `{"query":{"term":{"f0":"x"}},"highlight":{}}`).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported request field 'highlight'")
	err = c.Do(ctx, "tft.search", "tftkey", `{"aggs":{"a":{"percentiles":{"field":"f0"}}}}`).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported aggregation type 'percentiles'")
}

func TestSearchQueriesAndAggregations(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	mapping := `{"mappings":{"properties":{"product":{"type":"keyword"},"investor":{"type":"keyword"},"purchase_price":{"type":"double"},"qty":{"type":"long"},"desc":{"type":"text"}}}}`
	require.NoError(t, c.Do(ctx, "tft.createindex", "p", mapping).Err())
	docs := []string{
		`{"product":"Blue","investor":"Jay","purchase_price":101.1,"qty":3,"desc":"a blue fast car"}`,
		`{"product":"Red","investor":"Jay","purchase_price":111.1,"qty":5,"desc":"a red slow car"}`,
		`{"product":"Green","investor":"Mila","purchase_price":50.0,"qty":1,"desc":"a green fast bike"}`,
	}
	for i, d := range docs {
		require.NoError(t, c.Do(ctx, "tft.adddoc", "p", d, "WITH_ID", string(rune('1'+i))).Err())
	}
	total := func(q string) string {
		out := doSearch(t, c, "p", q)
		i := strings.Index(out, `"total":`)
		require.GreaterOrEqual(t, i, 0, out)
		return out[i : i+strings.Index(out[i:], "}")+1]
	}
	tests := map[string]string{
		`{"query":{"term":{"investor":"Jay"}}}`:                                                                      `"total":{"relation":"eq","value":2}`,
		`{"query":{"match":{"desc":"fast car"}}}`:                                                                    `"total":{"relation":"eq","value":3}`,
		`{"query":{"match":{"desc":{"query":"fast car","operator":"and"}}}}`:                                         `"total":{"relation":"eq","value":1}`,
		`{"query":{"match":{"desc":{"query":"fst","fuzziness":1}}}}`:                                                 `"total":{"relation":"eq","value":2}`,
		`{"query":{"bool":{"must":[{"term":{"desc":"car"}}],"must_not":[{"term":{"product":"Red"}}]}}}`:              `"total":{"relation":"eq","value":1}`,
		`{"query":{"bool":{"should":[{"term":{"desc":"bike"}},{"term":{"desc":"red"}}]}}}`:                           `"total":{"relation":"eq","value":2}`,
		`{"query":{"bool":{"should":[{"term":{"desc":"bike"}},{"term":{"desc":"fast"}}],"minimum_should_match":2}}}`: `"total":{"relation":"eq","value":1}`,
		`{"query":{"bool":{"filter":[{"range":{"qty":{"gte":3}}}]}}}`:                                                `"total":{"relation":"eq","value":2}`,
		`{"query":{"range":{"purchase_price":{"gt":60,"lt":110}}}}`:                                                  `"total":{"relation":"eq","value":1}`,
		`{"query":{"prefix":{"product":{"value":"Gr"}}}}`:                                                            `"total":{"relation":"eq","value":1}`,
		`{"query":{"wildcard":{"desc":{"value":"b*e"}}}}`:                                                            `"total":{"relation":"eq","value":2}`,
		`{"query":{"dis_max":{"queries":[{"term":{"desc":"red"}},{"term":{"desc":"green"}}]}}}`:                      `"total":{"relation":"eq","value":2}`,
		`{"query":{"constant_score":{"filter":{"term":{"qty":5}},"boost":1.5}}}`:                                     `"total":{"relation":"eq","value":1}`,
		`{"query":{"terms":{"product":["Red","Blue"]}}}`:                                                             `"total":{"relation":"eq","value":2}`,
		`{"track_total_hits":1,"query":{"match_all":{}}}`:                                                            `"total":{"relation":"gte","value":1}`,
	}
	for q, want := range tests {
		assert.Equal(t, want, total(q), q)
	}
	aggs := doSearch(t, c, "p", `{"size":0,"query":{"term":{"investor":"Jay"}},"aggs":{"price_sum":{"sum":{"field":"purchase_price"}},`+
		`"x":{"extended_stats":{"field":"purchase_price"}},"n":{"value_count":{"field":"purchase_price"}}}}`)
	assert.Equal(t, `{"hits":{"hits":[],"max_score":null,"total":{"relation":"eq","value":2}},"aggregations":{"price_sum":{"value":212.2,"type":"sum"},`+
		`"x":{"count":2,"sum":212.2,"max":111.1,"min":101.1,"avg":106.1,"sum_of_squares":22564.42,"variance":25.0,"std_deviation":5.0,"type":"extended_stats"},`+
		`"n":{"value":2.0,"type":"value_count"}}}`, aggs)
	terms := doSearch(t, c, "p", `{"size":0,"aggs":{"Per_Investor_Freq":{"terms":{"field":"investor"},"aggs":{"s":{"sum":{"field":"purchase_price"}}}},`+
		`"f":{"filter":{"term":{"investor":"Jay"}},"aggs":{"m":{"max":{"field":"qty"}}}}}}`)
	assert.Contains(t, terms, `"Per_Investor_Freq":{"type":"sterms","buckets":[{"key":"Jay","doc_count":2,"s":{"value":212.2,"type":"sum"}},{"key":"Mila","doc_count":1,"s":{"value":50.0,"type":"sum"}}]}`)
	assert.Contains(t, terms, `"f":{"doc_count":2,"type":"filter","m":{"value":5.0,"type":"max"}}`)
	byKey := doSearch(t, c, "p", `{"size":0,"aggs":{"a":{"terms":{"field":"product","order":{"_key":"asc"},"size":2}}}}`)
	assert.Contains(t, byKey, `"buckets":[{"key":"Blue","doc_count":1},{"key":"Green","doc_count":1}]`)
	sorted := doSearch(t, c, "p", `{"query":{"match_all":{}},"sort":[{"purchase_price":{"order":"desc"}}],"size":2,"_source":{"includes":["product"]}}`)
	assert.Equal(t, `{"hits":{"hits":[{"_id":"2","_index":"p","_score":1.0,"_source":{"product":"Red"}},{"_id":"1","_index":"p","_score":1.0,"_source":{"product":"Blue"}}],"max_score":1.0,"total":{"relation":"eq","value":3}}}`, sorted)
	err := c.Do(ctx, "tft.search", "p", `{"aggs":{"a":{"terms":{"field":"desc"}}}}`).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "terms aggregation on text field 'desc'")
}

func TestSearchCacheServesStaleUntilExpiry(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "tft.createindex", "i", twoText).Err())
	require.NoError(t, c.Do(ctx, "tft.adddoc", "i", `{"f0":"redis"}`, "WITH_ID", "1").Err())
	q := `{"query":{"term":{"f0":"redis"}}}`
	first := doSearch(t, c, "i", q, "use_cache")
	require.NoError(t, c.Do(ctx, "tft.adddoc", "i", `{"f0":"redis"}`, "WITH_ID", "2").Err())
	assert.Equal(t, first, doSearch(t, c, "i", q, "use_cache"), "cached reply is served stale")
	assert.Contains(t, doSearch(t, c, "i", q), `"value":2`, "without use_cache the reply is fresh")
}

func TestMSearchAndCRC(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	for _, k := range []string{"{idx}_1", "{idx}_2"} {
		require.NoError(t, c.Do(ctx, "tft.createindex", k, twoText).Err())
		require.NoError(t, c.Do(ctx, "tft.madddoc", k, `{"f0":"redis is fast"}`, k+"a", `{"f0":"redis cluster"}`, k+"b", `{"f0":"other words here"}`, k+"c").Err())
	}
	out, err := c.Do(ctx, "tft.msearch", 2, "{idx}_1", "{idx}_2", `{"size":10,"query":{"match":{"f0":"redis"}},"reply_with_keys_cursor":true}`).Text()
	require.NoError(t, err)
	assert.Contains(t, out, `"total":{"relation":"eq","value":4}`)
	assert.Contains(t, out, `"aux_info":{"index_crc64":52600736426816810,"keys_cursor":{"{idx}_1":2,"{idx}_2":2}}`)
	cursor, err := c.Do(ctx, "tft.msearch", 2, "{idx}_1", "{idx}_2", `{"size":1,"query":{"match":{"f0":"redis"}},"keys_cursor":{"{idx}_1":2,"{idx}_2":1},"reply_with_keys_cursor":true}`).Text()
	require.NoError(t, err)
	assert.Contains(t, cursor, `"keys_cursor":{"{idx}_1":2,"{idx}_2":2}`)
}

// hitIDs returns "index/id" for every hit of a search reply.
func hitIDs(t *testing.T, reply string) []string {
	t.Helper()
	var res struct {
		Hits struct {
			Hits []struct {
				Index string `json:"_index"`
				ID    string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal([]byte(reply), &res), reply)
	var out []string
	for _, h := range res.Hits.Hits {
		out = append(out, h.Index+"/"+h.ID)
	}
	return out
}

// TestMSearchMergeOrder: hits of several indexes come in one order, by the
// requested sort (_doc: global insertion order) and then by index name and
// document id, whatever order the indexes are named in, and keys_cursor
// pages continue it.
func TestMSearchMergeOrder(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	msearch := func(query string, keys ...string) []string {
		t.Helper()
		args := []any{"tft.msearch", len(keys)}
		for _, k := range keys {
			args = append(args, k)
		}
		out, err := c.Do(ctx, append(args, query)...).Text()
		require.NoError(t, err)
		return hitIDs(t, out)
	}
	for _, k := range []string{"i1", "i2"} {
		require.NoError(t, c.Do(ctx, "tft.createindex", k, twoText).Err())
	}
	// Written in the order 00001, 00002 (to i1), then 00003, 00004 (to i2).
	for _, d := range [][2]string{{"i1", "00001"}, {"i1", "00002"}, {"i2", "00003"}, {"i2", "00004"}} {
		require.NoError(t, c.Do(ctx, "tft.adddoc", d[0], `{"f0":"redis"}`, "WITH_ID", d[1]).Err())
	}
	byDoc := `{"sort":[{"_doc":{"order":"asc"}}]}`
	want := []string{"i1/00001", "i1/00002", "i2/00003", "i2/00004"}
	assert.Equal(t, want, msearch(byDoc, "i1", "i2"))
	assert.Equal(t, want, msearch(byDoc, "i2", "i1"), "the order of the keys does not matter")
	assert.Equal(t, []string{"i2/00004", "i2/00003", "i1/00002", "i1/00001"}, msearch(`{"sort":[{"_doc":{"order":"desc"}}]}`, "i1", "i2"))

	// Three indexes given documents 1, 2, 3 in that order; the query matches 1
	// and 3 with equal scores.
	for _, k := range []string{"key0", "key1", "key2"} {
		require.NoError(t, c.Do(ctx, "tft.createindex", k, twoText).Err())
		for _, d := range [][2]string{{"1", "tair redis"}, {"2", "other words"}, {"3", "tair redis"}} {
			require.NoError(t, c.Do(ctx, "tft.adddoc", k, `{"f0":"`+d[1]+`"}`, "WITH_ID", d[0]).Err())
		}
	}
	match := `{"query":{"match":{"f0":"tair"}}}`
	all := []string{"key0/1", "key0/3", "key1/1", "key1/3", "key2/1", "key2/3"}
	assert.Equal(t, all, msearch(match, "key0", "key1", "key2"))
	assert.Equal(t, all, msearch(match, "key2", "key0", "key1"))
	// Pages of two through keys_cursor continue the same order.
	var paged []string
	cursor := `{"key0":0,"key1":0,"key2":0}`
	for range 3 {
		out, err := c.Do(ctx, "tft.msearch", 3, "key1", "key2", "key0",
			`{"size":2,"query":{"match":{"f0":"tair"}},"keys_cursor":`+cursor+`,"reply_with_keys_cursor":true}`).Text()
		require.NoError(t, err)
		paged = append(paged, hitIDs(t, out)...)
		var aux struct {
			Aux struct {
				Cursor json.RawMessage `json:"keys_cursor"`
			} `json:"aux_info"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &aux))
		cursor = string(aux.Aux.Cursor)
	}
	assert.Equal(t, all, paged)
	// The spec's page: cursors {key0:2,key1:1,key2:0}, size 2.
	out, err := c.Do(ctx, "tft.msearch", 3, "key0", "key1", "key2",
		`{"size":2,"query":{"match":{"f0":"tair"}},"keys_cursor":{"key0":2,"key1":1,"key2":0},"reply_with_keys_cursor":true}`).Text()
	require.NoError(t, err)
	assert.Equal(t, []string{"key1/3", "key2/1"}, hitIDs(t, out))
	assert.Contains(t, out, `"keys_cursor":{"key0":2,"key1":2,"key2":1}`)
}

func TestSearchInTransactionsAndMemory(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	cmds, err := c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Do(ctx, "tft.createindex", "i", twoText)
		p.Do(ctx, "tft.adddoc", "i", `{"f0":"hello world"}`, "WITH_ID", "1")
		p.Do(ctx, "tft.search", "i", `{"query":{"term":{"f0":"hello"}}}`)
		return nil
	})
	require.NoError(t, err)
	assert.Contains(t, cmds[2].(*goredis.Cmd).Val(), `"value":1`)
	info := c.Info(ctx, "memory").Val()
	assert.Contains(t, info, "tairsearch_indexes:1")
	require.NoError(t, c.Do(ctx, "del", "i").Err())
	assert.Contains(t, c.Info(ctx, "memory").Val(), "tairsearch_indexes:0")
}

func TestSearchMappingFeatures(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	m := `{"mappings":{"_source":{"excludes":["secret"]},"properties":{"ok":{"type":"boolean"},"n":{"type":"integer"},"obj":{"properties":{"f1":{"type":"long"}}}}}}`
	require.NoError(t, c.Do(ctx, "tft.createindex", "m", m).Err())
	before := usedMemory(t, c)
	require.NoError(t, c.Do(ctx, "tft.adddoc", "m", `{"ok":true,"n":1,"obj":{"f1":10},"secret":"x"}`, "WITH_ID", "1").Err())
	require.NoError(t, c.Do(ctx, "tft.adddoc", "m", `{"ok":false,"n":2,"obj":{"f1":20}}`, "WITH_ID", "2").Err())
	assert.Equal(t, `{"_id":"1","_source":{"ok":true,"n":1,"obj":{"f1":10}}}`, c.Do(ctx, "tft.getdoc", "m", "1").Val())
	assert.Contains(t, doSearch(t, c, "m", `{"query":{"term":{"ok":true}}}`), `"total":{"relation":"eq","value":1}`)
	assert.Contains(t, doSearch(t, c, "m", `{"query":{"term":{"obj.f1":20}}}`), `"_id":"2"`)
	assert.Contains(t, doSearch(t, c, "m", `{"query":{"range":{"n":{"gte":1,"lte":2}}}}`), `"value":2`)
	err := c.Do(ctx, "tft.adddoc", "m", `{"n":"not a number"}`).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "failed to parse field [n] of type [integer]")
	assert.Greater(t, usedMemory(t, c), before, "INFO used_memory counts the index")
}

func usedMemory(t *testing.T, c *goredis.Client) int64 {
	for _, l := range strings.Split(c.Info(context.Background(), "memory").Val(), "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			var n int64
			for _, ch := range v {
				n = n*10 + int64(ch-'0')
			}
			return n
		}
	}
	t.Fatal("no used_memory")
	return 0
}

func TestKeysAndScan(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	for _, k := range []string{"a1", "a2", "b1"} {
		require.NoError(t, c.Set(ctx, k, "v", 0).Err())
	}
	require.NoError(t, c.Do(ctx, "tr.setbit", "bm", 1, 1).Err())
	keys := c.Keys(ctx, "a*").Val()
	assert.ElementsMatch(t, []string{"a1", "a2"}, keys)
	var all []string
	cursor := uint64(0)
	for {
		ks, next, err := c.Scan(ctx, cursor, "*", 2).Result()
		require.NoError(t, err)
		all = append(all, ks...)
		if next == 0 {
			break
		}
		cursor = next
	}
	assert.ElementsMatch(t, []string{"a1", "a2", "b1", "bm"}, all)
	ks, _, err := c.ScanType(ctx, 0, "*", 1000, "tairroaring").Result()
	require.NoError(t, err)
	assert.Equal(t, []string{"bm"}, ks)
}

// jiebaMapping is the spec's example mapping: a jieba field and a custom
// jieba analyzer with user words and HMM.
const jiebaMapping = `{"mappings":{"dynamic":"false","_source":{"enabled":true},"properties":{` +
	`"f0":{"type":"text","analyzer":"jieba"},"f1":{"type":"text","analyzer":"my_jieba"}}},` +
	`"settings":{"analysis":{"analyzer":{"my_jieba":{"type":"jieba","userwords":["key-value数据结构存储"],"use_hmm":true}}}}}`

// tairParagraph is the reference's jieba example (tair-api.md 3.8, #24).
const tairParagraph = "Redis是完全开源免费的，遵守BSD协议，是一个灵活的高性能key-value数据结构存储，可以用来作为数据库、缓存和消息队列。"

// TestJiebaAnalyzer checks Tair's jieba analyzer token for token: search-mode
// sub-words (性能 before 高性能; 数据, 结构 before 数据结构), stop words dropped
// (是, 的, 可以, 用来, 作为, 和), positions over every token of the cut, the
// dropped ones and punctuation included, offsets in characters.
func TestJiebaAnalyzer(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	out, err := c.Do(ctx, "tft.analyzer", "jieba", tairParagraph).Text()
	require.NoError(t, err)
	want := []string{
		`{"token":"redis","start_offset":0,"end_offset":5,"position":0}`,
		`{"token":"完全","start_offset":6,"end_offset":8,"position":2}`,
		`{"token":"开源","start_offset":8,"end_offset":10,"position":3}`,
		`{"token":"免费","start_offset":10,"end_offset":12,"position":4}`,
		`{"token":"遵守","start_offset":14,"end_offset":16,"position":7}`,
		`{"token":"bsd","start_offset":16,"end_offset":19,"position":8}`,
		`{"token":"协议","start_offset":19,"end_offset":21,"position":9}`,
		`{"token":"一个","start_offset":23,"end_offset":25,"position":12}`,
		`{"token":"灵活","start_offset":25,"end_offset":27,"position":13}`,
		`{"token":"性能","start_offset":29,"end_offset":31,"position":15}`,
		`{"token":"高性能","start_offset":28,"end_offset":31,"position":16}`,
		`{"token":"key","start_offset":31,"end_offset":34,"position":17}`,
		`{"token":"value","start_offset":35,"end_offset":40,"position":19}`,
		`{"token":"数据","start_offset":40,"end_offset":42,"position":20}`,
		`{"token":"结构","start_offset":42,"end_offset":44,"position":21}`,
		`{"token":"数据结构","start_offset":40,"end_offset":44,"position":22}`,
		`{"token":"存储","start_offset":44,"end_offset":46,"position":23}`,
		`{"token":"数据","start_offset":53,"end_offset":55,"position":28}`,
		`{"token":"数据库","start_offset":53,"end_offset":56,"position":29}`,
		`{"token":"缓存","start_offset":57,"end_offset":59,"position":31}`,
		`{"token":"消息","start_offset":60,"end_offset":62,"position":33}`,
		`{"token":"队列","start_offset":62,"end_offset":64,"position":34}`,
	}
	assert.Equal(t, `{"tokens":[`+strings.Join(want, ",")+`]}`, out)

	runSteps(t, c, []step{
		{[]any{"tft.createindex", "zh", jiebaMapping}, "OK", false},
		{[]any{"tft.getindex", "zh", "settings"}, `{"zh":{"settings":{"analysis":{"analyzer":{"my_jieba":{"type":"jieba","userwords":["key-value数据结构存储"],"use_hmm":true}}}}}}`, false},
		{[]any{"tft.adddoc", "zh", `{"f0":"Redis是一个高性能的key-value数据库","f1":"Tair是一个key-value数据结构存储服务"}`, "WITH_ID", "1"}, `{"_id":"1"}`, false},
		{[]any{"tft.adddoc", "zh", `{"f0":"我们测量了每秒查询次数和百分位延迟","f1":"数据结构"}`, "WITH_ID", "2"}, `{"_id":"2"}`, false},
		{[]any{"tft.createindex", "bad", `{"mappings":{"properties":{"f0":{"type":"text","analyzer":"a"}}},"settings":{"analysis":{"analyzer":{"a":{"type":"jieba","use_hmm":"yes"}}}}}`}, "use_hmm must be true or false", true},
	})
	mappings, err := c.Do(ctx, "tft.getindex", "zh", "mappings").Text()
	require.NoError(t, err)
	assert.Contains(t, mappings, `"f0":{"analyzer":"jieba","boost":1.0`, "the mapping is echoed with its analyzer")
	assert.Contains(t, mappings, `"f1":{"analyzer":"my_jieba","boost":1.0`)

	ids := func(query string) []string {
		t.Helper()
		var res struct {
			Hits struct {
				Hits []struct {
					ID string `json:"_id"`
				} `json:"hits"`
			} `json:"hits"`
		}
		require.NoError(t, json.Unmarshal([]byte(doSearch(t, c, "zh", query)), &res), query)
		var out []string
		for _, h := range res.Hits.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	assert.Equal(t, []string{"1"}, ids(`{"query":{"term":{"f0":"数据库"}}}`), "found by word")
	assert.Equal(t, []string{"2"}, ids(`{"query":{"match":{"f0":"查询次数"}}}`), "a match query is cut by the same analyzer")
	assert.Empty(t, ids(`{"query":{"term":{"f0":"据"}}}`), "words, not single characters")
	assert.Equal(t, []string{"1"}, ids(`{"query":{"term":{"f1":"key-value数据结构存储"}}}`), "a user word is one token")
	assert.Equal(t, []string{"2"}, ids(`{"query":{"term":{"f1":"数据结构"}}}`))

	out, err = c.Do(ctx, "tft.analyzer", "my_jieba", "Tair是一个key-value数据结构存储服务", "INDEX", "zh").Text()
	require.NoError(t, err)
	// Search mode yields the user word's dictionary sub-words (数据, 结构, 存储
	// at 3-5) before the word itself, which stays one token.
	assert.Contains(t, out, `{"token":"key-value数据结构存储","start_offset":7,"end_offset":22,"position":6}`)
}

// TestTiesInIDOrderWhateverTheWriteOrder: hits that tie on score come back
// in ascending document id order (tair-api.md 3.5), after TFT.MADDDOC of
// the same documents in 20 random orders, with and without a sort.
func TestTiesInIDOrderWhateverTheWriteOrder(t *testing.T) {
	_, c := start(t, Config{})
	ctx := context.Background()
	ids := []string{"1", "2", "3", "10", "a", "b-7", "00005", "z"}
	want := slices.Clone(ids)
	slices.Sort(want)
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 20 {
		key := fmt.Sprintf("ties%d", round)
		require.NoError(t, c.Do(ctx, "tft.createindex", key, `{"mappings":{"properties":{"f0":{"type":"text"},"n":{"type":"long"}}}}`).Err())
		order := slices.Clone(ids)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		args := []any{"tft.madddoc", key}
		for _, id := range order {
			args = append(args, `{"f0":"tair redis","n":1}`, id)
		}
		require.NoError(t, c.Do(ctx, args...).Err())
		for _, q := range []string{`{"size":20,"query":{"match":{"f0":"tair"}}}`, `{"size":20,"query":{"match_all":{}}}`,
			`{"size":20,"query":{"term":{"f0":"redis"}},"sort":[{"n":{"order":"asc"}}]}`} {
			var got []string
			for _, h := range hitIDs(t, doSearch(t, c, key, q)) {
				got = append(got, strings.TrimPrefix(h, key+"/"))
			}
			require.Equal(t, want, got, "written in the order %v, query %s", order, q)
		}
	}
}

// The search limits refuse with their flag: a body over --max-query-bytes,
// and a request whose charge (QueryCost × its body) would pass
// --max-query-memory; the charge is released when the request ends.
func TestQueryBytesAndMemoryRefused(t *testing.T) {
	s, c := start(t, Config{MaxQueryBytes: 64 << 10, MaxQueryMemory: 1 << 20})
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "tft.createindex", "q", twoText).Err())
	big := `{"query":{"match":{"f0":"` + strings.Repeat("a ", 40<<10) + `"}}}`
	err := c.Do(ctx, "tft.search", "q", big).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tairbench serve --max-query-bytes")
	mid := `{"query":{"match":{"f0":"` + strings.Repeat("b ", 20<<10) + `"}}}` // 40 KB × 32 > 1 MiB
	err = c.Do(ctx, "tft.search", "q", mid).Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tairbench serve --max-query-memory")
	small := `{"query":{"match":{"f0":"redis"}}}`
	for range 100 {
		require.NoError(t, c.Do(ctx, "tft.search", "q", small).Err(), "charges are released")
	}
	assert.Zero(t, s.queries.used.Load())
}
