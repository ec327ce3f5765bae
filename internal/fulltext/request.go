package fulltext

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// Request is a parsed search request.
type Request struct {
	// started and deadline are when its evaluation started and must stop
	// (Limits.MaxTime after), set by its first evaluation; stop, when set,
	// stops it once it says true (its client left).
	started, deadline time.Time
	stop              func() bool
	query             query
	from, size        int
	trackLimit        int64 // -1: exact
	includes          []string
	excludes          []string
	noSource          bool
	sorts             []sortSpec
	aggs              []aggSpec
	// MSEARCH
	keysCursor   map[string]int
	replyCursors bool
}

type sortSpec struct {
	field string // "_score", "_doc" or a field
	desc  bool
}

// ParseRequest parses a TFT.SEARCH request body.
func ParseRequest(raw []byte) (*Request, error) {
	if err := checkDepth(raw); err != nil {
		return nil, err
	}
	members, err := parseObject(raw)
	if err != nil {
		return nil, qerr("invalid json: %v", err)
	}
	r := &Request{size: 10, trackLimit: -1}
	for _, m := range members {
		var v any
		if err := unmarshalNumber(m.Val, &v); err != nil {
			return nil, qerr("invalid json in '%s'", m.Key)
		}
		switch m.Key {
		case "query":
			if r.query, err = parseQuery(v); err != nil {
				return nil, err
			}
		case "from":
			if r.from, err = asInt(v, "from"); err != nil || r.from < 0 {
				return nil, qerr("from must be a whole number >= 0")
			}
		case "size":
			if r.size, err = asInt(v, "size"); err != nil || r.size < 0 {
				return nil, qerr("size must be a whole number >= 0")
			}
		case "track_total_hits":
			switch x := v.(type) {
			case bool:
				if !x {
					r.trackLimit = 10000
				}
			default:
				n, err := asInt(v, "track_total_hits")
				if err != nil {
					return nil, err
				}
				r.trackLimit = int64(n)
			}
		case "_source":
			if err := r.parseSource(v); err != nil {
				return nil, err
			}
		case "sort":
			if r.sorts, err = parseSort(v); err != nil {
				return nil, err
			}
		case "aggs", "aggregations":
			if r.aggs, err = parseAggs(m.Val); err != nil {
				return nil, err
			}
		case "keys_cursor":
			o, err := asObject(v, "keys_cursor")
			if err != nil {
				return nil, err
			}
			r.keysCursor = map[string]int{}
			for k, x := range o {
				if r.keysCursor[k], err = asInt(x, "keys_cursor."+k); err != nil {
					return nil, err
				}
			}
		case "reply_with_keys_cursor":
			r.replyCursors, _ = v.(bool)
		default:
			return nil, qerr("unsupported request field '%s'", m.Key)
		}
	}
	if r.query == nil {
		r.query = &matchAllQ{boost: 1}
	}
	return r, nil
}

func unmarshalNumber(raw []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func toStrings(v any, what string) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, qerr("%s must hold strings", what)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, qerr("%s must be a string or an array of strings", what)
}

func (r *Request) parseSource(v any) error {
	var err error
	switch x := v.(type) {
	case bool:
		r.noSource = !x
	case map[string]any:
		if inc, ok := x["includes"]; ok {
			if r.includes, err = toStrings(inc, "_source.includes"); err != nil {
				return err
			}
		}
		if exc, ok := x["excludes"]; ok {
			if r.excludes, err = toStrings(exc, "_source.excludes"); err != nil {
				return err
			}
		}
	default:
		r.includes, err = toStrings(v, "_source")
	}
	return err
}

func parseSort(v any) ([]sortSpec, error) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []sortSpec
	for _, e := range list {
		switch x := e.(type) {
		case string:
			out = append(out, sortSpec{field: x, desc: x == "_score"})
		case map[string]any:
			for f, o := range x {
				s := sortSpec{field: f, desc: f == "_score"}
				switch ov := o.(type) {
				case string:
					s.desc = strings.EqualFold(ov, "desc")
				case map[string]any:
					if ord, ok := ov["order"].(string); ok {
						s.desc = strings.EqualFold(ord, "desc")
					}
				}
				out = append(out, s)
			}
		default:
			return nil, qerr("sort entries must be field names or objects")
		}
	}
	return out, nil
}

// hit is one scored document.
type hit struct {
	ix    *Index
	doc   uint32
	score float64
}

func (h hit) id() string { return h.ix.docIDs[h.doc] }

// seq is the hit's place in the insertion order of all indexes.
func (h hit) seq() uint64 { return h.ix.seqs[h.doc] }

// result is what a search produced.
type result struct {
	ix       *Index
	total    uint64
	hits     []hit
	maxScore float64
	scored   bool
	docs     *roaring.Bitmap
	m        matches
}

