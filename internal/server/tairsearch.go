package server

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/pkg/resp"
)

const errNoIndex = "ERR tairsearch index not exists"

// indexValue is a TairSearch index.
type indexValue struct{ ix *fulltext.Index }

func (v *indexValue) TypeName() string    { return "tairsearch" }
func (v *indexValue) MemoryBytes() uint64 { return v.ix.MemoryBytes() }

// searchModule is TairSearch: the TFT.* commands.
func searchModule() Module {
	return Module{Name: "tairsearch", Commands: searchCommands(), InfoKeys: "tairsearch_indexes", TypeName: "tairsearch"}
}

func searchCommands() []*Command {
	w := flagWrite
	one := func(name string, arity int, flags Flags, h func(*conn, [][]byte)) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Handler: h}
	}
	return []*Command{
		one("tft.createindex", 3, w, tftCreateIndex),
		one("tft.mappingindex", 3, w, tftCreateIndex),
		one("tft.updateindex", 3, w, tftUpdateIndex),
		one("tft.getindex", -2, 0, tftGetIndex),
		one("tft.adddoc", -3, w, tftAddDoc),
		one("tft.madddoc", -4, w, tftMAddDoc),
		one("tft.updatedocfield", 4, w, tftUpdateDocField),
		one("tft.updatedoc", 4, w, tftUpdateDocField),
		one("tft.deldocfield", -4, w, tftDelDocField),
		one("tft.incrlongdocfield", 5, w, func(c *conn, a [][]byte) { tftIncr(c, a, true) }),
		one("tft.incrfloatdocfield", 5, w, func(c *conn, a [][]byte) { tftIncr(c, a, false) }),
		one("tft.getdoc", -3, 0, tftGetDoc),
		one("tft.exists", 3, 0, tftExists),
		one("tft.docnum", 2, 0, tftDocNum),
		// SCANDOCID fills a sorted-id cache: it takes the write lock.
		one("tft.scandocid", -3, w, tftScanDocID),
		one("tft.deldoc", -3, w, tftDelDoc),
		one("tft.delall", 2, w, tftDelAll),
		one("tft.search", -3, 0, tftSearch),
		{Name: "tft.msearch", Arity: -4, FirstKey: 2, LastKey: -2, Step: 1, Handler: tftMSearch},
		one("tft.explaincost", 3, 0, tftExplainCost),
		one("tft.explainscore", -3, 0, tftExplainScore),
		{Name: "tft.analyzer", Arity: -3, FirstKey: 4, LastKey: 4, Step: 1, Handler: tftAnalyzer},
		one("tft.addsug", -4, w, tftAddSug),
		one("tft.delsug", -3, w, tftDelSug),
		one("tft.sugnum", 2, 0, tftSugNum),
		one("tft.getsug", -3, 0, tftGetSug),
		one("tft.getallsugs", 2, 0, tftGetAllSugs),
	}
}

// index returns the index at key; nil (after replying) when it is missing
// or the key holds another type. With quiet set, a missing index replies nothing.
func (c *conn) index(key []byte, quiet bool) *fulltext.Index {
	v, found, ok := lookup[*indexValue](c, key)
	switch {
	case !ok:
		return nil
	case !found:
		if !quiet {
			c.fail(errNoIndex)
		}
		return nil
	}
	return v.ix
}

// refusal is a request the server refused before running it, its reply
// line whole.
type refusal struct{ line string }

func (r *refusal) Error() string { return r.line }

// searchErr replies a search error as an ERR line; a refusal by one of
// the search limits names its flag.
func (c *conn) searchErr(err error) {
	var rf *refusal
	if errors.As(err, &rf) {
		c.fail(rf.line)
		return
	}
	var le *fulltext.LimitError
	if errors.As(err, &le) {
		hint := ""
		if le.Limit != "depth" {
			hint = " (tairbench serve --max-query-" + le.Limit + ")"
		}
		c.fail("ERR " + le.Error() + hint)
		return
	}
	var qe *fulltext.QueryError
	if errors.As(err, &qe) {
		c.fail("ERR " + qe.Msg)
		return
	}
	c.fail("ERR " + err.Error())
}

func tftCreateIndex(c *conn, a [][]byte) {
	d := c.db()
	if _, found, ok := lookup[*indexValue](c, a[1]); !ok || found {
		if ok {
			c.fail("ERR index already exists")
		}
		return
	}
	m, err := fulltext.ParseMapping(a[2])
	if err != nil {
		c.searchErr(err)
		return
	}
	ix := fulltext.NewIndex(string(a[1]), m)
	ix.Limits = c.s.cfg.Search
	d.set(a[1], &indexValue{ix: ix})
	c.out = resp.AppendOK(c.out)
}

