package server

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/ann"
	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/internal/vector"
	"github.com/tairbench/tairbench/pkg/resp"
)

// knnOpts are a KNN-family command's trailing arguments: an optional
// positional filter (present when the count of what remains is odd, as the
// three SDKs send it), then key/value pairs in any order.
type knnOpts struct {
	filter  *vector.Filter
	ef      int
	maxDist float32
	hasMax  bool
}

func (c *conn) parseKnnTail(rest [][]byte) (knnOpts, bool) {
	o := knnOpts{ef: 100}
	if len(rest)%2 == 1 {
		f, ok := c.vecFilter(rest[0])
		if !ok {
			return o, false
		}
		o.filter, rest = f, rest[1:]
	}
	for i := 0; i < len(rest); i += 2 {
		k, val := strings.ToLower(string(rest[i])), string(rest[i+1])
		switch k {
		case "ef_search":
			n, ok := intIn(val, 1, maxVecEf)
			if !ok {
				c.fail("ERR ef_search must be an integer in 1..1000")
				return o, false
			}
			o.ef = n
		case "max_dist":
			d, err := strconv.ParseFloat(val, 32)
			if err != nil {
				c.fail(errFloat)
				return o, false
			}
			o.maxDist, o.hasMax = float32(d), true
		case "text", "hybrid_ratio", "sparse_ef_search", "fulltext_filter_count":
			c.fail(errVecHybrid)
			return o, false
		case "vector_filter_count", "ivf_filter_count", "search_policy":
			// Tuning hints of Tair's filtered search; the embedded
			// server's filtered search is exhaustive, so they change nothing.
		default:
			c.fail("ERR unknown search parameter '" + printable(rest[i]) + "'")
			return o, false
		}
	}
	return o, true
}

func parseTopN(c *conn, b []byte) (int, bool) {
	n, ok := intIn(string(b), 1, maxVecTopN)
	if !ok {
		c.fail("ERR topN must be an integer in 1..10000")
	}
	return n, ok
}

// knn searches one index: the topN nearest live entities passing the
// filter, then (inclusive, as Tair's KNN commands) the MAX_DIST cut.
func (v *vecIndex) knn(q []float32, topN int, o knnOpts, now int64) []ann.Hit {
	accept := func(s uint32) bool {
		e := v.slotEnt[s]
		return e != nil && e.alive(now) && (o.filter == nil || o.filter.Match(e.attr))
	}
	hits := v.ix.Search(q, topN, o.ef, accept)
	if o.hasMax {
		n := 0
		for _, h := range hits {
			if h.Dist <= o.maxDist {
				hits[n] = h
				n++
			}
		}
		hits = hits[:n]
	}
	return hits
}

// vecHit is a result with its entity (and index, for MINDEX commands).
type vecHit struct {
	ix   *vecIndex
	name []byte
	e    *vecEntity
	dist float32
}

func (v *vecIndex) hits(name []byte, hs []ann.Hit) []vecHit {
	out := make([]vecHit, len(hs))
	for i, h := range hs {
		out[i] = vecHit{ix: v, name: name, e: v.slotEnt[h.Slot], dist: h.Dist}
	}
	return out
}

func appendKnn(dst []byte, hs []vecHit) []byte {
	dst = resp.AppendArray(dst, 2*len(hs))
	for _, h := range hs {
		dst = resp.AppendBulkString(dst, h.e.key)
		dst = resp.AppendBulkString(dst, vector.FormatDistance(h.dist))
	}
	return dst
}

// appendKnnFields appends per-hit arrays [key, dist, (index,) f1, v1, ...]:
// the named fields, or every field (VECTOR too) when names is empty.
func appendKnnFields(dst []byte, hs []vecHit, names [][]byte, withIndex bool) []byte {
	dst = resp.AppendArray(dst, len(hs))
	for _, h := range hs {
		head := 2
		if withIndex {
			head++
		}
		dst = resp.AppendArray(dst, head+2*h.ix.fieldCount(h.e, names))
		dst = resp.AppendBulkString(dst, h.e.key)
		dst = resp.AppendBulkString(dst, vector.FormatDistance(h.dist))
		if withIndex {
			dst = resp.AppendBulk(dst, h.name)
		}
		dst = h.ix.appendPairs(dst, h.e, names)
	}
	return dst
}

