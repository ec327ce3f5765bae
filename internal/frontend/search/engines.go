package search

import (
	"github.com/tairbench/tairbench/internal/driver/fts"
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
