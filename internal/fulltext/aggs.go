package fulltext

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

// nowFunc is the clock (tests replace it to expire the query cache).
var nowFunc = time.Now

// aggSpec is one named aggregation.
type aggSpec struct {
	name  string
	typ   string
	field string
	// terms
	size     int
	minCount int
	byKey    bool
	asc      bool
	include  func(string) bool
	// filter
	filter query
	sub    []aggSpec
}

var metricTypes = map[string]bool{"sum": true, "max": true, "min": true, "avg": true, "value_count": true,
	"sum_of_squares": true, "variance": true, "std_deviation": true, "extended_stats": true}

func parseAggs(raw []byte) ([]aggSpec, error) {
	members, err := parseObject(raw)
	if err != nil {
		return nil, qerr("aggs must be an object")
	}
	var out []aggSpec
	for _, m := range members {
		parts, err := parseObject(m.Val)
		if err != nil {
			return nil, qerr("aggregation '%s' must be an object", m.Key)
		}
		a := aggSpec{name: m.Key}
		for _, p := range parts {
			var v any
			if err := unmarshalNumber(p.Val, &v); err != nil {
				return nil, qerr("aggregation '%s': invalid json", m.Key)
			}
			switch {
			case p.Key == "aggs" || p.Key == "aggregations":
				if a.sub, err = parseAggs(p.Val); err != nil {
					return nil, err
				}
			case p.Key == "filter":
				a.typ = "filter"
				if a.filter, err = parseQuery(v); err != nil {
					return nil, err
				}
			case p.Key == "terms":
				a.typ = "terms"
				if err := a.parseTerms(v); err != nil {
					return nil, err
				}
			case metricTypes[p.Key]:
				a.typ = p.Key
				o, err := asObject(v, "aggregation '"+m.Key+"'")
				if err != nil {
					return nil, err
				}
				if a.field, _ = o["field"].(string); a.field == "" {
					return nil, qerr("aggregation '%s' needs a field", m.Key)
				}
			default:
				return nil, qerr("unsupported aggregation type '%s'", p.Key)
			}
		}
		if a.typ == "" {
			return nil, qerr("aggregation '%s' has no type", m.Key)
		}
		if a.sub != nil && a.typ != "terms" && a.typ != "filter" {
			return nil, qerr("aggregation '%s' of type '%s' cannot have sub-aggregations", m.Key, a.typ)
		}
		out = append(out, a)
	}
	return out, nil
}

func (a *aggSpec) parseTerms(v any) error {
	o, err := asObject(v, "terms aggregation")
	if err != nil {
		return err
	}
	a.size, a.minCount = 10, 1
	for k, x := range o {
		switch k {
		case "field":
			a.field, _ = x.(string)
		case "size":
			if a.size, err = asInt(x, "terms.size"); err != nil {
				return err
			}
		case "min_doc_count":
			if a.minCount, err = asInt(x, "terms.min_doc_count"); err != nil {
				return err
			}
		case "order":
			ord, err := asObject(x, "terms.order")
			if err != nil {
				return err
			}
			key, dir, err := single(ord, "terms.order")
			if err != nil {
				return err
			}
			switch key {
			case "_key", "_term":
				a.byKey = true
			case "_count":
			default:
				return qerr("terms order by '%s' is not supported (use _key or _count)", key)
			}
			a.asc = strings.EqualFold(fmt.Sprint(dir), "asc")
		case "include", "exclude":
			pred, err := valueFilter(x, k)
			if err != nil {
				return err
			}
			prev := a.include
			if k == "include" {
				a.include = func(s string) bool { return pred(s) && (prev == nil || prev(s)) }
			} else {
				a.include = func(s string) bool { return !pred(s) && (prev == nil || prev(s)) }
			}
		default:
			return qerr("unsupported terms aggregation option '%s'", k)
		}
	}
	if a.field == "" {
		return qerr("terms aggregation needs a field")
	}
	return nil
}

