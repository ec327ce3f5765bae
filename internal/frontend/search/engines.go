package search

import (
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/elastic"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/tairsearch"
)

// engines lists the search drivers a run can choose, by name: adding an
// engine is a driver package and one line here.
var engines = []struct {
	name string
	new  func(fts.Options) (fts.Engine, error)
}{
	{"elasticsearch", elastic.New},
	{"tairsearch", tairsearch.New},
}

// New returns the named engine.
func New(name string, o fts.Options) (fts.Engine, error) {
	for _, e := range engines {
		if e.name == name {
			return e.new(o)
		}
	}
	return nil, fmt.Errorf("unknown engine %q (%s)", name, Names())
}

// Names lists the engines, as "[elasticsearch tairsearch]".
func Names() string {
	n := make([]string, len(engines))
	for i, e := range engines {
		n[i] = e.name
	}
	return "[" + strings.Join(n, " ") + "]"
}
