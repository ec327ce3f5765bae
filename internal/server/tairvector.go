package server

import (
	"hash/fnv"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/ann"
	"github.com/tairbench/tairbench/internal/vector"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Error replies of the TVS.* commands. The first three are Tair's own
// (tairvector.md §3); the reference gives no text for the others.
const (
	errVecDuplicate = "ERR duplicated index key"
	errVecParams    = "ERR index parameters invalid"
	errVecDims      = "ERR Illegal vector dimensions"
	errVecNoIndex   = "ERR index not exists"
	errVecHybrid    = "ERR hybrid (lexical, TEXT) indexes are not supported by tairbench's embedded server"
	errVecField     = "ERR the VECTOR field cannot be incremented"
	errHashInt      = "ERR hash value is not an integer"
	errHashFloat    = "ERR hash value is not a float"
	errFloat        = "ERR value is not a valid float"
)

// Parameter ranges of the reference (§3).
const (
	maxVecDims = 32768
	maxVecM    = 100
	maxVecEfC  = 1000
	maxVecEf   = 1000
	maxVecTopN = 10000
)

// vecIndex is a TairVector index: its entities, and their vectors in an
// ann.Index by slot.
type vecIndex struct {
	dims    int
	algo    string // HNSW or FLAT
	metric  vector.Metric
	dt      vector.DataType
	m, efC  int
	autoGC  bool
	dist    ann.Dist
	ix      ann.Index
	ents    map[string]*vecEntity
	slotEnt []*vecEntity // slot → entity holding its vector (nil: free)
	free    []uint32     // slots to reuse
	dead    []uint32     // HNSW tombstones' slots, free after compaction
	vectors int          // vectors held
	attrMem uint64       // bytes of attribute names and values
}

// vecEntity is one key of an index: at most one vector and string attributes.
type vecEntity struct {
	key      string
	slot     int32 // -1: no vector
	attrs    []vecAttr
	expireAt int64 // unix ms; 0: none
}

type vecAttr struct{ name, value string }

func (e *vecEntity) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

func (e *vecEntity) alive(now int64) bool { return e.expireAt == 0 || e.expireAt > now }

func (v *vecIndex) TypeName() string { return "tairvector" }

// MemoryBytes counts the vectors and graph (ann), the attributes, and about
// 96 bytes of bookkeeping per entity (map entry, struct, slot link).
func (v *vecIndex) MemoryBytes() uint64 {
	return v.ix.MemoryBytes() + v.attrMem + uint64(len(v.ents))*96 + uint64(cap(v.slotEnt))*8 + 256
}

// tairvectorModule is TairVector: the TVS.* commands.
func tairvectorModule() Module {
	return Module{Name: "tairvector", Commands: vectorCommands(), InfoKeys: "tairvector_indexes", TypeName: "tairvector"}
}

func vectorCommands() []*Command {
	w := flagWrite
	one := func(name string, arity int, flags Flags, h func(*conn, [][]byte)) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Handler: h}
	}
	// The MINDEX commands name their indexes after a count: they hold
	// every shard of the database (read locks, so searches still overlap).
	all := func(name string, arity int, h func(*conn, [][]byte)) *Command {
		return &Command{Name: name, Arity: arity, Flags: flagAllKeys, Handler: h}
	}
	exp := func(name string, unit int64, abs bool) *Command {
		return one(name, 4, w, func(c *conn, a [][]byte) { tvsExpire(c, a, unit, abs) })
	}
	ttl := func(name string, unit int64, abs bool) *Command {
		return one(name, 3, 0, func(c *conn, a [][]byte) { tvsTTL(c, a, unit, abs) })
	}
	return []*Command{
		one("tvs.createindex", -5, w, tvsCreateIndex),
		one("tvs.getindex", 2, 0, tvsGetIndex),
		one("tvs.delindex", 2, w, tvsDelIndex),
		{Name: "tvs.scanindex", Arity: -2, Flags: flagAllKeys, Handler: tvsScanIndex},
		one("tvs.hset", -5, w, tvsHSet),
		one("tvs.hgetall", 3, 0, tvsHGetAll),
		one("tvs.hmget", -4, 0, tvsHMGet),
		one("tvs.del", -3, w, tvsDel),
		one("tvs.hdel", -4, w, tvsHDel),
		one("tvs.hincrby", 5, w, func(c *conn, a [][]byte) { tvsIncr(c, a, true) }),
		one("tvs.hincrbyfloat", 5, w, func(c *conn, a [][]byte) { tvsIncr(c, a, false) }),
		exp("tvs.hexpire", 1000, false), exp("tvs.hpexpire", 1, false),
		exp("tvs.hexpireat", 1000, true), exp("tvs.hpexpireat", 1, true),
		ttl("tvs.httl", 1000, false), ttl("tvs.hpttl", 1, false),
		ttl("tvs.hexpiretime", 1000, true), ttl("tvs.hpexpiretime", 1, true),
		one("tvs.scan", -3, 0, tvsScan),
		one("tvs.knnsearch", -4, 0, tvsKnnSearch),
		one("tvs.knnsearchfield", -6, 0, tvsKnnSearchField),
		one("tvs.mknnsearch", -5, 0, tvsMKnnSearch),
		one("tvs.getdistance", -5, 0, tvsGetDistance),
		all("tvs.mindexknnsearch", -5, tvsMIndexKnnSearch),
		all("tvs.mindexknnsearchfield", -6, tvsMIndexKnnSearchField),
		all("tvs.mindexmknnsearch", -6, tvsMIndexMKnnSearch),
	}
}