func tftUpdateIndex(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	if err := ix.UpdateMapping(a[2]); err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendOK(c.out)
}

func tftGetIndex(c *conn, a [][]byte) {
	if len(a) > 3 {
		c.fail(errSyntax)
		return
	}
	ix := c.index(a[1], true)
	if ix == nil {
		if c.db().get(a[1]) == nil {
			c.out = resp.AppendNil(c.out)
		}
		return
	}
	part := ""
	if len(a) == 3 {
		part = strings.ToLower(string(a[2]))
		if part != "mappings" && part != "settings" {
			c.fail(errSyntax)
			return
		}
	}
	c.out = resp.AppendBulkString(c.out, ix.GetIndexJSON(part))
}

func tftAddDoc(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	var id string
	switch {
	case len(a) == 3:
		id = ix.NewID()
	case len(a) == 5 && bytes.EqualFold(a[3], []byte("with_id")):
		id = string(a[4])
	default:
		c.fail(errSyntax)
		return
	}
	if err := ix.Add(id, a[2]); err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendBulkString(c.out, `{"_id":`+strconv.Quote(id)+`}`)
}

// tftMAddDoc adds "doc id" pairs; every document is checked before any is added.
func tftMAddDoc(c *conn, a [][]byte) {
	if len(a)%2 != 0 {
		c.fail(arityErr("tft.madddoc"))
		return
	}
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	for i := 2; i < len(a); i += 2 {
		if err := ix.Check(a[i]); err != nil {
			c.searchErr(err)
			return
		}
	}
	for i := 2; i < len(a); i += 2 {
		if err := ix.Add(string(a[i+1]), a[i]); err != nil {
			c.searchErr(err)
			return
		}
	}
	c.out = resp.AppendOK(c.out)
}

func tftUpdateDocField(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	if err := ix.UpdateFields(string(a[2]), a[3]); err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendOK(c.out)
}

func tftDelDocField(c *conn, a [][]byte) {
	ix := c.index(a[1], true)
	if ix == nil {
		if c.db().get(a[1]) == nil {
			c.out = resp.AppendInt(c.out, 0)
		}
		return
	}
	names := make([]string, 0, len(a)-3)
	for _, f := range a[3:] {
		names = append(names, string(f))
	}
	n, err := ix.DeleteFields(string(a[2]), names)
	if err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendInt(c.out, int64(n))
}

func tftIncr(c *conn, a [][]byte, asInt bool) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	var incr float64
	var err error
	if asInt {
		n, ok := resp.ParseInt(a[4])
		if !ok {
			c.fail(errInt)
			return
		}
		incr = float64(n)
	} else if incr, err = strconv.ParseFloat(string(a[4]), 64); err != nil {
		c.fail("ERR value is not a valid float")
		return
	}
	v, err := ix.Incr(string(a[2]), string(a[3]), incr, asInt)
	if err != nil {
		c.searchErr(err)
		return
	}
	if asInt {
		c.out = resp.AppendInt(c.out, int64(v))
	} else {
		c.out = resp.AppendBulkString(c.out, strconv.FormatFloat(v, 'f', -1, 64))
	}
}

func tftGetDoc(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	doc, ok := ix.DocJSON(string(a[2]))
	if !ok {
		c.out = resp.AppendNil(c.out)
		return
	}
	c.out = resp.AppendBulk(c.out, doc)
}

func tftExists(c *conn, a [][]byte) {
	ix := c.index(a[1], true)
	if ix == nil {
		if c.db().get(a[1]) == nil {
			c.out = resp.AppendInt(c.out, 0)
		}
		return
	}
	if _, ok := ix.Get(string(a[2])); ok {
		c.out = resp.AppendInt(c.out, 1)
	} else {
		c.out = resp.AppendInt(c.out, 0)
	}
}

func tftDocNum(c *conn, a [][]byte) {
	if ix := c.index(a[1], false); ix != nil {
		c.out = resp.AppendInt(c.out, int64(ix.DocCount()))
	}
}