// hitHeap keeps the best k hits (worst on top).
type hitHeap struct {
	h    []hit
	less func(a, b hit) bool // a ranks before b
}

func (h *hitHeap) Len() int           { return len(h.h) }
func (h *hitHeap) Less(i, j int) bool { return h.less(h.h[j], h.h[i]) }
func (h *hitHeap) Swap(i, j int)      { h.h[i], h.h[j] = h.h[j], h.h[i] }
func (h *hitHeap) Push(x any)         { h.h = append(h.h, x.(hit)) }
func (h *hitHeap) Pop() any {
	x := h.h[len(h.h)-1]
	h.h = h.h[:len(h.h)-1]
	return x
}

func (r *Request) ranker(ix *Index) (func(a, b hit) bool, bool) {
	byScore := len(r.sorts) == 0 || (len(r.sorts) == 1 && r.sorts[0].field == "_score" && r.sorts[0].desc)
	if byScore {
		return func(a, b hit) bool {
			if a.score != b.score {
				return a.score > b.score
			}
			return tieBefore(a, b)
		}, true
	}
	sorts := r.sorts
	return func(a, b hit) bool {
		for _, s := range sorts {
			c := compareBy(ix, s, a, b)
			if c != 0 {
				return c < 0
			}
		}
		return tieBefore(a, b)
	}, false
}

// tieBefore orders hits that tie as Tair does (tair-api.md 3.5, 3.7): index
// by index in name order, then by ascending document id, whatever order
// the documents were written in (TFT.MADDDOC takes them in any order).
func tieBefore(a, b hit) bool {
	if a.ix != b.ix {
		return a.ix.Name < b.ix.Name
	}
	return a.id() < b.id()
}

// compareBy orders two hits by one sort key (missing values last).
func compareBy(ix *Index, s sortSpec, a, b hit) int {
	sign := 1
	if s.desc {
		sign = -1
	}
	switch s.field {
	case "_score":
		return sign * cmpFloat(a.score, b.score)
	case "_doc":
		return sign * cmp.Compare(a.seq(), b.seq())
	}
	fd := ix.field(s.field)
	if fd == nil {
		return 0
	}
	if fd.f.Type == TypeKeyword {
		av, aok := firstKw(fd, a.doc)
		bv, bok := firstKw(fd, b.doc)
		if c, missing := missingLast(aok, bok); missing {
			return c
		}
		return sign * strings.Compare(av, bv)
	}
	if c, missing := missingLast(fd.hasNum.Contains(a.doc), fd.hasNum.Contains(b.doc)); missing {
		return c
	}
	return sign * cmpFloat(fd.nums[a.doc], fd.nums[b.doc])
}

// missingLast orders documents without a value after those with one,
// whatever the direction; missing is false when both have a value.
func missingLast(aok, bok bool) (c int, missing bool) {
	switch {
	case aok && bok:
		return 0, false
	case !aok && !bok:
		return 0, true
	case !aok:
		return 1, true
	}
	return -1, true
}

