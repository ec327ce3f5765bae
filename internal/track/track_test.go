package track

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tairbench/tairbench/internal/fulltext"
)

func TestBuiltinTracksLoad(t *testing.T) {
	require.Equal(t, []string{"ecommerce-zh", "whitepaper", "wiki-en"}, Builtin())
	for _, name := range Builtin() {
		tr, err := Load(name)
		require.NoError(t, err, name)
		for _, zh := range ChineseAnalyzers {
			_, notes, err := ProposeElasticsearch(tr.Index.TairSearch, zh)
			require.NoError(t, err, name)
			assert.NotEmpty(t, notes, name)
		}
	}
}

func TestEcommerceScanAndExpand(t *testing.T) {
	tr, err := Load("ecommerce-zh")
	require.NoError(t, err)
	tr.Corpus.Docs = 500
	s, err := tr.ScanCorpus()
	require.NoError(t, err)
	assert.Equal(t, int64(500), s.Docs)
	for _, name := range []string{"head", "torso", "tail", "category"} {
		assert.NotEmpty(t, s.Pools[name].Values, name)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, task := range tr.Tasks {
		for _, q := range task.Queries {
			tp, err := Compile(q.Body)
			require.NoError(t, err)
			b, err := tp.Bind(s.Pools)
			require.NoError(t, err)
			out := b.Expand(nil, r)
			require.True(t, json.Valid(out), "%s: %s", q.Name, out)
			assert.NotContains(t, string(out), "{{", q.Name)
		}
	}
	// A range keeps its type and its order.
	tp, err := Compile(json.RawMessage(`{"range":{"price":{"gte":"{{price.from}}","lte":"{{price.to}}"}}}`))
	require.NoError(t, err)
	b, err := tp.Bind(s.Pools)
	require.NoError(t, err)
	var q struct {
		Range struct{ Price struct{ Gte, Lte float64 } }
	}
	require.NoError(t, json.Unmarshal(b.Expand(nil, r), &q))
	assert.Less(t, q.Range.Price.Gte, q.Range.Price.Lte)
}

func TestExpandDoesNotAllocate(t *testing.T) {
	pools := map[string]*Pool{"w": {Values: []Value{valueOf("数据"), valueOf("缓存")}}, "p": {Range: true, Lo: 1, Hi: 100, Width: 0.1, Integer: true}}
	tp, err := Compile(json.RawMessage(`{"query":{"match":{"title":"{{w}} x"}},"r":"{{p.from}}","s":"{{p.to}}","t":"{{w}}"}`))
	require.NoError(t, err)
	b, err := tp.Bind(pools)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	buf := b.Expand(nil, r)
	assert.True(t, json.Valid(buf), string(buf))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { buf = b.Expand(buf[:0], r) }))
}