// knnQuery is a parsed search: the indexes, the query vectors, topN, the
// options; vectors are parsed per index (dimensions may differ).
type knnQuery struct {
	names [][]byte
	vecs  [][]byte
	topN  int
	o     knnOpts
}

// run searches every index for every vector and merges per vector.
// A missing index contributes nothing.
func (c *conn) runKnn(q knnQuery) ([][]vecHit, bool) {
	// Charged before the work: each query vector on each index named keeps
	// up to topN hits until they are merged.
	hits := int64(len(q.names)) * int64(len(q.vecs)) * int64(q.topN)
	need := hits * knnHitBytes
	if !c.s.queries.reserve(need) {
		c.fail(fmt.Sprintf("ERR too many hits: %d query vectors × %d indexes named × topN %d = %d hits, whose %d bytes would pass the %d that the running queries may take together (tairbench serve --max-query-memory)",
			len(q.vecs), len(q.names), q.topN, hits, need, c.s.cfg.MaxQueryMemory))
		return nil, false
	}
	defer c.s.queries.release(need)
	out := make([][]vecHit, len(q.vecs))
	now := nowMs()
	asked := time.Now()
	for _, name := range q.names {
		v, ok := c.vecIdx(name)
		if !ok {
			return nil, false
		}
		if v == nil {
			continue
		}
		for i, text := range q.vecs {
			if err := c.abandoned(&asked); err != nil {
				c.fail("ERR " + err.Error())
				return nil, false
			}
			vec, ok := c.parseVec(v, text)
			if !ok {
				return nil, false
			}
			out[i] = append(out[i], v.hits(name, v.knn(vec, q.topN, q.o, now))...)
		}
	}
	if len(q.names) > 1 {
		for i := range out {
			sort.SliceStable(out[i], func(x, y int) bool { return out[i][x].dist < out[i][y].dist })
			if len(out[i]) > q.topN {
				out[i] = out[i][:q.topN]
			}
		}
	}
	return out, true
}

// abandoned says, between two searches of a multi-search, whether it
// should stop: the server is closing, or (asked at most every 10 ms, a
// system call, *asked being when it last was) its client left.
func (c *conn) abandoned(asked *time.Time) error {
	if c.s.closing.Load() {
		return fulltext.ErrCancelled
	}
	if now := time.Now(); now.Sub(*asked) >= 10*time.Millisecond {
		*asked = now
		if c.gone() {
			return fulltext.ErrClientGone
		}
	}
	return nil
}

// knnHitBytes is what one KNN hit kept until the reply is estimated to
// take (its key, distance and the search's candidate).
const knnHitBytes = 96

// tvsKnnSearch: TVS.KNNSEARCH index topN vector [filter] [key value]...
func tvsKnnSearch(c *conn, a [][]byte) {
	q, ok := c.singleIndexQuery(a, 1)
	if !ok {
		return
	}
	if res, ok := c.runKnn(q); ok {
		c.out = appendKnn(c.out, res[0])
	}
}

// singleIndexQuery reads `index topN vector tail...` from a[1:], with n
// query vectors (1, or a count argument before them when n is 0).
func (c *conn) singleIndexQuery(a [][]byte, n int) (knnQuery, bool) {
	q := knnQuery{names: a[1:2]}
	var ok bool
	if q.topN, ok = parseTopN(c, a[2]); !ok {
		return q, false
	}
	rest := a[3:]
	if n == 0 {
		if n, ok = c.vecCount(rest); !ok {
			return q, false
		}
		rest = rest[1:]
	}
	if len(rest) < n {
		c.fail(arityErr(string(a[0])))
		return q, false
	}
	q.vecs = rest[:n]
	q.o, ok = c.parseKnnTail(rest[n:])
	return q, ok
}

func (c *conn) vecCount(rest [][]byte) (int, bool) {
	if len(rest) == 0 {
		c.fail(errSyntax)
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[0]))
	if err != nil || n < 1 || n > len(rest)-1 {
		c.fail("ERR the vector count must be an integer from 1 to the number of vectors given")
		return 0, false
	}
	return n, true
}

