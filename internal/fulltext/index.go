package fulltext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// posting lists the documents holding a term; freq keeps counts above 1.
type posting struct {
	docs *roaring.Bitmap
	freq map[uint32]uint32
}

func (p *posting) tf(d uint32) uint32 {
	if f, ok := p.freq[d]; ok {
		return f
	}
	return 1
}

// fieldData is one field's inverted index and doc values.
type fieldData struct {
	f        *Field
	postings map[string]*posting
	dl       []uint32  // tokens per document (text)
	nums     []float64 // numeric and boolean doc values
	hasNum   *roaring.Bitmap
	kws      [][]string // keyword doc values
}

// Index is one TairSearch index.
type Index struct {
	Name    string
	Mapping *Mapping
	ids     map[string]uint32
	docs    [][]byte // stored source by doc number; nil when deleted
	docIDs  []string
	seqs    []uint64 // each document's place in the process-wide insertion order
	live    *roaring.Bitmap
	fields  map[string]*fieldData
	autoID  uint64
	sorted  []string // cached sorted ids for SCANDOCID
	srcSize int64
	sugs    map[string]float64
	// mu guards cache and sorted, which reads fill in.
	mu    sync.Mutex
	cache map[string]cached
	// Limits bound each search request's work (zero fields: defaults).
	Limits Limits
}

type cached struct {
	reply   []byte
	expires time.Time
}

// insertions numbers documents in the order they were written, across
// indexes: sorts on _doc follow it, so that TFT.MSEARCH merges several
// indexes in one order whatever order they are named in (ties between
// hits go by index name and document id instead).
var insertions atomic.Uint64

// CacheTTL is how long TFT.SEARCH … use_cache serves a cached reply.
const CacheTTL = 5 * time.Second

// NewIndex creates an empty index.
func NewIndex(name string, m *Mapping) *Index {
	ix := &Index{Name: name, Mapping: m, ids: map[string]uint32{}, live: roaring.New(), fields: map[string]*fieldData{},
		sugs: map[string]float64{}, cache: map[string]cached{}}
	ix.syncFields()
	return ix
}

func (ix *Index) syncFields() {
	for name, f := range ix.Mapping.Fields {
		if _, ok := ix.fields[name]; !ok {
			ix.fields[name] = &fieldData{f: f, postings: map[string]*posting{}, hasNum: roaring.New()}
		}
	}
}

// UpdateMapping adds properties; existing documents are not re-indexed.
func (ix *Index) UpdateMapping(raw []byte) error {
	if err := ix.Mapping.Update(raw); err != nil {
		return err
	}
	ix.syncFields()
	ix.invalidate()
	return nil
}

// DocCount returns the number of live documents.
func (ix *Index) DocCount() uint64 { return ix.live.GetCardinality() }

func (ix *Index) invalidate() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.sorted = nil
	if len(ix.cache) > 0 {
		// Cached replies stay until they expire: TairSearch serves stale hits.
		now := time.Now()
		for k, c := range ix.cache {
			if now.After(c.expires) {
				delete(ix.cache, k)
			}
		}
	}
}

// flatten walks a decoded document and collects values by dotted field name.
func flatten(prefix string, v any, out map[string][]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+k+".", e, out)
		}
	case []any:
		for _, e := range x {
			flatten(prefix, e, out)
		}
	default:
		name := strings.TrimSuffix(prefix, ".")
		out[name] = append(out[name], x)
	}
}

func decode(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func stringOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// errBadDoc marks a document that does not fit the mapping.
var errBadDoc = errors.New("invalid document")

// Add stores a document under id (replacing a document with the same id).
func (ix *Index) Add(id string, src []byte) error {
	members, err := parseObject(src)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadDoc, err)
	}
	stored := writeObject(members)
	vals := map[string][]any{}
	doc, err := decode(stored)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadDoc, err)
	}
	flatten("", doc, vals)
	if err := ix.check(vals); err != nil {
		return err
	}
	if old, ok := ix.ids[id]; ok {
		ix.remove(old)
	}
	d := uint32(len(ix.docs))
	ix.docs = append(ix.docs, stored)
	ix.docIDs = append(ix.docIDs, id)
	ix.seqs = append(ix.seqs, insertions.Add(1))
	ix.ids[id] = d
	ix.live.Add(d)
	ix.srcSize += int64(len(stored) + len(id))
	for name, vs := range vals {
		if fd := ix.fields[name]; fd != nil && fd.f.Enabled {
			fd.add(d, vs)
		}
	}
	ix.invalidate()
	return nil
}