func tftScanDocID(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	cursor, err := strconv.Atoi(string(a[2]))
	if err != nil || cursor < 0 {
		c.fail("ERR invalid cursor")
		return
	}
	match, count := "", 100
	for i := 3; i < len(a); i += 2 {
		if i+1 >= len(a) {
			c.fail(errSyntax)
			return
		}
		switch strings.ToLower(string(a[i])) {
		case "match":
			match = string(a[i+1])
		case "count":
			if count, err = strconv.Atoi(string(a[i+1])); err != nil || count < 1 {
				c.fail(errInt)
				return
			}
		default:
			c.fail(errSyntax)
			return
		}
	}
	next, ids := ix.ScanIDs(cursor, count, match)
	c.out = resp.AppendArray(c.out, 2)
	c.out = resp.AppendBulkString(c.out, strconv.Itoa(next))
	c.out = resp.AppendArray(c.out, len(ids))
	for _, id := range ids {
		c.out = resp.AppendBulkString(c.out, id)
	}
}

func tftDelDoc(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	ids := make([]string, 0, len(a)-2)
	for _, id := range a[2:] {
		ids = append(ids, string(id))
	}
	c.out = resp.AppendBulkString(c.out, strconv.Itoa(ix.Delete(ids...)))
}

func tftDelAll(c *conn, a [][]byte) {
	if ix := c.index(a[1], false); ix != nil {
		ix.DeleteAll()
		c.out = resp.AppendOK(c.out)
	}
}

func tftSearch(c *conn, a [][]byte) {
	useCache := false
	switch {
	case len(a) == 4 && bytes.EqualFold(a[3], []byte("use_cache")):
		useCache = true
	case len(a) != 3:
		c.fail(errSyntax)
		return
	}
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	cost, ok := c.queryGate(a[2])
	if !ok {
		return
	}
	defer c.s.queries.release(cost)
	out, err := ix.SearchStop(a[2], useCache, c.gone)
	if err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendBulk(c.out, out)
}

func tftMSearch(c *conn, a [][]byte) {
	n, ok := resp.ParseInt(a[1])
	if !ok || n < 1 || int(n) != len(a)-3 {
		c.fail("ERR index count does not match the indexes given")
		return
	}
	var ixs []*fulltext.Index
	for _, k := range a[2 : 2+n] {
		ix := c.index(k, false)
		if ix == nil {
			return
		}
		ixs = append(ixs, ix)
	}
	cost, ok := c.queryGate(a[len(a)-1])
	if !ok {
		return
	}
	defer c.s.queries.release(cost)
	var kept int64
	defer func() { c.s.queries.release(kept) }()
	admit := func(hits int64) error {
		need := hits * fulltext.HitBytes
		if !c.s.queries.reserve(need) {
			return &refusal{fmt.Sprintf("ERR too many hits: %d indexes named could keep %d hits, whose %d bytes would pass the %d that the running queries may take together (tairbench serve --max-query-memory)",
				len(ixs), hits, need, c.s.cfg.MaxQueryMemory)}
		}
		kept = need
		return nil
	}
	out, err := fulltext.MSearch(ixs, a[len(a)-1], admit, c.gone)
	if err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendBulk(c.out, out)
}

func tftExplainCost(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	cost, ok := c.queryGate(a[2])
	if !ok {
		return
	}
	defer c.s.queries.release(cost)
	out, err := ix.ExplainCost(a[2], c.gone)
	if err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendBulk(c.out, out)
}

func tftExplainScore(c *conn, a [][]byte) {
	ix := c.index(a[1], false)
	if ix == nil {
		return
	}
	cost, ok := c.queryGate(a[2])
	if !ok {
		return
	}
	defer c.s.queries.release(cost)
	out, err := ix.ExplainScore(a[2], c.gone)
	if err != nil {
		c.searchErr(err)
		return
	}
	c.out = resp.AppendBulk(c.out, out)
}

func tftAnalyzer(c *conn, a [][]byte) {
	var ix *fulltext.Index
	showTime := false
	for i := 3; i < len(a); i++ {
		switch {
		case bytes.EqualFold(a[i], []byte("index")) && i+1 < len(a):
			if ix = c.index(a[i+1], false); ix == nil {
				return
			}
			i++
		case bytes.EqualFold(a[i], []byte("show_time")):
			showTime = true
		default:
			c.fail(errSyntax)
			return
		}
	}
	an, err := fulltext.AnalyzerFor(ix, string(a[1]))
	if err != nil {
		c.searchErr(err)
		return
	}
	out := fulltext.AnalyzeJSON(an, string(a[2]))
	if showTime {
		out = append(out, "\nconsuming time (us): 0"...)
	}
	c.out = resp.AppendBulk(c.out, out)
}