// tvsMKnnSearch: TVS.MKNNSEARCH index topN count v1..vn [filter] [key value]...
func tvsMKnnSearch(c *conn, a [][]byte) {
	if q, ok := c.singleIndexQuery(a, 0); ok {
		c.replyPerVector(q)
	}
}

// replyPerVector runs q and replies one KNN array per query vector.
func (c *conn) replyPerVector(q knnQuery) {
	res, ok := c.runKnn(q)
	if !ok {
		return
	}
	c.out = resp.AppendArray(c.out, len(res))
	for _, r := range res {
		c.out = appendKnn(c.out, r)
	}
}

// fieldList reads `field_count f1..fn` and returns the names and the rest.
func (c *conn) fieldList(rest [][]byte) ([][]byte, [][]byte, bool) {
	if len(rest) == 0 {
		c.fail(errSyntax)
		return nil, nil, false
	}
	n, err := strconv.Atoi(string(rest[0]))
	if err != nil || n < 0 || n > len(rest)-1 {
		c.fail("ERR field_count must be an integer from 0 to the number of fields given")
		return nil, nil, false
	}
	return rest[1 : 1+n], rest[1+n:], true
}

// tvsKnnSearchField: TVS.KNNSEARCHFIELD index topN vector field_count f... [filter] [key value]...
func tvsKnnSearchField(c *conn, a [][]byte) { c.fieldSearch(a[1:2], a[2:], false) }

// fieldSearch runs `topN vector field_count f... tail` over names and
// replies per-hit arrays (with the index name when withIndex is set).
func (c *conn) fieldSearch(names, rest [][]byte, withIndex bool) {
	if len(rest) < 3 {
		c.fail(errSyntax)
		return
	}
	topN, ok := parseTopN(c, rest[0])
	if !ok {
		return
	}
	fields, tail, ok := c.fieldList(rest[2:])
	if !ok {
		return
	}
	o, ok := c.parseKnnTail(tail)
	if !ok {
		return
	}
	if res, ok := c.runKnn(knnQuery{names: names, vecs: rest[1:2], topN: topN, o: o}); ok {
		c.out = appendKnnFields(c.out, res[0], fields, withIndex)
	}
}

// mindexNames reads `n idx1..idxn` from a[1:] and returns the names and
// what follows.
func (c *conn) mindexNames(a [][]byte) ([][]byte, [][]byte, bool) {
	n, err := strconv.Atoi(string(a[1]))
	if err != nil || n < 1 || n > len(a)-3 {
		c.fail("ERR the index count must be an integer from 1 to the number of indexes given")
		return nil, nil, false
	}
	return a[2 : 2+n], a[2+n:], true
}

// tvsMIndexKnnSearch: TVS.MINDEXKNNSEARCH n idx... topN vector [filter] [key value]...
func tvsMIndexKnnSearch(c *conn, a [][]byte) {
	names, rest, ok := c.mindexNames(a)
	if !ok {
		return
	}
	q, ok := c.multiIndexQuery(names, rest, 1)
	if !ok {
		return
	}
	if res, ok := c.runKnn(q); ok {
		c.out = appendKnn(c.out, res[0])
	}
}

// multiIndexQuery reads `topN vector... tail` after the index list (n
// vectors, or a count first when n is 0).
func (c *conn) multiIndexQuery(names, rest [][]byte, n int) (knnQuery, bool) {
	q := knnQuery{names: names}
	if len(rest) < 2 {
		c.fail(errSyntax)
		return q, false
	}
	var ok bool
	if q.topN, ok = parseTopN(c, rest[0]); !ok {
		return q, false
	}
	rest = rest[1:]
	if n == 0 {
		if n, ok = c.vecCount(rest); !ok {
			return q, false
		}
		rest = rest[1:]
	}
	q.vecs = rest[:n]
	q.o, ok = c.parseKnnTail(rest[n:])
	return q, ok
}

