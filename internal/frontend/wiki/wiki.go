// Package wiki is 'tairbench wiki': generate a Wikipedia abstract dump of
// any size, or count the documents of one (checking that it parses).
package wiki

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/wiki"
)

// GenOptions are 'wiki gen': how many documents, the file, the seed.
type GenOptions struct {
	Docs int64
	Out  string
	Seed uint64
}

// Gen writes the dump and says its size.
func Gen(o GenOptions, hio harness.IO) error {
	if o.Docs < 1 || o.Out == "" {
		return errors.New("need --docs N (at least 1) and --out FILE")
	}
	f, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	if err := wiki.Generate(f, wiki.GenOptions{Docs: o.Docs, Seed: o.Seed}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(o.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(hio.Err, "wrote %d documents (%s) to %s\n", o.Docs, report.MiB(st.Size()), o.Out)
	return nil
}

// Count reads the dump at path and prints its document count.
func Count(path string, hio harness.IO) error {
	r, closer, err := wiki.Open(path)
	if err != nil {
		return err
	}
	defer closer.Close()
	var d wiki.Doc
	n := int64(0)
	for {
		if err := r.Next(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		n++
	}
	fmt.Fprintf(hio.Out, "%d documents\n", n)
	return nil
}
