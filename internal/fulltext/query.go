package fulltext

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/editdist"
)

// QueryError is a request the engine rejects; the message names the part.
type QueryError struct{ Msg string }

// Error returns the message.
func (e *QueryError) Error() string { return e.Msg }

func qerr(format string, a ...any) error { return &QueryError{Msg: fmt.Sprintf(format, a...)} }

// matches is a query's result: the matching documents and their scores.
type matches struct {
	docs  *roaring.Bitmap
	score func(d uint32) float64
	// explain describes the score of d (for TFT.EXPLAINSCORE).
	explain func(d uint32) string
}

type query interface {
	eval(ix *evalCtx) (matches, error)
}

func constant(docs *roaring.Bitmap, boost float64, what string) matches {
	return matches{docs: docs, score: func(uint32) float64 { return boost },
		explain: func(uint32) string {
			return fmt.Sprintf(`{"score":%s,"description":"%s, constant score"}`, FormatFloat(boost), what)
		}}
}

// asObject returns v as a JSON object.
func asObject(v any, what string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, qerr("%s must be an object", what)
	}
	return m, nil
}

func asFloat(v any, what string) (float64, error) {
	if f, ok := numberOf(v); ok {
		return f, nil
	}
	return 0, qerr("%s must be a number", what)
}

func asInt(v any, what string) (int, error) {
	f, err := asFloat(v, what)
	if err != nil || f != math.Trunc(f) {
		return 0, qerr("%s must be a whole number", what)
	}
	return int(f), nil
}

// single returns the only member of a one-member object.
func single(m map[string]any, what string) (string, any, error) {
	if len(m) != 1 {
		return "", nil, qerr("%s must have exactly one field", what)
	}
	for k, v := range m {
		return k, v, nil
	}
	return "", nil, nil
}

// parseQuery builds a query from its JSON form.
func parseQuery(v any) (query, error) {
	m, err := asObject(v, "query")
	if err != nil {
		return nil, err
	}
	typ, body, err := single(m, "a query")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "term":
		return parseTerm(body)
	case "terms":
		return parseTerms(body)
	case "match":
		return parseMatch(body)
	case "match_all":
		q := &matchAllQ{boost: 1}
		if b, ok := body.(map[string]any); ok {
			if bv, ok := b["boost"]; ok {
				if q.boost, err = asFloat(bv, "match_all.boost"); err != nil {
					return nil, err
				}
			}
		}
		return q, nil
	case "bool":
		return parseBool(body)
	case "range":
		return parseRange(body)
	case "prefix", "wildcard":
		return parsePattern(typ, body)
	case "dis_max":
		return parseDisMax(body)
	case "constant_score":
		b, err := asObject(body, "constant_score")
		if err != nil {
			return nil, err
		}
		f, ok := b["filter"]
		if !ok {
			return nil, qerr("constant_score needs a filter")
		}
		inner, err := parseQuery(f)
		if err != nil {
			return nil, err
		}
		q := &constQ{inner: inner, boost: 1}
		if bv, ok := b["boost"]; ok {
			if q.boost, err = asFloat(bv, "constant_score.boost"); err != nil {
				return nil, err
			}
		}
		return q, nil
	}
	return nil, qerr("unsupported query type '%s'", typ)
}

// fieldParams reads {"field": value} or {"field": {"value"|"query": …, opts}}.
func fieldParams(body any, what, valueKey string) (field string, value any, opts map[string]any, err error) {
	m, err := asObject(body, what)
	if err != nil {
		return "", nil, nil, err
	}
	opts = map[string]any{}
	for k, v := range m {
		if k == "boost" || k == "lowercase" || k == "_name" {
			opts[k] = v
			continue
		}
		if field != "" {
			return "", nil, nil, qerr("%s must name exactly one field", what)
		}
		field = k
		if o, ok := v.(map[string]any); ok {
			for ok2, ov := range o {
				opts[ok2] = ov
			}
			value = o[valueKey]
			if value == nil {
				return "", nil, nil, qerr("%s on '%s' needs '%s'", what, field, valueKey)
			}
		} else {
			value = v
		}
	}
	if field == "" {
		return "", nil, nil, qerr("%s must name a field", what)
	}
	return field, value, opts, nil
}