// tvsMIndexMKnnSearch: TVS.MINDEXMKNNSEARCH n idx... topN count v... [filter] [key value]...
func tvsMIndexMKnnSearch(c *conn, a [][]byte) {
	names, rest, ok := c.mindexNames(a)
	if !ok {
		return
	}
	if q, ok := c.multiIndexQuery(names, rest, 0); ok {
		c.replyPerVector(q)
	}
}

// tvsMIndexKnnSearchField: TVS.MINDEXKNNSEARCHFIELD n idx... topN vector field_count f... [filter] [key value]...
func tvsMIndexKnnSearchField(c *conn, a [][]byte) {
	if names, rest, ok := c.mindexNames(a); ok {
		c.fieldSearch(names, rest, true)
	}
}

// tvsGetDistance: TVS.GETDISTANCE index vector key_count key... [TOPN n]
// [FILTER expr] [MAX_DIST d]. Missing keys are skipped; MAX_DIST is strict.
func tvsGetDistance(c *conn, a [][]byte) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	n, err := strconv.Atoi(string(a[3]))
	if err != nil || n < 1 || n > len(a)-4 {
		c.fail("ERR key_count must be an integer from 1 to the number of keys given")
		return
	}
	keys, opts := a[4:4+n], a[4+n:]
	topN := 0
	var o scanOpts
	for i := 0; i < len(opts); i += 2 {
		if i+1 >= len(opts) {
			c.fail(errSyntax)
			return
		}
		switch strings.ToUpper(string(opts[i])) {
		case "TOPN":
			if topN, ok = parseTopN(c, opts[i+1]); !ok {
				return
			}
		case "FILTER":
			if o.filter, ok = c.vecFilter(opts[i+1]); !ok {
				return
			}
		case "MAX_DIST":
			d, err := strconv.ParseFloat(string(opts[i+1]), 32)
			if err != nil {
				c.fail(errFloat)
				return
			}
			o.maxDist, o.hasMax = float32(d), true
		default:
			c.fail(errSyntax)
			return
		}
	}
	if v == nil {
		c.out = resp.AppendArray(c.out, 0)
		return
	}
	q, ok := c.parseVec(v, a[2])
	if !ok {
		return
	}
	now := nowMs()
	var hs []vecHit
	for _, k := range keys {
		e := v.entity(k, now, false)
		if e == nil || e.slot < 0 || (o.filter != nil && !o.filter.Match(e.attr)) {
			continue
		}
		d := v.dist(q, v.ix.Vector(uint32(e.slot)))
		if o.hasMax && !(d < o.maxDist) {
			continue
		}
		hs = append(hs, vecHit{ix: v, e: e, dist: d})
	}
	if topN > 0 {
		sort.SliceStable(hs, func(x, y int) bool { return hs[x].dist < hs[y].dist })
		hs = hs[:min(topN, len(hs))]
	}
	c.out = appendKnn(c.out, hs)
}

// tvsScan: TVS.SCAN index cursor [MATCH p] [COUNT n] [FILTER expr]
// [VECTOR v MAX_DIST d]; the cursor is a position in key order, COUNT
// counts keys returned, and MAX_DIST is strict.
func tvsScan(c *conn, a [][]byte) {
	cursor, err := strconv.Atoi(string(a[2]))
	if err != nil || cursor < 0 {
		c.fail("ERR invalid cursor")
		return
	}
	o, ok := parseScanOpts(c, a[3:], true)
	if !ok {
		return
	}
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	if v == nil {
		c.out = appendScanReply(c.out, 0, nil)
		return
	}
	var q []float32
	if o.vec != nil {
		if q, ok = c.parseVec(v, o.vec); !ok {
			return
		}
	}
	now := nowMs()
	keys := make([]string, 0, len(v.ents))
	for k, e := range v.ents {
		if e.alive(now) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	page, next := pageOf(keys, cursor, o.count, func(k string) bool {
		e := v.ents[k]
		if !globMatch(o.match, k) || (o.filter != nil && !o.filter.Match(e.attr)) {
			return false
		}
		return q == nil || (e.slot >= 0 && v.dist(q, v.ix.Vector(uint32(e.slot))) < o.maxDist)
	})
	c.out = appendScanReply(c.out, next, page)
}
