package fulltext

import "fmt"

// Limits bound the work one search request may make the index do, so
// that a hostile or mistaken query is refused before its memory is spent.
// A zero field takes its default.
type Limits struct {
	// MaxClauses bounds the terms a match query analyses to and the
	// clauses of one bool or dis_max query (default 1024, Lucene's
	// maxClauseCount).
	MaxClauses int
	// MaxTerms bounds the values of one terms query (default 65536,
	// Elasticsearch's index.max_terms_count).
	MaxTerms int
	// MaxExpansions bounds the indexed terms one prefix, wildcard or fuzzy
	// query expands to (default 10000).
	MaxExpansions int
	// MaxBuckets bounds the buckets one terms aggregation returns (its
	// size; default 65536, Elasticsearch's search.max_buckets). The
	// buckets it counts are bounded by the documents it matches.
	MaxBuckets int
}

// Default limits.
const (
	DefaultMaxClauses    = 1024
	DefaultMaxTerms      = 65536
	DefaultMaxExpansions = 10000
	DefaultMaxBuckets    = 65536
	// MaxDepth bounds the nesting of a request's JSON (objects and arrays).
	MaxDepth = 64
)

func (l Limits) clauses() int    { return or(l.MaxClauses, DefaultMaxClauses) }
func (l Limits) terms() int      { return or(l.MaxTerms, DefaultMaxTerms) }
func (l Limits) expansions() int { return or(l.MaxExpansions, DefaultMaxExpansions) }
func (l Limits) buckets() int    { return or(l.MaxBuckets, DefaultMaxBuckets) }

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// LimitError is a request refused by one of the Limits.
type LimitError struct {
	// Limit names the bound: "clauses", "terms", "expansions", "buckets"
	// or "depth".
	Limit string
	// What is the part of the request that passed it.
	What string
	// N is how much the request asked (a lower bound when counting
	// stopped at the limit), Max the bound.
	N, Max int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("too many %s: %s has %d, this server takes at most %d", e.Limit, e.What, e.N, e.Max)
}

// checkDepth refuses JSON nested deeper than MaxDepth, before it is
// decoded (a deep nesting costs a stack frame and an allocation a level).
func checkDepth(raw []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return &LimitError{Limit: "depth", What: "the request's JSON nesting", N: depth, Max: MaxDepth}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