func boostOf(opts map[string]any, what string) (float64, error) {
	if b, ok := opts["boost"]; ok {
		return asFloat(b, what+".boost")
	}
	return 1, nil
}

func lowercaseOf(opts map[string]any) bool {
	if l, ok := opts["lowercase"].(bool); ok {
		return l
	}
	return true
}

// termQ matches one exact term.
type termQ struct {
	field string
	value any
	boost float64
	lower bool
}

func parseTerm(body any) (query, error) {
	field, value, opts, err := fieldParams(body, "term", "value")
	if err != nil {
		return nil, err
	}
	boost, err := boostOf(opts, "term")
	if err != nil {
		return nil, err
	}
	return &termQ{field: field, value: value, boost: boost, lower: lowercaseOf(opts)}, nil
}

func (ix *Index) field(name string) *fieldData { return ix.fields[name] }

// idf is TairSearch's classic idf: 1 + ln(N/(n+1)).
func idf(N, n uint64) float64 { return 1 + math.Log(float64(N)/float64(n+1)) }

func (q *termQ) eval(ix *evalCtx) (matches, error) {
	fd := ix.field(q.field)
	if fd == nil {
		return matches{docs: roaring.New()}, nil
	}
	switch {
	case fd.f.numeric() || fd.f.Type == TypeBoolean:
		x, ok := numberOf(q.value)
		if !ok {
			if fd.f.Type == TypeBoolean {
				if s, _ := stringOf(q.value); s == "true" {
					x, ok = 1, true
				} else if s == "false" {
					x, ok = 0, true
				}
			}
			if !ok {
				return matches{}, qerr("term value for numeric field '%s' is not a number", q.field)
			}
		}
		return constant(fd.numMatch(func(v float64) bool { return v == x }), q.boost, "term on a numeric field"), nil
	}
	s, ok := stringOf(q.value)
	if !ok {
		return matches{}, qerr("term value for '%s' must be a string or number", q.field)
	}
	if fd.f.Type == TypeText && q.lower {
		s = strings.ToLower(s)
	}
	return fd.termMatch(ix, s, q.boost)
}

// termMatch scores one term: boost · idf² · sqrt(freq)/sqrt(dl).
func (fd *fieldData) termMatch(ix *evalCtx, term string, boost float64) (matches, error) {
	if !fd.f.Index {
		if fd.f.Type == TypeKeyword { // doc values, as ES does for unindexed keywords
			return constant(fd.kwMatch(func(s string) bool { return s == term }), boost, "term on doc values"), nil
		}
		return matches{}, qerr("field '%s' is not indexed", fd.f.Name)
	}
	p := fd.postings[term]
	if p == nil {
		return matches{docs: roaring.New()}, nil
	}
	N, n := ix.DocCount(), p.docs.GetCardinality()
	w := idf(N, n)
	score := func(d uint32) float64 {
		dl := uint32(1)
		if fd.f.Type == TypeText && int(d) < len(fd.dl) && fd.dl[d] > 0 {
			dl = fd.dl[d]
		}
		return boost * w * w * math.Sqrt(float64(p.tf(d))) / math.Sqrt(float64(dl))
	}
	explain := func(d uint32) string {
		dl := uint32(1)
		if fd.f.Type == TypeText && int(d) < len(fd.dl) && fd.dl[d] > 0 {
			dl = fd.dl[d]
		}
		tf := math.Sqrt(float64(p.tf(d))) / math.Sqrt(float64(dl))
		return fmt.Sprintf(`{"score":%s,"description":"score, computed as query_boost * idf * idf * tf","field":%s,"term":%s,"query_boost":%s,`+
			`"details":[{"value":%s,"description":"idf, computed as 1 + log(N / (n + 1))","details":[{"value":%d,"description":"n, number of documents containing term"},{"value":%d,"description":"N, total number of documents"}]},`+
			`{"value":%s,"description":"tf, computed as sqrt(freq) / sqrt(dl)","details":[{"value":%d,"description":"freq, occurrences of term within document"},{"value":%d,"description":"dl, length of field"}]}]}`,
			FormatFloat(score(d)), jsonString(fd.f.Name), jsonString(term), FormatFloat(boost), FormatFloat(w), n, N, FormatFloat(tf), p.tf(d), dl)
	}
	return matches{docs: p.docs, score: score, explain: explain}, nil
}

