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

// ChooseSearch reads a search command's --engines (list, a comma list) beside
// its --es URL (es): see choose.
func ChooseSearch(list, es string) ([]string, error) {
	return choose(list, es, "search", func(e catalog.Engine) bool { return e.Search != nil })
}

// ChooseVectors reads a vector command's --engines beside its --es URL.
func ChooseVectors(list, es string) ([]string, error) {
	return choose(list, es, "vector", func(e catalog.Engine) bool { return e.Vectors != nil })
}

// choose reads --engines: by default every engine of the kind reached at
// the RESP target, and those reached by URL too when es is given. An engine
// reached by URL without es, and es beside a list with no such engine (it
// would be ignored), are refused.
func choose(list, es, kind string, has func(catalog.Engine) bool) ([]string, error) {
	var out []string
	if list == "" {
		for _, e := range All {
			if has(e) && (e.Reach == catalog.RESP || es != "") {
				out = append(out, e.Name)
			}
		}
		return out, nil
	}
	byURL := false
	for _, name := range strings.Split(list, ",") {
		e, err := find(strings.TrimSpace(name), kind, has)
		if err != nil {
			return nil, fmt.Errorf("--engines: %w", err)
		}
		if e.Reach == catalog.HTTP {
			if es == "" {
				return nil, fmt.Errorf("--engines names %s: give --es URL", e.Name)
			}
			byURL = true
		}
		out = append(out, e.Name)
	}
	if es != "" && !byURL {
		return nil, fmt.Errorf("--es %s, but --engines %s names no engine reached by URL: add one (%s) to --engines, or leave --es out",
			es, list, urlNames(has))
	}
	return out, nil
}

// urlNames lists the engines of a kind reached by URL.
func urlNames(has func(catalog.Engine) bool) string {
	return names(func(e catalog.Engine) bool { return has(e) && e.Reach == catalog.HTTP })
}