// valueFilter builds include/exclude: a regex string or an array of values.
func valueFilter(v any, what string) (func(string) bool, error) {
	switch x := v.(type) {
	case string:
		re, err := regexp.Compile("^(?:" + x + ")$")
		if err != nil {
			return nil, qerr("terms %s: bad regex: %v", what, err)
		}
		return re.MatchString, nil
	case []any:
		set := map[string]bool{}
		for _, e := range x {
			s, _ := stringOf(e)
			set[s] = true
		}
		return func(s string) bool { return set[s] }, nil
	}
	return nil, qerr("terms %s must be a regex or an array", what)
}

// stats accumulates numeric values.
type stats struct {
	count              int64
	sum, sumSq, lo, hi float64
}

func (s *stats) add(v float64) {
	if s.count == 0 || v < s.lo {
		s.lo = v
	}
	if s.count == 0 || v > s.hi {
		s.hi = v
	}
	s.count++
	s.sum += v
	s.sumSq += v * v
}

func (s *stats) variance() float64 {
	if s.count == 0 {
		return 0
	}
	mean := s.sum / float64(s.count)
	return math.Max(s.sumSq/float64(s.count)-mean*mean, 0)
}

func num(v float64, ok bool) string {
	if !ok {
		return "null"
	}
	return FormatFloat(v)
}

func renderAggs(b *bytes.Buffer, ix *evalCtx, aggs []aggSpec, docs *roaring.Bitmap) error {
	b.WriteByte('{')
	for i, a := range aggs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(a.name) + ":")
		if err := renderAgg(b, ix, a, docs); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// renderSub writes the sub-aggregations as members of an open object.
func renderSub(b *bytes.Buffer, ix *evalCtx, a aggSpec, docs *roaring.Bitmap) error {
	for _, s := range a.sub {
		b.WriteString("," + jsonString(s.name) + ":")
		if err := renderAgg(b, ix, s, docs); err != nil {
			return err
		}
	}
	return nil
}

func renderAgg(b *bytes.Buffer, ix *evalCtx, a aggSpec, docs *roaring.Bitmap) error {
	switch a.typ {
	case "filter":
		m, err := a.filter.eval(ix)
		if err != nil {
			return err
		}
		sub := roaring.And(docs, m.docs)
		fmt.Fprintf(b, `{"doc_count":%d,"type":"filter"`, sub.GetCardinality())
		if err := renderSub(b, ix, a, sub); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	case "terms":
		return renderTerms(b, ix, a, docs)
	}
	fd := ix.field(a.field)
	var s stats
	if fd != nil {
		switch {
		case fd.f.numeric() || fd.f.Type == TypeBoolean:
			it := roaring.And(docs, fd.hasNum).Iterator()
			for it.HasNext() {
				s.add(fd.nums[it.Next()])
			}
		case a.typ == "value_count" && fd.f.Type == TypeKeyword:
			it := docs.Iterator()
			for it.HasNext() {
				d := it.Next()
				if int(d) < len(fd.kws) {
					s.count += int64(len(fd.kws[d]))
				}
			}
		default:
			return qerr("%s aggregation needs a numeric field, '%s' is %s", a.typ, a.field, fd.f.Type)
		}
	}
	has := s.count > 0
	switch a.typ {
	case "sum":
		fmt.Fprintf(b, `{"value":%s,"type":"sum"}`, FormatFloat(s.sum))
	case "max":
		fmt.Fprintf(b, `{"value":%s,"type":"max"}`, num(s.hi, has))
	case "min":
		fmt.Fprintf(b, `{"value":%s,"type":"min"}`, num(s.lo, has))
	case "avg":
		fmt.Fprintf(b, `{"value":%s,"type":"avg"}`, num(s.sum/float64(max(s.count, 1)), has))
	case "value_count":
		fmt.Fprintf(b, `{"value":%s,"type":"value_count"}`, FormatFloat(float64(s.count)))
	case "sum_of_squares":
		fmt.Fprintf(b, `{"value":%s,"type":"sum_of_squares"}`, FormatFloat(s.sumSq))
	case "variance":
		fmt.Fprintf(b, `{"value":%s,"type":"variance"}`, num(s.variance(), has))
	case "std_deviation":
		fmt.Fprintf(b, `{"value":%s,"type":"std_deviation"}`, num(math.Sqrt(s.variance()), has))
	case "extended_stats":
		fmt.Fprintf(b, `{"count":%d,"sum":%s,"max":%s,"min":%s,"avg":%s,"sum_of_squares":%s,"variance":%s,"std_deviation":%s,"type":"extended_stats"}`,
			s.count, FormatFloat(s.sum), num(s.hi, has), num(s.lo, has), num(s.sum/float64(max(s.count, 1)), has),
			FormatFloat(s.sumSq), num(s.variance(), has), num(math.Sqrt(s.variance()), has))
	}
	return nil
}

