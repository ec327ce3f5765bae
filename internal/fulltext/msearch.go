package fulltext

import (
	"bytes"
	"fmt"
	"sort"
)

// HitBytes is what one hit a request keeps is estimated to take, for a
// caller that charges a request's memory before it runs (MSearch's admit).
const HitBytes = 128

// MSearch runs one request over several indexes that share a schema,
// merging hits; N and n are per index. admit, when set, is given the hits
// the request may keep (its size and cursor for each index named) once it
// is parsed and before any index is searched: an error refuses it. stop,
// when set, stops the request once it says true (its client left).
func MSearch(indexes []*Index, raw []byte, admit func(hits int64) error, stop func() bool) ([]byte, error) {
	if len(indexes) == 0 {
		return nil, qerr("no index")
	}
	crc := indexes[0].SchemaCRC()
	for _, ix := range indexes[1:] {
		if ix.SchemaCRC() != crc {
			return nil, qerr("indexes '%s' and '%s' have different schemas", indexes[0].Name, ix.Name)
		}
	}
	r, err := ParseRequest(raw)
	if err != nil {
		return nil, err
	}
	if r.from != 0 {
		return nil, qerr("TFT.MSEARCH does not take from; use keys_cursor")
	}
	r.stop = stop
	if admit != nil {
		var hits int64
		for _, ix := range indexes {
			hits += int64(r.size) + int64(r.keysCursor[ix.Name])
		}
		if err := admit(hits); err != nil {
			return nil, err
		}
	}
	var all []hit
	var total uint64
	var results []*result
	for _, ix := range indexes {
		res, err := r.run(ix, r.keysCursor[ix.Name])
		if err != nil {
			return nil, err
		}
		total += res.total
		all = append(all, res.hits...)
		results = append(results, res)
	}
	less, scored := r.ranker(indexes[0])
	// less is total: ties end in the global insertion order.
	sort.Slice(all, func(i, j int) bool { return less(all[i], all[j]) })
	if len(all) > r.size {
		all = all[:r.size]
	}
	var b bytes.Buffer
	r.renderHits(&b, all, total, scored, false, matches{})
	if len(r.aggs) > 0 {
		return nil, qerr("TFT.MSEARCH does not support aggregations")
	}
	fmt.Fprintf(&b, `,"aux_info":{"index_crc64":%d`, crc)
	if r.replyCursors {
		b.WriteString(`,"keys_cursor":{`)
		for i, res := range results {
			n := r.keysCursor[res.ix.Name]
			for _, h := range all {
				if h.ix == res.ix {
					n++
				}
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%d", jsonString(res.ix.Name), n)
		}
		b.WriteByte('}')
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}
