// Package catalog is the descriptor every search and vector engine driver
// exports: its name, how its server is reached and its constructors. The
// front-ends choose engines from one list of these (frontend/engines) and
// spell no engine's name.
package catalog

import (
	"context"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/vectors"
)

// Reach is how an engine's server is reached.
type Reach int

const (
	// RESP is a Tair instance, or tairbench's embedded server, at the
	// command's RESP target.
	RESP Reach = iota
	// HTTP is a server at a URL of its own (Elasticsearch's --es).
	HTTP
)

// Engine describes one engine.
type Engine struct {
	// Name is how a user names it ("tairsearch"); Product how outputs do
	// ("TairSearch").
	Name, Product string
	Reach         Reach
	// Search makes its full-text driver; nil when it has none.
	Search func(fts.Options) (fts.Engine, error)
	// Vectors makes its vector driver (Options' Target, Index and
	// Connections); nil when it has none.
	Vectors func(context.Context, fts.Options) (vectors.Engine, error)
	// VectorParam names the search parameter its vector driver sweeps
	// (the driver's Param).
	VectorParam string
}

// Identity is who an engine's server said it is.
type Identity struct {
	// Name is the product ("elasticsearch"); Version its version number;
	// Build its build (a short hash).
	Name, Version, Build string
}

// Identifier is an engine reached by URL that can ask its server who it
// is before a run (engines at a RESP target are asked through it).
type Identifier interface {
	Identify(ctx context.Context) (Identity, error)
}