func (fd *fieldData) numMatch(pred func(float64) bool) *roaring.Bitmap {
	out := roaring.New()
	it := fd.hasNum.Iterator()
	for it.HasNext() {
		d := it.Next()
		if pred(fd.nums[d]) {
			out.Add(d)
		}
	}
	return out
}

func (fd *fieldData) kwMatch(pred func(string) bool) *roaring.Bitmap {
	out := roaring.New()
	for d, vs := range fd.kws {
		for _, s := range vs {
			if pred(s) {
				out.Add(uint32(d))
				break
			}
		}
	}
	return out
}

// termsMatch unions the postings of terms accepted by pred, with a constant score.
// termsWhere unions the postings of terms accepted by pred, refusing more
// than most of them (what names the query in the error).
func (fd *fieldData) termsWhere(ec *evalCtx, pred func(string) bool, most int, what string) (*roaring.Bitmap, error) {
	if !fd.f.Index && fd.f.Type == TypeKeyword {
		return fd.kwMatch(pred), nil
	}
	var bms []*roaring.Bitmap
	n := 0
	for t, p := range fd.postings {
		if n++; n%checkEvery == 0 {
			if err := ec.expired(what); err != nil {
				return nil, err
			}
		}
		if pred(t) {
			if len(bms) == most {
				return nil, &LimitError{Limit: "expansions", What: what, N: most + 1, Max: most}
			}
			bms = append(bms, p.docs)
		}
	}
	return roaring.FastOr(bms...), nil
}

// combine scores a disjunction of clauses with coord = matched/total.
func combine(ix *evalCtx, parts []matches, required int, coordTotal int, useCoord bool, what string) matches {
	docs := roaring.New()
	if required > 1 {
		counts := map[uint32]int{}
		for _, p := range parts {
			it := p.docs.Iterator()
			for it.HasNext() {
				counts[it.Next()]++
			}
		}
		for d, c := range counts {
			if c >= required {
				docs.Add(d)
			}
		}
	} else {
		bms := make([]*roaring.Bitmap, len(parts))
		for i, p := range parts {
			bms[i] = p.docs
		}
		docs = roaring.FastOr(bms...)
	}
	score := func(d uint32) float64 {
		sum, matched := 0.0, 0
		for _, p := range parts {
			if p.docs.Contains(d) {
				sum += p.score(d)
				matched++
			}
		}
		if useCoord && coordTotal > 0 {
			return sum * float64(matched) / float64(coordTotal)
		}
		return sum
	}
	explain := func(d uint32) string {
		var details []string
		matched := 0
		for _, p := range parts {
			if p.docs.Contains(d) {
				details = append(details, p.explain(d))
				matched++
			}
		}
		coord := 1.0
		if useCoord && coordTotal > 0 {
			coord = float64(matched) / float64(coordTotal)
		}
		return fmt.Sprintf(`{"score":%s,"description":"%s","coord":%s,"coord_description":"coord, computed as (must_clause + match_should_clause) / (must_clause + should_clause):","details":[%s]}`,
			FormatFloat(score(d)), what, FormatFloat(coord), strings.Join(details, ","))
	}
	return matches{docs: docs, score: score, explain: explain}
}

type termsQ struct {
	field  string
	values []any
	boost  float64
	lower  bool
}

func parseTerms(body any) (query, error) {
	m, err := asObject(body, "terms")
	if err != nil {
		return nil, err
	}
	q := &termsQ{boost: 1, lower: true}
	for k, v := range m {
		switch k {
		case "boost":
			if q.boost, err = asFloat(v, "terms.boost"); err != nil {
				return nil, err
			}
		case "lowercase":
			q.lower, _ = v.(bool)
		default:
			arr, ok := v.([]any)
			if !ok {
				return nil, qerr("terms on '%s' needs an array of values", k)
			}
			if q.field != "" {
				return nil, qerr("terms must name exactly one field")
			}
			q.field, q.values = k, arr
		}
	}
	if q.field == "" {
		return nil, qerr("terms must name a field")
	}
	return q, nil
}

