package fulltext

import (
	"errors"
	"fmt"
	"time"
)

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
	// MaxTime bounds the time one request's evaluation may take (default
	// 10 s, Elasticsearch's search timeout's place); past it the request
	// is refused with a LimitError "time".
	MaxTime time.Duration
	// Cancelled, when set, stops every request being evaluated once it
	// says true (a server that is closing).
	Cancelled func() bool
}

// Default limits.
const (
	DefaultMaxClauses    = 1024
	DefaultMaxTerms      = 65536
	DefaultMaxExpansions = 10000
	DefaultMaxBuckets    = 65536
	DefaultMaxTime       = 10 * time.Second
	// MaxDepth bounds the nesting of a request's JSON (objects and arrays).
	MaxDepth = 64
)

func (l Limits) clauses() int    { return or(l.MaxClauses, DefaultMaxClauses) }
func (l Limits) terms() int      { return or(l.MaxTerms, DefaultMaxTerms) }
func (l Limits) expansions() int { return or(l.MaxExpansions, DefaultMaxExpansions) }
func (l Limits) buckets() int    { return or(l.MaxBuckets, DefaultMaxBuckets) }

func (l Limits) maxTime() time.Duration {
	if l.MaxTime > 0 {
		return l.MaxTime
	}
	return DefaultMaxTime
}

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
	if e.Limit == "time" {
		return fmt.Sprintf("query took too long: %s was stopped after %d ms, this server gives a query at most %d ms", e.What, e.N, e.Max)
	}
	return fmt.Sprintf("too many %s: %s has %d, this server takes at most %d", e.Limit, e.What, e.N, e.Max)
}

// evalCtx is one request's evaluation on one index: the index, and when
// the request must stop (Limits.MaxTime after it started; zero: never).
type evalCtx struct {
	*Index
	start, deadline time.Time
	// stop, when set, is asked at most every stopEvery whether the
	// request's client left; asked is when it was last.
	stop  func() bool
	asked time.Time
}

// stopEvery bounds how often a request asks whether its client left (a
// system call).
const stopEvery = 10 * time.Millisecond

// ErrCancelled is a request stopped because its server is closing;
// ErrClientGone one stopped because its client left.
var (
	ErrCancelled  = errors.New("the server is closing: the query was stopped")
	ErrClientGone = errors.New("the client left: the query was stopped")
)

// checkEvery is how many steps of a long loop (terms of a dictionary,
// documents) go between two looks at the clock.
const checkEvery = 1024

// expired refuses the request once its deadline passed: what names the
// part being evaluated.
func (ec *evalCtx) expired(what string) error {
	if c := ec.Limits.Cancelled; c != nil && c() {
		return ErrCancelled
	}
	now := nowFunc()
	if ec.stop != nil && now.Sub(ec.asked) >= stopEvery {
		ec.asked = now
		if ec.stop() {
			return ErrClientGone
		}
	}
	if now.After(ec.deadline) {
		return &LimitError{Limit: "time", What: what, N: int(now.Sub(ec.start).Milliseconds()),
			Max: int(ec.deadline.Sub(ec.start).Milliseconds())}
	}
	return nil
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
