package output

import (
	"context"
	"fmt"
	"io"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/pkg/result"
)

// storeSink keeps each result document in a results store: it opens the
// store for each document, writes it in one transaction, and says so.
type storeSink struct {
	ctx  context.Context
	path string
	tags map[string]string
	log  io.Writer
}

// openStore checks the store and the tags before anything runs: a store
// that cannot be opened, of a newer schema, or a tag that is not k=v
// stops the command before it sends.
func openStore(ctx context.Context, io harness.IO, s Sinks) (*storeSink, error) {
	tags, err := store.ParseTags(s.Tags)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, s.Store)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return &storeSink{ctx: context.WithoutCancel(ctx), path: s.Store, tags: tags, log: io.Err}, nil
}

// Document stores doc.
func (s *storeSink) Document(doc any) error {
	d, ok := doc.(result.Document)
	if !ok {
		return fmt.Errorf("store: %T is not a result document", doc)
	}
	st, err := store.Open(s.ctx, s.path)
	if err != nil {
		return err
	}
	stored, err := st.Put(s.ctx, d, s.tags)
	name := st.Name()
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.log, "stored as %s in %s\n", stored, name)
	return nil
}