func (q *termsQ) eval(ix *evalCtx) (matches, error) {
	if n, most := len(q.values), ix.Limits.terms(); n > most {
		return matches{}, &LimitError{Limit: "terms", What: fmt.Sprintf("the terms query on '%s'", q.field), N: n, Max: most}
	}
	var parts []matches
	for _, v := range q.values {
		m, err := (&termQ{field: q.field, value: v, boost: q.boost, lower: q.lower}).eval(ix)
		if err != nil {
			return matches{}, err
		}
		parts = append(parts, m)
	}
	return combine(ix, parts, 1, len(parts), true, "coord times sum of:"), nil
}

type matchQ struct {
	field    string
	text     string
	and      bool
	minMatch string
	fuzzy    int
	prefix   int
	analyzer string
	boost    float64
}

func parseMatch(body any) (query, error) {
	field, value, opts, err := fieldParams(body, "match", "query")
	if err != nil {
		return nil, err
	}
	q := &matchQ{field: field, boost: 1}
	if q.text, err = matchText(value); err != nil {
		return nil, err
	}
	if q.boost, err = boostOf(opts, "match"); err != nil {
		return nil, err
	}
	if op, ok := opts["operator"].(string); ok {
		switch strings.ToLower(op) {
		case "and":
			q.and = true
		case "or":
		default:
			return nil, qerr("match operator must be 'and' or 'or', got '%s'", op)
		}
	}
	if msm, ok := opts["minimum_should_match"]; ok {
		q.minMatch = fmt.Sprint(msm)
	}
	if fz, ok := opts["fuzziness"]; ok {
		s := fmt.Sprint(fz)
		if s == "AUTO" || s == "auto" {
			q.fuzzy = -1
		} else if q.fuzzy, err = strconv.Atoi(s); err != nil || q.fuzzy < 0 || q.fuzzy > 2 {
			return nil, qerr("match fuzziness must be 0, 1, 2 or AUTO")
		}
	}
	if pl, ok := opts["prefix_length"]; ok {
		if q.prefix, err = asInt(pl, "match.prefix_length"); err != nil {
			return nil, err
		}
	}
	q.analyzer, _ = opts["analyzer"].(string)
	return q, nil
}

func matchText(v any) (string, error) {
	if s, ok := stringOf(v); ok {
		return s, nil
	}
	return "", qerr("match query must be a string or number")
}

// minimumShould resolves minimum_should_match ("2", "75%", "-1") for n clauses.
func minimumShould(spec string, n int) (int, error) {
	if spec == "" {
		return 1, nil
	}
	if strings.HasSuffix(spec, "%") {
		p, err := strconv.Atoi(strings.TrimSuffix(spec, "%"))
		if err != nil {
			return 0, qerr("bad minimum_should_match '%s'", spec)
		}
		k := n * p / 100
		if p < 0 {
			k = n + n*p/100
		}
		return max(k, 0), nil
	}
	k, err := strconv.Atoi(spec)
	if err != nil {
		return 0, qerr("bad minimum_should_match '%s'", spec)
	}
	if k < 0 {
		k = n + k
	}
	return max(k, 0), nil
}