// Every input the track refuses is named in one line.
func TestTrackErrors(t *testing.T) {
	base := `{"name":"t","corpus":{"generator":"products-zh","docs":10},"index":{"name":"i","tairsearch":{"mappings":{"properties":{"title":{"type":"text"},"price":{"type":"double"}}}}},
	"params":{"w":{"kind":"terms","field":"title","band":"head"}},"tasks":[%s]}`
	for _, c := range []struct{ tasks, want string }{
		{`{"name":"q","iterations":1,"queries":[{"name":"a","body":{"query":{"match":{"title":"{{nope}}"}}}}]}`, "task q, template a: unknown parameter {{nope}} (the track defines w)"},
		{`{"name":"q","queries":[{"name":"a","body":{}}]}`, "task q: a query task needs duration or iterations"},
		{`{"name":"q","iterations":1,"queries":[{"name":"a","body":{"x":"{{w.from}}"}}]}`, "only a range has .from and .to"},
		{`{"name":"q","iterations":1,"queries":[{"name":"a","body":"{"}]}`, "task q, template a: body must be a JSON object"},
		{`{"name":"q"}`, "task q: give ingest, queries or both"},
	} {
		_, err := Parse([]byte(strings.Replace(base, "%s", c.tasks, 1)))
		require.Error(t, err, c.tasks)
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := Parse([]byte(`{"name":"t","corpus":{"generator":"x","docs":1},"index":{"name":"i","tairsearch":{"mappings":{}}},"tasks":[]}`))
	assert.ErrorContains(t, err, `unknown generator "x"`)
	_, err = Load("no-such-track")
	assert.ErrorContains(t, err, "not a built-in track (ecommerce-zh, whitepaper, wiki-en)")
}

// A corpus with lines that are not JSON is refused before anything is
// written, naming the first line and the count; .gz and .zst read alike.
func TestCorpusLines(t *testing.T) {
	dir := t.TempDir()
	lines := "{\"_id\":\"a\",\"title\":\"数据库\"}\n\n{\"_id\":7,\"title\":\"缓存\"}\n{\"title\":\"队列\"}\n"
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines))
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	for _, p := range []string{write("c.jsonl", []byte(lines)), write("c.jsonl.gz", gz.Bytes()), write("c.jsonl.zst", enc.EncodeAll([]byte(lines), nil))} {
		tr := &Track{Corpus: Corpus{File: p}}
		r, err := tr.Open()
		require.NoError(t, err)
		var ids []string
		var d Doc
		for r.Next(&d) == nil {
			ids = append(ids, d.ID)
			assert.NotContains(t, string(d.JSON), "_id")
		}
		r.Close()
		assert.Equal(t, []string{"a", "7", "4"}, ids, p)
	}
	bad := write("bad.jsonl", []byte("{\"title\":\"x\"}\nnot json\n{\"title\":\"y\"}\n[1]\n"))
	tr, err := Parse([]byte(`{"name":"t","corpus":{"file":"` + bad + `"},"index":{"name":"i","tairsearch":{"mappings":{"properties":{"title":{"type":"text"}}}}},"tasks":[{"name":"w","ingest":{}}]}`))
	require.NoError(t, err)
	_, err = tr.ScanCorpus()
	require.Error(t, err)
	assert.Equal(t, "corpus "+bad+" line 2: not a JSON object: invalid character 'o' in literal null (expecting 'u') (2 of 4 lines are not JSON objects; nothing was written)", err.Error())
}

func TestProposeElasticsearch(t *testing.T) {
	mapping := json.RawMessage(`{"mappings":{"properties":{"t":{"type":"text","analyzer":"jieba"},"e":{"type":"text"},
	"k":{"type":"keyword","ignore_above":64},"o":{"properties":{"n":{"type":"long"}}},"w":{"type":"text","analyzer":"my"},
	"u":{"type":"text","analyzer":"my_jieba"}}},
	"settings":{"analysis":{"analyzer":{"my":{"type":"custom","tokenizer":"whitespace"},
	"my_jieba":{"type":"jieba","userwords":["key-value数据结构存储"],"use_hmm":false}}}}}`)
	type body struct {
		Settings struct {
			Analysis struct {
				Analyzer map[string]json.RawMessage `json:"analyzer"`
			} `json:"analysis"`
		} `json:"settings"`
		Mappings json.RawMessage `json:"mappings"`
	}
	stop, _ := json.Marshal(fulltext.ChineseStopWords())
	tests := []struct {
		chinese, zhName, impl, zhDef, userName, userDef, userWhy string
	}{
		{"", "tair_jieba", "jieba on jieba-analysis 1.0.2", `{"type":"jieba","stopwords":` + string(stop) + `}`,
			"my_jieba", `{"type":"jieba","stopwords":` + string(stop) + `,"userwords":["key-value数据结构存储"]}`, "use_hmm false on TairSearch only"},
		{"smartcn", "tair_smartcn", "Lucene smartcn", `{"type":"smartcn","stopwords":` + string(stop) + `}`, "tair_smartcn", "", "smartcn knows no user words"},
	}
	for _, tc := range tests {
		t.Run(tc.zhName, func(t *testing.T) {
			raw, notes, err := ProposeElasticsearch(mapping, tc.chinese)
			require.NoError(t, err)
			var got body
			require.NoError(t, json.Unmarshal(raw, &got))
			assert.JSONEq(t, `{"dynamic":false,"properties":{"t":{"type":"text","analyzer":"`+tc.zhName+`"},"e":{"type":"text","analyzer":"tair_standard"},
			"k":{"type":"keyword","ignore_above":64},"o":{"properties":{"n":{"type":"long"}}},"w":{"type":"text","analyzer":"my"},
			"u":{"type":"text","analyzer":"`+tc.userName+`"}}}`, string(got.Mappings))
			an := got.Settings.Analysis.Analyzer
			assert.JSONEq(t, `{"type":"custom","tokenizer":"whitespace"}`, string(an["my"]))
			assert.JSONEq(t, `{"type":"standard","stopwords":"_english_"}`, string(an["tair_standard"]))
			assert.JSONEq(t, tc.zhDef, string(an[tc.zhName]), "the jieba analyzer's stop words are dropped on Elasticsearch too")
			if tc.userDef != "" {
				assert.JSONEq(t, tc.userDef, string(an[tc.userName]), "the user words come along")
			}
			require.Len(t, notes, 4)
			assert.Equal(t, Translation{Field: "t", TairSearch: "jieba", Elasticsearch: tc.zhName, Implementation: tc.impl, Why: notes[1].Why}, notes[1])
			assert.False(t, notes[1].Exact)
			assert.True(t, notes[0].Exact)
			assert.Contains(t, notes[2].Why, tc.userWhy)
			assert.Equal(t, tc.impl, notes[2].Implementation)
		})
	}
	_, _, err := ProposeElasticsearch(mapping, "ik")
	assert.EqualError(t, err, `unknown Chinese analyzer "ik" for Elasticsearch (choose jieba or smartcn)`)
}

