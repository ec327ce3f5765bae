// Package engines is the one list of search and vector engines: the
// search, track and vector front-ends choose from it by name. Adding an
// engine is its driver package (exporting a catalog.Engine) and one line
// in All.
package engines

import (
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/elastic"
	"github.com/tairbench/tairbench/internal/driver/tairsearch"
	"github.com/tairbench/tairbench/internal/driver/tairvector"
)

// All lists every engine.
var All = []catalog.Engine{
	tairsearch.Engine,
	tairvector.Engine,
	elastic.Engine,
}

// Search returns the full-text engine named name.
func Search(name string) (catalog.Engine, error) {
	return find(name, "search", func(e catalog.Engine) bool { return e.Search != nil })
}

// Vectors returns the vector engine named name.
func Vectors(name string) (catalog.Engine, error) {
	return find(name, "vector", func(e catalog.Engine) bool { return e.Vectors != nil })
}

// AtURL says whether the named engine is reached at a URL of its own
// (Elasticsearch's --es) rather than at the command's RESP target.
func AtURL(name string) bool {
	e, ok := ByName(name)
	return ok && e.Reach == catalog.HTTP
}

// SearchNames and VectorNames list the engines of each kind, comma-separated.
func SearchNames() string { return names(func(e catalog.Engine) bool { return e.Search != nil }) }

// VectorNames lists the vector engines, comma-separated.
func VectorNames() string { return names(func(e catalog.Engine) bool { return e.Vectors != nil }) }

// ByName is the engine named name, whatever it serves (false when none).
func ByName(name string) (catalog.Engine, bool) {
	for _, e := range All {
		if e.Name == name {
			return e, true
		}
	}
	return catalog.Engine{}, false
}

func find(name, kind string, has func(catalog.Engine) bool) (catalog.Engine, error) {
	if e, ok := ByName(name); ok && has(e) {
		return e, nil
	}
	return catalog.Engine{}, fmt.Errorf("unknown engine %q (%s engines: %s)", name, kind, names(has))
}

func names(has func(catalog.Engine) bool) string {
	var out []string
	for _, e := range All {
		if has(e) {
			out = append(out, e.Name)
		}
	}
	return strings.Join(out, ", ")
}