// vecIdx returns the index at key: nil (after a WRONGTYPE reply) when the
// key holds another type, nil without reply when it is missing.
func (c *conn) vecIdx(key []byte) (*vecIndex, bool) {
	v, found, ok := lookup[*vecIndex](c, key)
	c.countRead(found)
	if !ok || !found {
		return nil, ok
	}
	return v, true
}

func nowMs() int64 { return time.Now().UnixMilli() }

func tvsCreateIndex(c *conn, a [][]byte) {
	if v := c.db().get(a[1]); v != nil {
		if _, ok := v.(*vecIndex); ok {
			c.fail(errVecDuplicate)
		} else {
			c.out = append(c.out, wrongType...)
		}
		return
	}
	ix, msg := newVecIndex(string(a[1]), a[2:])
	if msg != "" {
		c.fail(msg)
		return
	}
	c.db().set(a[1], ix)
	c.out = resp.AppendOK(c.out)
}

// newVecIndex reads `dims algorithm distance_method [key value]...`.
func newVecIndex(name string, a [][]byte) (*vecIndex, string) {
	dims, err := strconv.Atoi(string(a[0]))
	metric, okM := vector.ParseMetric(string(a[2]))
	algo := strings.ToUpper(string(a[1]))
	if err != nil || dims < 1 || dims > maxVecDims || !okM || (algo != "HNSW" && algo != "FLAT") || len(a)%2 == 0 {
		return nil, errVecParams
	}
	v := &vecIndex{dims: dims, algo: algo, metric: metric, dt: vector.Float32, m: 16, efC: 100, ents: map[string]*vecEntity{}}
	for i := 3; i < len(a); i += 2 {
		k, val := strings.ToLower(string(a[i])), string(a[i+1])
		var ok bool
		switch k {
		case "data_type":
			v.dt, ok = vector.ParseDataType(val)
		case "m":
			v.m, ok = intIn(val, 1, maxVecM)
		case "ef_construct":
			v.efC, ok = intIn(val, 1, maxVecEfC)
		case "auto_gc":
			v.autoGC, ok = parseBool(val)
		case "lexical_algorithm", "analyzer", "k1", "b", "hybrid_ratio", "lexical_use_hnsw", "lexical_hnsw_m",
			"lexical_hnsw_ef_construct":
			return nil, errVecHybrid
		default:
			if strings.HasPrefix(k, "inverted_index_") {
				return nil, errVecHybrid
			}
		}
		if !ok {
			return nil, errVecParams
		}
	}
	if !vector.Valid(v.metric, v.dt) {
		return nil, errVecParams
	}
	m := v.metric
	v.dist = func(x, y []float32) float32 { return vector.Distance(m, x, y) }
	v.ix = v.newANN(name)
	return v, ""
}