func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{"a":"{{x}}","b":"c {{y.from}} d"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tp, err := Compile(b)
		if err != nil {
			return
		}
		_ = tp.Params()
	})
}

// docs/search.md shows the built-in Chinese track as it is.
func TestDocsShowTheChineseTrack(t *testing.T) {
	doc, err := os.ReadFile("../../docs/search.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(doc), "The Chinese e-commerce track, `internal/track/tracks/ecommerce-zh.json`:\n\n```json\n")
	require.True(t, ok)
	shown, _, _ := strings.Cut(after, "```")
	file, err := builtin.ReadFile("tracks/ecommerce-zh.json")
	require.NoError(t, err)
	assert.JSONEq(t, string(file), shown)
}

// A YAML track reads as the JSON one it stands for.
func TestYAMLTrack(t *testing.T) {
	dir := t.TempDir()
	y := `name: t
corpus: {generator: products-zh, docs: 10}
index:
  name: p
  tairsearch:
    mappings:
      properties:
        title: {type: text, analyzer: jieba}
params:
  w: {kind: terms, field: title, band: head}
tasks:
  - name: q
    iterations: 5
    queries:
      - name: m
        body: {query: {match: {title: "{{w}}"}}}
`
	p := filepath.Join(dir, "t.yaml")
	require.NoError(t, os.WriteFile(p, []byte(y), 0o644))
	tr, err := Load(p)
	require.NoError(t, err)
	assert.Equal(t, "t", tr.Name)
	assert.JSONEq(t, `{"query":{"match":{"title":"{{w}}"}}}`, string(tr.Tasks[0].Queries[0].Body))
	require.NoError(t, os.WriteFile(p, []byte("name: [unclosed"), 0o644))
	_, err = Load(p)
	assert.ErrorContains(t, err, "not YAML")
}

// TestInputCaps: a track file over MaxTrackFile and a line over MaxLine
// are refused with the cap named, not read whole or failed with the
// scanner's bare error.
func TestInputCaps(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte(" "), MaxTrackFile+1), 0o644))
	_, err := Load(big)
	assert.ErrorContains(t, err, big+" is larger than 16 MiB, the cap on a track file")

	b, err := readCapped(big, MaxTrackFile+1)
	require.NoError(t, err, "a file at the cap is read")
	assert.Len(t, b, MaxTrackFile+1)

	sc := bufio.NewScanner(strings.NewReader("short\n" + strings.Repeat("x", 100) + "\n"))
	sc.Buffer(make([]byte, 0, 16), 64)
	var line int64
	for sc.Scan() {
		line++
	}
	assert.EqualError(t, scanErr("corpus", "c.jsonl", line, sc.Err()), "corpus c.jsonl line 2: longer than 64 MiB, the cap on one line")
	assert.EqualError(t, scanErr("corpus", "c.jsonl", 3, io.ErrUnexpectedEOF), "corpus c.jsonl after line 3: unexpected EOF")
}
