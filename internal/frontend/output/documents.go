package output

import (
	"context"
	"fmt"

	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// DocumentSink receives a command's result document when the command
// ends: what its result file holds (a run, a suite, a comparison, ...).
// The result file is the first; a results store would be another, one
// package plus one entry (WithDocumentSinks, or Sinks' list).
type DocumentSink interface {
	// Document takes the finished document; it is not changed after.
	Document(doc any) error
}

type documentsKey struct{}

// WithDocumentSinks returns ctx carrying sinks besides those it carries
// already: every document published under it reaches each.
func WithDocumentSinks(ctx context.Context, sinks ...DocumentSink) context.Context {
	if len(sinks) == 0 {
		return ctx
	}
	all := append(append([]DocumentSink(nil), documentSinks(ctx)...), sinks...)
	return context.WithValue(ctx, documentsKey{}, all)
}

func documentSinks(ctx context.Context) []DocumentSink {
	s, _ := ctx.Value(documentsKey{}).([]DocumentSink)
	return s
}

// Publish writes doc, a command's result document, to path ("" none, "-"
// standard output) and hands it to every document sink ctx carries.
func Publish(ctx context.Context, o harness.IO, path string, doc any) error {
	if err := WriteDocument(o, path, doc); err != nil {
		return err
	}
	return handDocument(ctx, doc)
}

// handDocument hands doc to the document sinks ctx carries; the first
// error is returned, after every sink had the document.
func handDocument(ctx context.Context, doc any) error {
	var first error
	for _, s := range documentSinks(ctx) {
		if err := s.Document(doc); err != nil && first == nil {
			first = fmt.Errorf("result document sink: %w", err)
		}
	}
	return first
}