func firstKw(fd *fieldData, d uint32) (string, bool) {
	if int(d) < len(fd.kws) && len(fd.kws[d]) > 0 {
		return fd.kws[d][0], true
	}
	return "", false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// run evaluates the request on one index and keeps the top from+size hits
// (skip more per index for MSEARCH cursors).
func (r *Request) run(ix *Index, skip int) (*result, error) {
	m, err := r.query.eval(r.on(ix))
	if err != nil {
		return nil, err
	}
	docs := m.docs
	if !docs.IsEmpty() {
		docs = roaring.And(docs, ix.live)
	}
	res := &result{ix: ix, total: docs.GetCardinality(), docs: docs, m: m}
	less, scored := r.ranker(ix)
	res.scored = scored
	k := r.from + r.size + skip
	if r.size == 0 || k == 0 {
		return res, nil
	}
	h := &hitHeap{less: less}
	it := docs.Iterator()
	for it.HasNext() {
		d := it.Next()
		x := hit{ix: ix, doc: d, score: 1}
		if scored && m.score != nil {
			x.score = m.score(d)
		}
		if h.Len() < k {
			heap.Push(h, x)
		} else if less(x, h.h[0]) {
			h.h[0] = x
			heap.Fix(h, 0)
		}
	}
	out := make([]hit, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(hit)
	}
	if skip > 0 {
		out = out[min(skip, len(out)):]
	}
	res.hits = out
	return res, nil
}

// on is the request's evaluation on ix: its clock starts at the request's
// first evaluation (MSEARCH's indexes share one time limit).
func (r *Request) on(ix *Index) *evalCtx {
	if r.started.IsZero() {
		r.started = nowFunc()
		r.deadline = r.started.Add(ix.Limits.maxTime())
	}
	return &evalCtx{Index: ix, start: r.started, deadline: r.deadline, stop: r.stop}
}

// Search runs a request and renders TairSearch's reply JSON.
func (ix *Index) Search(raw []byte, useCache bool) ([]byte, error) {
	return ix.search(raw, useCache, false, nil)
}

// SearchStop is Search, stopped (an ErrCancelled error) once stop says
// true: its client left.
func (ix *Index) SearchStop(raw []byte, useCache bool, stop func() bool) ([]byte, error) {
	return ix.search(raw, useCache, false, stop)
}

// ExplainScore runs a request and adds "_explanation" to every hit;
// stop, when set, stops it as SearchStop's does.
func (ix *Index) ExplainScore(raw []byte, stop func() bool) ([]byte, error) {
	return ix.search(raw, false, true, stop)
}

func (ix *Index) search(raw []byte, useCache, explain bool, stop func() bool) ([]byte, error) {
	key := string(raw)
	if useCache {
		ix.mu.Lock()
		c, ok := ix.cache[key]
		ix.mu.Unlock()
		if ok && nowFunc().Before(c.expires) {
			return c.reply, nil
		}
	}
	r, err := ParseRequest(raw)
	if err != nil {
		return nil, err
	}
	r.stop = stop
	res, err := r.run(ix, 0)
	if err != nil {
		return nil, err
	}
	if len(res.hits) > 0 && r.from > 0 {
		res.hits = res.hits[min(r.from, len(res.hits)):]
	}
	var b bytes.Buffer
	r.renderHits(&b, res.hits, res.total, res.scored, explain, res.m)
	if len(r.aggs) > 0 {
		b.WriteString(`,"aggregations":`)
		if err := renderAggs(&b, r.on(ix), r.aggs, res.docs); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	out := b.Bytes()
	if useCache {
		ix.mu.Lock()
		ix.cache[key] = cached{reply: out, expires: nowFunc().Add(CacheTTL)}
		ix.mu.Unlock()
	}
	return out, nil
}

// renderHits writes `{"hits":{…}` (the caller closes the outer object).
func (r *Request) renderHits(b *bytes.Buffer, hits []hit, total uint64, scored, explain bool, m matches) {
	b.WriteString(`{"hits":{"hits":[`)
	max := 0.0
	for i, h := range hits {
		if i > 0 {
			b.WriteByte(',')
		}
		score := 1.0
		if scored {
			score = h.score
		}
		if i == 0 || score > max {
			max = score
		}
		fmt.Fprintf(b, `{"_id":%s,"_index":%s,"_score":%s,"_source":`, jsonString(h.id()), jsonString(h.ix.Name), FormatFloat(score))
		b.Write(r.source(h.ix, h.doc))
		if explain && m.explain != nil {
			b.WriteString(`,"_explanation":`)
			b.WriteString(m.explain(h.doc))
		}
		b.WriteByte('}')
	}
	b.WriteString(`],"max_score":`)
	if len(hits) == 0 {
		b.WriteString("null")
	} else {
		b.WriteString(FormatFloat(max))
	}
	relation := "eq"
	if r.trackLimit >= 0 && int64(total) > r.trackLimit {
		total, relation = uint64(r.trackLimit), "gte"
	}
	fmt.Fprintf(b, `,"total":{"relation":"%s","value":%d}}`, relation, total)
}

// source renders a document's _source after the mapping's and the request's filters.
func (r *Request) source(ix *Index, d uint32) []byte {
	if r.noSource || !ix.Mapping.SourceEnabled {
		return []byte("{}")
	}
	src := ix.docs[d]
	m := ix.Mapping
	if len(m.SourceIncludes)+len(m.SourceExcludes)+len(r.includes)+len(r.excludes) == 0 {
		return src
	}
	members, err := parseObject(src)
	if err != nil {
		return []byte("{}")
	}
	members = filterSource(members, m.SourceIncludes, m.SourceExcludes)
	members = filterSource(members, r.includes, r.excludes)
	return writeObject(members)
}

// DocJSON renders TFT.GETDOC's reply for a stored document.
func (ix *Index) DocJSON(id string) ([]byte, bool) {
	d, ok := ix.ids[id]
	if !ok {
		return nil, false
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"_id":%s,"_source":`, jsonString(id))
	b.Write((&Request{}).source(ix, d))
	b.WriteByte('}')
	return b.Bytes(), true
}

// ExplainCost renders a short cost report for a query; stop, when set,
// stops it as SearchStop's does.
func (ix *Index) ExplainCost(raw []byte, stop func() bool) ([]byte, error) {
	start := nowFunc()
	r, err := ParseRequest(raw)
	if err != nil {
		return nil, err
	}
	r.stop = stop
	res, err := r.run(ix, 0)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, `{"QUERY_COST":{"matched_docs":%d,"total_docs":%d,"time_us":%d}}`,
		res.total, ix.DocCount(), nowFunc().Sub(start).Microseconds()), nil
}