// check validates a document's values against the mapping before anything changes.
func (ix *Index) check(vals map[string][]any) error {
	for name, vs := range vals {
		fd := ix.fields[name]
		if fd == nil {
			continue
		}
		for _, v := range vs {
			if v == nil {
				continue
			}
			switch {
			case fd.f.numeric():
				if _, ok := numberOf(v); !ok {
					return fmt.Errorf("failed to parse field [%s] of type [%s]", name, fd.f.Type)
				}
			case fd.f.Type == TypeBoolean:
				if s, ok := stringOf(v); !ok || (s != "true" && s != "false") {
					return fmt.Errorf("failed to parse field [%s] of type [boolean]", name)
				}
			}
		}
	}
	return nil
}

func grow[T any](s []T, n uint32) []T {
	for uint32(len(s)) <= n {
		s = append(s, *new(T))
	}
	return s
}

func (fd *fieldData) add(d uint32, vs []any) {
	f := fd.f
	switch {
	case f.Type == TypeText:
		if !f.Index {
			return
		}
		counts := map[string]uint32{}
		var dl uint32
		for _, v := range vs {
			s, ok := stringOf(v)
			if !ok {
				continue
			}
			for _, t := range f.analyzer.Analyze(s) {
				counts[t.Term]++
				dl++
			}
		}
		for term, n := range counts {
			fd.addPosting(term, d, n)
		}
		fd.dl = grow(fd.dl, d)
		fd.dl[d] = dl
	case f.Type == TypeKeyword:
		var kept []string
		for _, v := range vs {
			s, ok := stringOf(v)
			if !ok || (f.IgnoreAbove >= 0 && len(s) > f.IgnoreAbove) {
				continue
			}
			kept = append(kept, s)
			if f.Index {
				fd.addPosting(s, d, 1)
			}
		}
		if len(kept) > 0 {
			fd.kws = grow(fd.kws, d)
			fd.kws[d] = kept
		}
	default: // numeric, boolean: doc values (first value)
		for _, v := range vs {
			if x, ok := numberOf(v); ok {
				fd.nums = grow(fd.nums, d)
				fd.nums[d] = x
				fd.hasNum.Add(d)
				break
			}
		}
	}
}

func (fd *fieldData) addPosting(term string, d, n uint32) {
	p := fd.postings[term]
	if p == nil {
		p = &posting{docs: roaring.New()}
		fd.postings[term] = p
	}
	p.docs.Add(d)
	if n > 1 {
		if p.freq == nil {
			p.freq = map[uint32]uint32{}
		}
		p.freq[d] = n
	}
}

func (fd *fieldData) removePosting(term string, d uint32) {
	p := fd.postings[term]
	if p == nil {
		return
	}
	p.docs.Remove(d)
	delete(p.freq, d)
	if p.docs.IsEmpty() {
		delete(fd.postings, term)
	}
}

// remove deletes document d from every structure.
func (ix *Index) remove(d uint32) {
	stored := ix.docs[d]
	if stored == nil {
		return
	}
	doc, _ := decode(stored)
	vals := map[string][]any{}
	flatten("", doc, vals)
	for name, vs := range vals {
		fd := ix.fields[name]
		if fd == nil {
			continue
		}
		switch fd.f.Type {
		case TypeText:
			for _, v := range vs {
				if s, ok := stringOf(v); ok && fd.f.Index {
					for _, t := range fd.f.analyzer.Analyze(s) {
						fd.removePosting(t.Term, d)
					}
				}
			}
			if int(d) < len(fd.dl) {
				fd.dl[d] = 0
			}
		case TypeKeyword:
			for _, v := range vs {
				if s, ok := stringOf(v); ok {
					fd.removePosting(s, d)
				}
			}
			if int(d) < len(fd.kws) {
				fd.kws[d] = nil
			}
		default:
			fd.hasNum.Remove(d)
		}
	}
	ix.srcSize -= int64(len(stored) + len(ix.docIDs[d]))
	delete(ix.ids, ix.docIDs[d])
	ix.docs[d] = nil
	ix.live.Remove(d)
}

// Delete removes documents by id and returns how many existed.
func (ix *Index) Delete(ids ...string) int {
	n := 0
	for _, id := range ids {
		if d, ok := ix.ids[id]; ok {
			ix.remove(d)
			n++
		}
	}
	if n > 0 {
		ix.invalidate()
	}
	return n
}

// DeleteAll removes every document and keeps the mapping.
func (ix *Index) DeleteAll() {
	fresh := NewIndex(ix.Name, ix.Mapping)
	fresh.Limits = ix.Limits
	ix.ids, ix.docs, ix.docIDs, ix.live, ix.fields, ix.srcSize = fresh.ids, fresh.docs, fresh.docIDs, fresh.live, fresh.fields, 0
	ix.invalidate()
}

// Get returns a document's stored source.
func (ix *Index) Get(id string) ([]byte, bool) {
	d, ok := ix.ids[id]
	if !ok {
		return nil, false
	}
	return ix.docs[d], true
}