// newANN builds the index's ANN structure: FLAT ranks with the exact
// distance; HNSW's graph with vector.RankDistance, and it reports the
// exact distance of its hits.
func (v *vecIndex) newANN(name string) ann.Index {
	if v.algo == "FLAT" {
		return ann.NewFlat(v.dims, v.dist)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return ann.NewHNSW(v.dims, vector.RankDistance(v.metric), v.dist, v.m, v.efC, h.Sum64())
}

func intIn(s string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= lo && n <= hi
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "1", "true":
		return true, true
	case "0", "false":
		return false, true
	}
	return false, false
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func tvsGetIndex(c *conn, a [][]byte) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	if v == nil {
		c.out = resp.AppendArray(c.out, 0)
		return
	}
	now := nowMs()
	live := 0
	for _, e := range v.ents {
		if e.alive(now) {
			live++
		}
	}
	hnsw := v.algo == "HNSW"
	pairs := [][2]string{}
	add := func(k, val string) { pairs = append(pairs, [2]string{k, val}) }
	if hnsw {
		add("auto_gc", boolText(v.autoGC))
	}
	add("dimension", strconv.Itoa(v.dims))
	add("attribute_data_size", strconv.FormatUint(v.attrMem, 10))
	add("distance_method", v.metric.String())
	add("data_type", v.dt.String())
	add("algorithm", v.algo)
	add("index_data_size", strconv.FormatUint(v.ix.MemoryBytes(), 10))
	if hnsw {
		add("M", strconv.Itoa(v.m))
	}
	add("data_count", strconv.Itoa(live))
	add("current_record_count", strconv.Itoa(v.vectors))
	if hnsw {
		add("ef_construct", strconv.Itoa(v.efC))
	}
	add("delete_record_count", strconv.Itoa(v.ix.Deleted()))
	c.out = resp.AppendArray(c.out, 2*len(pairs))
	for _, p := range pairs {
		c.out = resp.AppendBulkString(c.out, p[0])
		c.out = resp.AppendBulkString(c.out, p[1])
	}
}

func tvsDelIndex(c *conn, a [][]byte) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	n := int64(0)
	if v != nil {
		c.db().del(a[1])
		n = 1
	}
	c.out = resp.AppendInt(c.out, n)
}

// scanOpts reads `[MATCH p] [COUNT n]` (and, for TVS.SCAN, FILTER and
// VECTOR/MAX_DIST) in any order.
type scanOpts struct {
	match   string
	count   int
	filter  *vector.Filter
	vec     []byte
	maxDist float32
	hasMax  bool
}

func parseScanOpts(c *conn, a [][]byte, entities bool) (scanOpts, bool) {
	o := scanOpts{match: "*", count: 10}
	for i := 0; i < len(a); i += 2 {
		if i+1 >= len(a) {
			c.fail(errSyntax)
			return o, false
		}
		val := a[i+1]
		switch k := strings.ToUpper(string(a[i])); {
		case k == "MATCH":
			o.match = string(val)
		case k == "COUNT":
			n, err := strconv.Atoi(string(val))
			if err != nil || n < 1 {
				c.fail(errInt)
				return o, false
			}
			o.count = n
		case k == "FILTER" && entities:
			f, ok := c.vecFilter(val)
			if !ok {
				return o, false
			}
			o.filter = f
		case k == "VECTOR" && entities:
			o.vec = val
		case k == "MAX_DIST" && entities:
			d, err := strconv.ParseFloat(string(val), 32)
			if err != nil {
				c.fail(errFloat)
				return o, false
			}
			o.maxDist, o.hasMax = float32(d), true
		default:
			c.fail(errSyntax)
			return o, false
		}
	}
	if (o.vec == nil) != !o.hasMax {
		c.fail("ERR VECTOR and MAX_DIST go together")
		return o, false
	}
	return o, true
}

func (c *conn) vecFilter(s []byte) (*vector.Filter, bool) {
	if len(s) == 0 {
		return nil, true
	}
	f, err := vector.ParseFilter(string(s))
	if err != nil {
		c.fail("ERR invalid filter: " + err.Error())
		return nil, false
	}
	return f, true
}

// pageOf returns the names from cursor that match, up to count of them,
// and the next cursor (0 at the end). names must be sorted.
func pageOf(names []string, cursor, count int, keep func(string) bool) ([]string, int) {
	var out []string
	i := cursor
	for ; i < len(names) && len(out) < count; i++ {
		if keep(names[i]) {
			out = append(out, names[i])
		}
	}
	if i >= len(names) {
		i = 0
	}
	return out, i
}

