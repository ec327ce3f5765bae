// Command bleve-compare measures bleve v2 on the data and queries that
// internal/search's BenchmarkWiki* use, so that the engine choice for the
// embedded TairSearch rests on numbers. It lives in its own module to keep
// bleve out of tairbench's dependencies. Run: go run . (from this folder).
package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

type doc struct {
	ID, URL, Title, Abstract string
}

func load(path string, copies int) []doc {
	raw, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	re := regexp.MustCompile(`(?s)<title>Wikipedia: (.*?)</title>\s*<url>(.*?)</url>\s*<abstract>(.*?)</abstract>`)
	var base []doc
	for _, m := range re.FindAllSubmatch(raw, -1) {
		base = append(base, doc{URL: string(m[2]), Title: string(m[1]), Abstract: string(bytes.TrimSpace(m[3]))})
	}
	var out []doc
	for c := 0; c < copies; c++ {
		for _, d := range base {
			d.ID = fmt.Sprint(len(out) + 1)
			out = append(out, d)
		}
	}
	return out
}

func main() {
	docs := load("../../testdata/wiki/enwiki-abstract-sample-2019.xml", 100)
	m := bleve.NewIndexMapping()
	dm := bleve.NewDocumentMapping()
	kw := bleve.NewKeywordFieldMapping()
	kw.Index, kw.DocValues = true, true
	dm.AddFieldMappingsAt("ID", kw)
	off := bleve.NewTextFieldMapping()
	off.Index = false
	dm.AddFieldMappingsAt("URL", off)
	dm.AddFieldMappingsAt("Title", off)
	dm.AddFieldMappingsAt("Abstract", bleve.NewTextFieldMapping())
	m.DefaultMapping = dm
	ix, err := bleve.NewMemOnly(m)
	if err != nil {
		panic(err)
	}
	start := time.Now()
	b := ix.NewBatch()
	for i, d := range docs {
		_ = b.Index(d.ID, d)
		if (i+1)%1000 == 0 {
			if err := ix.Batch(b); err != nil {
				panic(err)
			}
			b = ix.NewBatch()
		}
	}
	_ = ix.Batch(b)
	el := time.Since(start)
	fmt.Printf("bleve ingest: %d docs in %.2f s = %.0f docs/s\n", len(docs), el.Seconds(), float64(len(docs))/el.Seconds())
	for _, term := range []string{"hello", "world"} {
		q := query.NewTermQuery(term)
		q.SetField("Abstract")
		req := bleve.NewSearchRequestOptions(q, 10, 0, false)
		var total uint64
		const n = 200
		start = time.Now()
		for i := 0; i < n; i++ {
			res, err := ix.Search(req)
			if err != nil {
				panic(err)
			}
			total = res.Total
		}
		el = time.Since(start)
		fmt.Printf("bleve term %q: %d hits, %.1f µs/query\n", term, total, float64(el.Microseconds())/n)
		req.Size = 0
		req.AddFacet("a1", bleve.NewFacetRequest("ID", 10))
		start = time.Now()
		for i := 0; i < n; i++ {
			if _, err := ix.Search(req); err != nil {
				panic(err)
			}
		}
		el = time.Since(start)
		fmt.Printf("bleve term %q + terms facet on ID: %.1f µs/query\n", term, float64(el.Microseconds())/n)
	}
}