func (q *matchQ) eval(ix *evalCtx) (matches, error) {
	fd := ix.field(q.field)
	if fd == nil {
		return matches{docs: roaring.New()}, nil
	}
	if fd.f.Type != TypeText {
		return (&termQ{field: q.field, value: q.text, boost: q.boost, lower: false}).eval(ix)
	}
	an := fd.f.searchAnalyzer
	if q.analyzer != "" {
		a, err := ix.Mapping.analyzer(q.analyzer)
		if err != nil {
			return matches{}, qerr("%v", err)
		}
		an = a
	}
	toks := an.Analyze(q.text)
	if len(toks) == 0 {
		return matches{docs: roaring.New()}, nil
	}
	if n, most := len(toks), ix.Limits.clauses(); n > most {
		return matches{}, &LimitError{Limit: "clauses", What: fmt.Sprintf("the match query on '%s' (terms after analysis)", q.field), N: n, Max: most}
	}
	var parts []matches
	for _, t := range toks {
		var m matches
		var err error
		if q.fuzzy != 0 {
			m, err = fd.fuzzyMatch(ix, t.Term, q.fuzzy, q.prefix, q.boost)
		} else {
			m, err = fd.termMatch(ix, t.Term, q.boost)
		}
		if err != nil {
			return matches{}, err
		}
		parts = append(parts, m)
	}
	required, err := minimumShould(q.minMatch, len(parts))
	if err != nil {
		return matches{}, err
	}
	if q.and {
		required = len(parts)
	}
	if required <= 1 {
		return combine(ix, parts, 1, len(parts), false, "sum of:"), nil
	}
	return combine(ix, parts, required, len(parts), false, "sum of:"), nil
}

// fuzzyMatch matches terms within an edit distance (AUTO: 0 for 1-2
// characters, 1 for 3-5, 2 above) sharing the first prefix characters.
func (fd *fieldData) fuzzyMatch(ix *evalCtx, term string, dist, prefix int, boost float64) (matches, error) {
	rs := []rune(term)
	if dist < 0 {
		switch {
		case len(rs) <= 2:
			dist = 0
		case len(rs) <= 5:
			dist = 1
		default:
			dist = 2
		}
	}
	var parts []matches
	n := 0
	for t := range fd.postings {
		if n++; n%checkEvery == 0 {
			if err := ix.expired(fmt.Sprintf("the fuzzy match of '%s'", clip(term, 40))); err != nil {
				return matches{}, err
			}
		}
		tr := []rune(t)
		if prefix > 0 && (len(tr) < prefix || len(rs) < prefix || string(tr[:prefix]) != string(rs[:prefix])) {
			continue
		}
		if editdist.Distance(rs, tr, dist) <= dist {
			if most := ix.Limits.expansions(); len(parts) == most {
				return matches{}, &LimitError{Limit: "expansions", What: fmt.Sprintf("the fuzzy match of '%s'", clip(term, 40)), N: most + 1, Max: most}
			}
			m, _ := fd.termMatch(ix, t, boost)
			parts = append(parts, m)
		}
	}
	if len(parts) == 0 {
		return matches{docs: roaring.New(), score: func(uint32) float64 { return 0 }, explain: func(uint32) string { return "{}" }}, nil
	}
	// A document matching several variants scores as its best variant.
	return disMax(parts, 0), nil
}

type matchAllQ struct{ boost float64 }

func (q *matchAllQ) eval(ix *evalCtx) (matches, error) {
	return constant(ix.live.Clone(), q.boost, "match_all"), nil
}

type constQ struct {
	inner query
	boost float64
}

func (q *constQ) eval(ix *evalCtx) (matches, error) {
	m, err := q.inner.eval(ix)
	if err != nil {
		return matches{}, err
	}
	return constant(m.docs, q.boost, "constant_score"), nil
}

type boolQ struct {
	must, should, mustNot, filter []query
	minShould                     string
}