func appendScanReply(dst []byte, cursor int, keys []string) []byte {
	dst = resp.AppendArray(dst, 2)
	dst = resp.AppendBulkString(dst, strconv.Itoa(cursor))
	return appendStrings(dst, keys)
}

func globMatch(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

func tvsScanIndex(c *conn, a [][]byte) {
	cursor, err := strconv.Atoi(string(a[1]))
	if err != nil || cursor < 0 {
		c.fail("ERR invalid cursor")
		return
	}
	o, ok := parseScanOpts(c, a[2:], false)
	if !ok {
		return
	}
	var names []string
	for i := range c.db().shards {
		for k, v := range c.db().shards[i].m {
			if _, ok := v.(*vecIndex); ok {
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	page, next := pageOf(names, cursor, o.count, func(n string) bool { return globMatch(o.match, n) })
	c.out = appendScanReply(c.out, next, page)
}

// entity returns the live entity at key (expired ones are dropped first
// when write is set, so that writes start afresh).
func (v *vecIndex) entity(key []byte, now int64, write bool) *vecEntity {
	e := v.ents[string(key)]
	if e != nil && !e.alive(now) {
		if write {
			v.remove(e)
		}
		return nil
	}
	return e
}

// remove deletes an entity and its vector.
func (v *vecIndex) remove(e *vecEntity) {
	v.dropVector(e)
	for _, a := range e.attrs {
		v.attrMem -= uint64(len(a.name) + len(a.value))
	}
	delete(v.ents, e.key)
}

func (v *vecIndex) dropVector(e *vecEntity) {
	if e.slot < 0 {
		return
	}
	s := uint32(e.slot)
	v.ix.Remove(s)
	v.slotEnt[s] = nil
	e.slot = -1
	v.vectors--
	if h, ok := v.ix.(*ann.HNSW); ok {
		v.dead = append(v.dead, s)
		// Rebuild once tombstones outnumber live vectors (and are many).
		if len(v.dead) > 1024 && len(v.dead) > v.vectors {
			h.Compact()
			v.free = append(v.free, v.dead...)
			v.dead = v.dead[:0]
		}
		return
	}
	v.free = append(v.free, s)
}

func (v *vecIndex) setVector(e *vecEntity, vec []float32) {
	v.dropVector(e)
	var s uint32
	if n := len(v.free); n > 0 {
		s, v.free = v.free[n-1], v.free[:n-1]
	} else {
		s = uint32(len(v.slotEnt))
		v.slotEnt = append(v.slotEnt, nil)
	}
	v.ix.Add(s, vec)
	v.slotEnt[s] = e
	e.slot = int32(s)
	v.vectors++
}

// parseVec reads a vector for this index (normalised for COSINE),
// replying the error when it does not parse.
func (c *conn) parseVec(v *vecIndex, text []byte) ([]float32, bool) {
	vec, err := vector.Parse(text, v.dims, v.dt)
	if err == vector.ErrDims {
		c.fail(errVecDims)
		return nil, false
	}
	if err != nil {
		c.fail("ERR invalid vector: " + err.Error())
		return nil, false
	}
	if v.metric == vector.Cosine {
		vector.Normalize(vec)
	}
	return vec, true
}

func (c *conn) vecIdxForWrite(key []byte) *vecIndex {
	v, ok := c.vecIdx(key)
	if ok && v == nil {
		c.fail(errVecNoIndex)
	}
	return v
}

func tvsHSet(c *conn, a [][]byte) {
	v := c.vecIdxForWrite(a[1])
	if v == nil {
		return
	}
	if len(a)%2 == 0 {
		c.fail(arityErr("tvs.hset"))
		return
	}
	var vec []float32
	for i := 3; i < len(a); i += 2 {
		switch string(a[i]) {
		case "VECTOR":
			var ok bool
			if vec, ok = c.parseVec(v, a[i+1]); !ok {
				return
			}
		case "TEXT":
			c.fail(errVecHybrid)
			return
		}
	}
	now := nowMs()
	e := v.entity(a[2], now, true)
	created := int64(0)
	if e == nil {
		e = &vecEntity{key: string(a[2]), slot: -1}
		v.ents[e.key] = e
	}
	if vec != nil {
		if e.slot < 0 {
			created++
		}
		v.setVector(e, vec)
	}
	for i := 3; i < len(a); i += 2 {
		if string(a[i]) != "VECTOR" && v.setAttr(e, string(a[i]), string(a[i+1])) {
			created++
		}
	}
	c.out = resp.AppendInt(c.out, created)
}

// setAttr sets an attribute and says whether it is new.
func (v *vecIndex) setAttr(e *vecEntity, name, value string) bool {
	for i := range e.attrs {
		if e.attrs[i].name == name {
			v.attrMem += uint64(len(value)) - uint64(len(e.attrs[i].value))
			e.attrs[i].value = value
			return false
		}
	}
	e.attrs = append(e.attrs, vecAttr{name, value})
	v.attrMem += uint64(len(name) + len(value))
	return true
}

func (v *vecIndex) appendVector(dst []byte, e *vecEntity) []byte {
	return resp.AppendBulk(dst, vector.Format(v.ix.Vector(uint32(e.slot))))
}

// readEntity returns the live entity a[2] of index a[1] for a read; when
// there is none it replies an empty array (or WRONGTYPE) and returns nil.
func (c *conn) readEntity(a [][]byte) (*vecIndex, *vecEntity) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return nil, nil
	}
	var e *vecEntity
	if v != nil {
		e = v.entity(a[2], nowMs(), false)
	}
	if e == nil {
		c.out = resp.AppendArray(c.out, 0)
	}
	return v, e
}

func tvsHGetAll(c *conn, a [][]byte) {
	if v, e := c.readEntity(a); e != nil {
		c.out = v.appendFields(c.out, e, nil)
	}
}

// appendFields appends an entity's fields as an array of name/value pairs:
// all of them (VECTOR first) when names is empty, else those named that exist.
func (v *vecIndex) appendFields(dst []byte, e *vecEntity, names [][]byte) []byte {
	dst = resp.AppendArray(dst, 2*v.fieldCount(e, names))
	return v.appendPairs(dst, e, names)
}

// fieldCount is the number of pairs appendPairs writes.
func (v *vecIndex) fieldCount(e *vecEntity, names [][]byte) int {
	if len(names) == 0 {
		n := len(e.attrs)
		if e.slot >= 0 {
			n++
		}
		return n
	}
	n := 0
	for _, name := range names {
		if _, ok := e.attr(string(name)); ok || (string(name) == "VECTOR" && e.slot >= 0) {
			n++
		}
	}
	return n
}

// appendPairs appends the fields' name/value pairs, without an array header.
func (v *vecIndex) appendPairs(dst []byte, e *vecEntity, names [][]byte) []byte {
	if len(names) == 0 {
		if e.slot >= 0 {
			dst = resp.AppendBulkString(dst, "VECTOR")
			dst = v.appendVector(dst, e)
		}
		for _, at := range e.attrs {
			dst = resp.AppendBulkString(dst, at.name)
			dst = resp.AppendBulkString(dst, at.value)
		}
		return dst
	}
	for _, name := range names {
		if string(name) == "VECTOR" && e.slot >= 0 {
			dst = resp.AppendBulk(dst, name)
			dst = v.appendVector(dst, e)
		} else if val, ok := e.attr(string(name)); ok {
			dst = resp.AppendBulk(dst, name)
			dst = resp.AppendBulkString(dst, val)
		}
	}
	return dst
}

func tvsHMGet(c *conn, a [][]byte) {
	v, e := c.readEntity(a)
	if e == nil {
		return
	}
	c.out = resp.AppendArray(c.out, len(a)-3)
	for _, name := range a[3:] {
		if string(name) == "VECTOR" && e.slot >= 0 {
			c.out = v.appendVector(c.out, e)
		} else if val, ok := e.attr(string(name)); ok {
			c.out = resp.AppendBulkString(c.out, val)
		} else {
			c.out = resp.AppendNil(c.out)
		}
	}
}

func tvsDel(c *conn, a [][]byte) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	n := int64(0)
	now := nowMs()
	for _, k := range a[2:] {
		if v == nil {
			break
		}
		if e := v.entity(k, now, true); e != nil {
			v.remove(e)
			n++
		}
	}
	c.out = resp.AppendInt(c.out, n)
}

func tvsHDel(c *conn, a [][]byte) {
	v, ok := c.vecIdx(a[1])
	if !ok {
		return
	}
	var e *vecEntity
	if v != nil {
		e = v.entity(a[2], nowMs(), true)
	}
	n := int64(0)
	for _, f := range a[3:] {
		if e == nil {
			break
		}
		if string(f) == "VECTOR" {
			if e.slot >= 0 {
				v.dropVector(e)
				n++
			}
			continue
		}
		for i, at := range e.attrs {
			if at.name == string(f) {
				v.attrMem -= uint64(len(at.name) + len(at.value))
				e.attrs = append(e.attrs[:i], e.attrs[i+1:]...)
				n++
				break
			}
		}
	}
	if e != nil && e.slot < 0 && len(e.attrs) == 0 {
		v.remove(e) // like a Redis hash, an entity with no field is gone
	}
	c.out = resp.AppendInt(c.out, n)
}

func tvsIncr(c *conn, a [][]byte, asInt bool) {
	v := c.vecIdxForWrite(a[1])
	if v == nil {
		return
	}
	if string(a[3]) == "VECTOR" {
		c.fail(errVecField)
		return
	}
	e := v.entity(a[2], nowMs(), true)
	old := "0"
	if e != nil {
		if s, ok := e.attr(string(a[3])); ok {
			old = s
		}
	}
	var out string
	if asInt {
		by, err1 := strconv.ParseInt(string(a[4]), 10, 64)
		cur, err2 := strconv.ParseInt(old, 10, 64)
		switch {
		case err1 != nil:
			c.fail(errInt)
			return
		case err2 != nil:
			c.fail(errHashInt)
			return
		}
		out = strconv.FormatInt(cur+by, 10)
	} else {
		by, err1 := strconv.ParseFloat(string(a[4]), 64)
		cur, err2 := strconv.ParseFloat(old, 64)
		switch {
		case err1 != nil:
			c.fail(errFloat)
			return
		case err2 != nil:
			c.fail(errHashFloat)
			return
		}
		out = strconv.FormatFloat(cur+by, 'g', -1, 64)
	}
	if e == nil {
		e = &vecEntity{key: string(a[2]), slot: -1}
		v.ents[e.key] = e
	}
	v.setAttr(e, string(a[3]), out)
	if asInt {
		n, _ := strconv.ParseInt(out, 10, 64)
		c.out = resp.AppendInt(c.out, n)
		return
	}
	c.out = resp.AppendBulkString(c.out, out)
}

// entityAt returns index a[1] and its live entity a[2] (nil when either
// is missing); ok is false after a WRONGTYPE reply.
func (c *conn) entityAt(a [][]byte, write bool) (*vecIndex, *vecEntity, int64, bool) {
	v, ok := c.vecIdx(a[1])
	now := nowMs()
	if v == nil {
		return nil, nil, now, ok
	}
	return v, v.entity(a[2], now, write), now, true
}

// tvsExpire sets an entity's expiry: a time relative to now or absolute,
// in units of unit milliseconds.
func tvsExpire(c *conn, a [][]byte, unit int64, abs bool) {
	n, err := strconv.ParseInt(string(a[3]), 10, 64)
	if err != nil {
		c.fail(errInt)
		return
	}
	v, e, now, ok := c.entityAt(a, true)
	if !ok {
		return
	}
	if e == nil {
		c.out = resp.AppendInt(c.out, 0)
		return
	}
	at := n * unit
	if !abs {
		at += now
	}
	if at <= now {
		v.remove(e)
	} else {
		e.expireAt = at
	}
	c.out = resp.AppendInt(c.out, 1)
}

// tvsTTL replies the time left (or the expiry time, abs) in units of unit
// ms: −1 without expiry, −2 for a missing entity or index.
func tvsTTL(c *conn, a [][]byte, unit int64, abs bool) {
	_, e, now, ok := c.entityAt(a, false)
	if !ok {
		return
	}
	switch {
	case e == nil:
		c.out = resp.AppendInt(c.out, -2)
	case e.expireAt == 0:
		c.out = resp.AppendInt(c.out, -1)
	case abs:
		c.out = resp.AppendInt(c.out, e.expireAt/unit)
	default:
		c.out = resp.AppendInt(c.out, (e.expireAt-now+unit/2)/unit)
	}
}
