package fulltext

import (
	"bytes"
	"fmt"
	"sort"
)

// MSearch runs one request over several indexes that share a schema,
// merging hits; N and n are per index.
func MSearch(indexes []*Index, raw []byte) ([]byte, error) {
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