type bucket struct {
	key   string
	num   float64
	isNum bool
	docs  *roaring.Bitmap
	count int
}

func renderTerms(b *bytes.Buffer, ix *evalCtx, a aggSpec, docs *roaring.Bitmap) error {
	most := ix.Limits.buckets()
	if a.size > most {
		return &LimitError{Limit: "buckets", What: fmt.Sprintf("the terms aggregation on '%s' (its size)", a.field), N: a.size, Max: most}
	}
	fd := ix.field(a.field)
	buckets := map[string]*bucket{}
	// count adds document d to the bucket of key (created from proto).
	count := func(key string, d uint32, proto bucket) {
		bk := buckets[key]
		if bk == nil {
			proto.key = key
			bk = &proto
			buckets[key] = bk
		}
		bk.count++
		if a.sub != nil { // sub-aggregations need the bucket's documents
			if bk.docs == nil {
				bk.docs = roaring.New()
			}
			bk.docs.Add(d)
		}
	}
	typ := "sterms"
	if fd != nil {
		switch {
		case fd.f.Type == TypeKeyword:
			it := docs.Iterator()
			for it.HasNext() {
				d := it.Next()
				if int(d) >= len(fd.kws) {
					continue
				}
				for _, s := range fd.kws[d] {
					count(s, d, bucket{})
				}
			}
		case fd.f.numeric() || fd.f.Type == TypeBoolean:
			typ = "lterms"
			if fd.f.Type == TypeDouble || fd.f.Type == TypeFloat {
				typ = "dterms"
			}
			it := roaring.And(docs, fd.hasNum).Iterator()
			for it.HasNext() {
				d := it.Next()
				v := fd.nums[d]
				count(strconv.FormatFloat(v, 'f', -1, 64), d, bucket{num: v, isNum: true})
			}
		default:
			return qerr("terms aggregation on text field '%s' is not supported; aggregate on a keyword field", a.field)
		}
	}
	list := make([]*bucket, 0, len(buckets))
	for _, bk := range buckets {
		if bk.count >= a.minCount && (a.include == nil || a.include(bk.key)) {
			list = append(list, bk)
		}
	}
	keyLess := func(x, y *bucket) bool {
		if x.isNum {
			return x.num < y.num
		}
		return x.key < y.key
	}
	sort.Slice(list, func(i, j int) bool {
		x, y := list[i], list[j]
		if a.byKey {
			if a.asc {
				return keyLess(x, y)
			}
			return keyLess(y, x)
		}
		if x.count != y.count {
			if a.asc {
				return x.count < y.count
			}
			return x.count > y.count
		}
		return keyLess(x, y)
	})
	if len(list) > a.size {
		list = list[:a.size]
	}
	fmt.Fprintf(b, `{"type":"%s","buckets":[`, typ)
	for i, bk := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		key := jsonString(bk.key)
		if bk.isNum {
			key = bk.key
		}
		fmt.Fprintf(b, `{"key":%s,"doc_count":%d`, key, bk.count)
		if err := renderSub(b, ix, a, bk.docs); err != nil {
			return err
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return nil
}
