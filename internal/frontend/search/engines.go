package search

import (
	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/tairsearch"
	"github.com/tairbench/tairbench/internal/frontend/engines"
)

// New returns the named full-text engine (frontend/engines lists them).
func New(name string, o fts.Options) (fts.Engine, error) {
	e, err := engines.Search(name)
	if err != nil {
		return nil, err
	}
	return e.Search(o)
}

// resp is the full-text engine a RESP target serves (-e's default).
var resp = tairsearch.Engine

// reachedByURL says whether the named engine is reached at a URL of its own
// (-a http://…) rather than at the RESP target.
func reachedByURL(name string) bool {
	e, err := engines.Search(name)
	return err == nil && e.Reach == catalog.HTTP
}