// suggestionIndex is the index holding key's suggestions. A missing key
// gives nil (with create, a new index with no mapping, as Tair adds
// suggestions to a fresh key); a key of another type gives ok=false after
// replying WRONGTYPE.
func (c *conn) suggestionIndex(key []byte, create bool) (*fulltext.Index, bool) {
	v, found, ok := lookup[*indexValue](c, key)
	switch {
	case !ok:
		return nil, false
	case found:
		return v.ix, true
	case !create:
		return nil, true
	}
	m, err := fulltext.ParseMapping([]byte(`{"mappings":{"properties":{}}}`))
	if err != nil {
		c.searchErr(err)
		return nil, false
	}
	ix := fulltext.NewIndex(string(key), m)
	ix.Limits = c.s.cfg.Search
	c.db().set(key, &indexValue{ix: ix})
	return ix, true
}

func tftAddSug(c *conn, a [][]byte) {
	if len(a)%2 != 0 {
		c.fail(arityErr("tft.addsug"))
		return
	}
	ix, ok := c.suggestionIndex(a[1], true)
	if !ok {
		return
	}
	var texts []string
	var weights []float64
	for i := 2; i < len(a); i += 2 {
		w, err := strconv.ParseFloat(string(a[i+1]), 64)
		if err != nil {
			c.fail(errInt)
			return
		}
		texts, weights = append(texts, string(a[i])), append(weights, w)
	}
	c.out = resp.AppendInt(c.out, int64(ix.AddSuggestions(texts, weights)))
}

func tftDelSug(c *conn, a [][]byte) {
	ix, ok := c.suggestionIndex(a[1], false)
	if !ok {
		return
	}
	if ix == nil {
		c.out = resp.AppendInt(c.out, 0)
		return
	}
	var texts []string
	for _, t := range a[2:] {
		texts = append(texts, string(t))
	}
	c.out = resp.AppendInt(c.out, int64(ix.DeleteSuggestions(texts)))
}

func tftSugNum(c *conn, a [][]byte) {
	ix, ok := c.suggestionIndex(a[1], false)
	switch {
	case !ok:
	case ix == nil:
		c.out = resp.AppendInt(c.out, 0)
	default:
		c.out = resp.AppendInt(c.out, int64(ix.SuggestionCount()))
	}
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = resp.AppendArray(dst, len(ss))
	for _, s := range ss {
		dst = resp.AppendBulkString(dst, s)
	}
	return dst
}

func tftGetSug(c *conn, a [][]byte) {
	ix, ok := c.suggestionIndex(a[1], false)
	if !ok {
		return
	}
	maxCount, fuzzy := 0, false
	for i := 3; i < len(a); i++ {
		switch {
		case bytes.EqualFold(a[i], []byte("max_count")) && i+1 < len(a):
			n, err := strconv.Atoi(string(a[i+1]))
			if err != nil || n < 1 {
				c.fail(errInt)
				return
			}
			maxCount = n
			i++
		case bytes.EqualFold(a[i], []byte("fuzzy")):
			fuzzy = true
		default:
			c.fail(errSyntax)
			return
		}
	}
	if ix == nil { // a missing key: no suggestion
		c.out = resp.AppendArray(c.out, 0)
		return
	}
	c.out = appendStrings(c.out, ix.Suggestions(string(a[2]), maxCount, fuzzy))
}

func tftGetAllSugs(c *conn, a [][]byte) {
	ix, ok := c.suggestionIndex(a[1], false)
	switch {
	case !ok:
	case ix == nil:
		c.out = resp.AppendArray(c.out, 0)
	default:
		c.out = appendStrings(c.out, ix.Suggestions("", 0, false))
	}
}

// queryGate refuses a search request whose body is larger than
// --max-query-bytes, or whose memory would take the requests running
// together past --max-query-memory, before it is parsed; otherwise it
// charges the request's memory (cost), which the caller releases.
func (c *conn) queryGate(body []byte) (cost int64, ok bool) {
	n := int64(len(body))
	if most := c.s.cfg.MaxQueryBytes; n > most {
		c.fail(fmt.Sprintf("ERR query too large: %d bytes, this server takes at most %d a query (tairbench serve --max-query-bytes)", n, most))
		return 0, false
	}
	cost = n * QueryCost
	if !c.s.queries.reserve(cost) {
		c.fail(fmt.Sprintf("ERR too many queries in flight: %d more bytes would pass the %d that the running queries may take together (tairbench serve --max-query-memory)",
			cost, c.s.cfg.MaxQueryMemory))
		return 0, false
	}
	return cost, true
}

// queryBudget counts the memory charged to the search requests running.
// Unlike pendingBudget it frees nothing itself: its charges are
// estimates, and the trimmer hands memory back once clients leave.
type queryBudget struct {
	max  int64
	used atomic.Int64
}

func (b *queryBudget) reserve(n int64) bool {
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

func (b *queryBudget) release(n int64) { b.used.Add(-n) }