// NewID returns an id no document uses.
func (ix *Index) NewID() string {
	for {
		ix.autoID++
		id := "auto-" + strconv.FormatUint(ix.autoID, 10)
		if _, ok := ix.ids[id]; !ok {
			return id
		}
	}
}

// UpdateFields merges fields into a document (creating it): updated and new
// fields first, then the remaining old ones.
func (ix *Index) UpdateFields(id string, partial []byte) error {
	upd, err := parseObject(partial)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadDoc, err)
	}
	var old []kv
	if src, ok := ix.Get(id); ok {
		old, _ = parseObject(src)
	}
	merged := append([]kv{}, upd...)
	for _, o := range old {
		if !hasKey(upd, o.Key) {
			merged = append(merged, o)
		}
	}
	return ix.Add(id, writeObject(merged))
}

func hasKey(m []kv, k string) bool {
	for _, x := range m {
		if x.Key == k {
			return true
		}
	}
	return false
}

// DeleteFields removes top-level fields from a document; it returns how many existed.
func (ix *Index) DeleteFields(id string, names []string) (int, error) {
	src, ok := ix.Get(id)
	if !ok {
		return 0, nil
	}
	members, _ := parseObject(src)
	var kept []kv
	n := 0
	for _, m := range members {
		drop := false
		for _, name := range names {
			if m.Key == name {
				drop = true
			}
		}
		if drop {
			n++
		} else {
			kept = append(kept, m)
		}
	}
	if n == 0 {
		return 0, nil
	}
	return n, ix.Add(id, writeObject(kept))
}

// Incr adds incr to a numeric top-level field (creating document and
// field) and returns the new value. asInt selects INCRLONGDOCFIELD.
func (ix *Index) Incr(id, field string, incr float64, asInt bool) (float64, error) {
	if f := ix.Mapping.Fields[field]; f != nil {
		if asInt && f.Type != TypeLong && f.Type != TypeInteger {
			return 0, errors.New("incrlongdocfield only supports field of int or long type")
		}
		if !asInt && f.Type != TypeDouble && f.Type != TypeFloat {
			return 0, errors.New("incrfloatdocfield only supports field of double type")
		}
	}
	var members []kv
	if src, ok := ix.Get(id); ok {
		members, _ = parseObject(src)
	}
	cur := 0.0
	idx := -1
	for i, m := range members {
		if m.Key == field {
			idx = i
			var n json.Number
			if err := json.Unmarshal(m.Val, &n); err != nil {
				return 0, fmt.Errorf("field '%s' is not a number", field)
			}
			cur, _ = n.Float64()
		}
	}
	v := cur + incr
	var lit string
	if asInt {
		lit = strconv.FormatInt(int64(v), 10)
	} else {
		v = math.Round(v*1e9) / 1e9
		lit = strconv.FormatFloat(v, 'f', -1, 64)
	}
	if idx >= 0 {
		members[idx].Val = json.RawMessage(lit)
	} else {
		members = append(members, kv{field, json.RawMessage(lit)})
	}
	return v, ix.Add(id, writeObject(members))
}

// ScanIDs returns up to count ids from position cursor in ascending order,
// filtered by a glob, and the next cursor (0 when done).
func (ix *Index) ScanIDs(cursor, count int, match string) (int, []string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.sorted == nil {
		ix.sorted = make([]string, 0, len(ix.ids))
		for id := range ix.ids {
			ix.sorted = append(ix.sorted, id)
		}
		sort.Strings(ix.sorted)
	}
	var out []string
	end := min(cursor+count, len(ix.sorted))
	for i := cursor; i < end; i++ {
		if ok, _ := path.Match(match, ix.sorted[i]); match == "" || ok {
			out = append(out, ix.sorted[i])
		}
	}
	if end >= len(ix.sorted) {
		end = 0
	}
	return end, out
}

// MemoryBytes estimates the index's memory: stored sources, postings and doc values.
func (ix *Index) MemoryBytes() uint64 {
	n := uint64(ix.srcSize) + uint64(len(ix.docs))*40 + ix.live.GetSizeInBytes()
	for _, fd := range ix.fields {
		for term, p := range fd.postings {
			n += uint64(len(term)) + 48 + p.docs.GetSizeInBytes() + uint64(len(p.freq))*16
		}
		n += uint64(len(fd.dl))*4 + uint64(len(fd.nums))*8 + fd.hasNum.GetSizeInBytes()
		for _, k := range fd.kws {
			for _, s := range k {
				n += uint64(len(s)) + 16
			}
		}
	}
	return n
}

// Check reports whether Add would accept src, without changing the index.
func (ix *Index) Check(src []byte) error {
	doc, err := decode(src)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadDoc, err)
	}
	vals := map[string][]any{}
	flatten("", doc, vals)
	return ix.check(vals)
}