func clauses(v any, what string) ([]query, error) {
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case map[string]any:
		list = []any{x}
	default:
		return nil, qerr("bool.%s must be a query or an array of queries", what)
	}
	out := make([]query, 0, len(list))
	for _, e := range list {
		q, err := parseQuery(e)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

func parseBool(body any) (query, error) {
	m, err := asObject(body, "bool")
	if err != nil {
		return nil, err
	}
	q := &boolQ{}
	for k, v := range m {
		switch k {
		case "must":
			q.must, err = clauses(v, k)
		case "should":
			q.should, err = clauses(v, k)
		case "must_not":
			q.mustNot, err = clauses(v, k)
		case "filter":
			q.filter, err = clauses(v, k)
		case "minimum_should_match":
			q.minShould = fmt.Sprint(v)
		case "boost", "_name":
		default:
			return nil, qerr("unsupported bool clause '%s'", k)
		}
		if err != nil {
			return nil, err
		}
	}
	return q, nil
}

func evalAll(ix *evalCtx, qs []query) ([]matches, error) {
	out := make([]matches, 0, len(qs))
	for _, q := range qs {
		if err := ix.expired("a compound query's clauses"); err != nil {
			return nil, err
		}
		m, err := q.eval(ix)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (q *boolQ) eval(ix *evalCtx) (matches, error) {
	if n, most := len(q.must)+len(q.should)+len(q.mustNot)+len(q.filter), ix.Limits.clauses(); n > most {
		return matches{}, &LimitError{Limit: "clauses", What: "a bool query", N: n, Max: most}
	}
	must, err := evalAll(ix, q.must)
	if err != nil {
		return matches{}, err
	}
	should, err := evalAll(ix, q.should)
	if err != nil {
		return matches{}, err
	}
	mustNot, err := evalAll(ix, q.mustNot)
	if err != nil {
		return matches{}, err
	}
	filter, err := evalAll(ix, q.filter)
	if err != nil {
		return matches{}, err
	}
	var docs *roaring.Bitmap
	for _, m := range append(append([]matches{}, must...), filter...) {
		if docs == nil {
			docs = m.docs.Clone()
		} else {
			docs.And(m.docs)
		}
	}
	minShould := 0
	if len(should) > 0 {
		def := "0"
		if len(must)+len(filter) == 0 {
			def = "1"
		}
		spec := q.minShould
		if spec == "" {
			spec = def
		}
		if minShould, err = minimumShould(spec, len(should)); err != nil {
			return matches{}, err
		}
	}
	if minShould > 0 {
		sh := combine(ix, should, minShould, 0, false, "")
		if docs == nil {
			docs = sh.docs.Clone()
		} else {
			docs.And(sh.docs)
		}
	}
	if docs == nil {
		docs = ix.live.Clone()
	}
	for _, m := range mustNot {
		docs.AndNot(m.docs)
	}
	total := len(must) + len(should)
	score := func(d uint32) float64 {
		if total == 0 {
			return 0
		}
		sum, matched := 0.0, 0
		for _, m := range must {
			sum += m.score(d)
			matched++
		}
		for _, m := range should {
			if m.docs.Contains(d) {
				sum += m.score(d)
				matched++
			}
		}
		return sum * float64(matched) / float64(total)
	}
	scoring := append(append([]matches{}, must...), should...)
	explain := func(d uint32) string {
		return combine(ix, scoring, 1, total, true, "coord times sum of:").explain(d)
	}
	return matches{docs: docs, score: score, explain: explain}, nil
}

type rangeQ struct {
	field            string
	gt, gte, lt, lte any
	boost            float64
}

func parseRange(body any) (query, error) {
	m, err := asObject(body, "range")
	if err != nil {
		return nil, err
	}
	field, v, err := single(m, "range")
	if err != nil {
		return nil, err
	}
	o, err := asObject(v, "range."+field)
	if err != nil {
		return nil, err
	}
	q := &rangeQ{field: field, boost: 1}
	for k, x := range o {
		switch k {
		case "gt":
			q.gt = x
		case "gte", "from":
			q.gte = x
		case "lt":
			q.lt = x
		case "lte", "to":
			q.lte = x
		case "boost":
			if q.boost, err = asFloat(x, "range.boost"); err != nil {
				return nil, err
			}
		case "include_lower", "include_upper", "format":
		default:
			return nil, qerr("unsupported range option '%s'", k)
		}
	}
	return q, nil
}

func (q *rangeQ) eval(ix *evalCtx) (matches, error) {
	fd := ix.field(q.field)
	if fd == nil {
		return matches{docs: roaring.New()}, nil
	}
	if fd.f.numeric() || fd.f.Type == TypeBoolean {
		var bounds [4]float64
		var set [4]bool
		for i, b := range []any{q.gt, q.gte, q.lt, q.lte} {
			if b != nil {
				x, err := asFloat(b, "range bound")
				if err != nil {
					return matches{}, err
				}
				bounds[i], set[i] = x, true
			}
		}
		pred := func(v float64) bool {
			return (!set[0] || v > bounds[0]) && (!set[1] || v >= bounds[1]) && (!set[2] || v < bounds[2]) && (!set[3] || v <= bounds[3])
		}
		return constant(fd.numMatch(pred), q.boost, "range"), nil
	}
	var bs [4]string
	var set [4]bool
	for i, b := range []any{q.gt, q.gte, q.lt, q.lte} {
		if b != nil {
			s, _ := stringOf(b)
			bs[i], set[i] = s, true
		}
	}
	pred := func(t string) bool {
		return (!set[0] || t > bs[0]) && (!set[1] || t >= bs[1]) && (!set[2] || t < bs[2]) && (!set[3] || t <= bs[3])
	}
	docs, err := fd.termsWhere(ix, pred, ix.Limits.expansions(), fmt.Sprintf("the range query on '%s'", q.field))
	if err != nil {
		return matches{}, err
	}
	return constant(docs, q.boost, "range"), nil
}

type patternQ struct {
	typ, field, value string
	boost             float64
}

func parsePattern(typ string, body any) (query, error) {
	field, value, opts, err := fieldParams(body, typ, "value")
	if err != nil {
		return nil, err
	}
	s, ok := stringOf(value)
	if !ok {
		return nil, qerr("%s value must be a string", typ)
	}
	boost, err := boostOf(opts, typ)
	if err != nil {
		return nil, err
	}
	return &patternQ{typ: typ, field: field, value: s, boost: boost}, nil
}

func (q *patternQ) eval(ix *evalCtx) (matches, error) {
	fd := ix.field(q.field)
	if fd == nil || fd.f.numeric() {
		return matches{docs: roaring.New()}, nil
	}
	v := q.value
	if fd.f.Type == TypeText {
		v = strings.ToLower(v)
	}
	pred := func(t string) bool { return strings.HasPrefix(t, v) }
	if q.typ == "wildcard" {
		pred = func(t string) bool { return wildcardMatch(v, t) }
	}
	docs, err := fd.termsWhere(ix, pred, ix.Limits.expansions(), fmt.Sprintf("the %s query '%s' on '%s'", q.typ, clip(q.value, 40), q.field))
	if err != nil {
		return matches{}, err
	}
	return constant(docs, q.boost, q.typ), nil
}

type disMaxQ struct {
	queries []query
	tie     float64
}

func parseDisMax(body any) (query, error) {
	m, err := asObject(body, "dis_max")
	if err != nil {
		return nil, err
	}
	q := &disMaxQ{}
	if t, ok := m["tie_breaker"]; ok {
		if q.tie, err = asFloat(t, "dis_max.tie_breaker"); err != nil {
			return nil, err
		}
	}
	qs, ok := m["queries"].([]any)
	if !ok {
		return nil, qerr("dis_max needs an array of queries")
	}
	for _, e := range qs {
		sub, err := parseQuery(e)
		if err != nil {
			return nil, err
		}
		q.queries = append(q.queries, sub)
	}
	return q, nil
}

func disMax(parts []matches, tie float64) matches {
	bms := make([]*roaring.Bitmap, len(parts))
	for i, p := range parts {
		bms[i] = p.docs
	}
	score := func(d uint32) float64 {
		best, sum := 0.0, 0.0
		for _, p := range parts {
			if p.docs.Contains(d) {
				s := p.score(d)
				sum += s
				best = math.Max(best, s)
			}
		}
		return best + tie*(sum-best)
	}
	return matches{docs: roaring.FastOr(bms...), score: score, explain: func(d uint32) string {
		return fmt.Sprintf(`{"score":%s,"description":"max plus tie_breaker times others of:"}`, FormatFloat(score(d)))
	}}
}

func (q *disMaxQ) eval(ix *evalCtx) (matches, error) {
	if n, most := len(q.queries), ix.Limits.clauses(); n > most {
		return matches{}, &LimitError{Limit: "clauses", What: "a dis_max query", N: n, Max: most}
	}
	parts, err := evalAll(ix, q.queries)
	if err != nil {
		return matches{}, err
	}
	return disMax(parts, q.tie), nil
}

// sortedTerms lists a field's terms (for tests and suggestions).
func (fd *fieldData) sortedTerms() []string {
	out := make([]string, 0, len(fd.postings))
	for t := range fd.postings {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// clip shortens s to n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
