package track

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/compressed"
	"github.com/tairbench/tairbench/internal/wiki"
)

// Doc is one corpus document: its id, its JSON as written (without the
// id field when that is "_id") and its fields, object fields by dotted name.
type Doc struct {
	ID     string
	JSON   []byte
	Fields map[string]any
	// Line is the document's line (or place) in the corpus, from 1.
	Line int64
}

// LineError is a corpus line that is not a JSON object.
type LineError struct {
	File string
	Line int64
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("corpus %s line %d: not a JSON object: %v", e.File, e.Line, e.Err)
}

// Reader streams a corpus in constant memory.
type Reader struct {
	next  func(*Doc) error
	close func() error
}

// Next reads the next document; io.EOF after the last. A *LineError is
// one bad line: the reader goes on with the next.
func (r *Reader) Next(d *Doc) error { return r.next(d) }

// Close releases the corpus file.
func (r *Reader) Close() error {
	if r.close == nil {
		return nil
	}
	return r.close()
}

// Open opens the track's corpus from its start.
func (t *Track) Open() (*Reader, error) {
	c := t.Corpus
	switch {
	case c.File != "":
		return openLines(t.Path(c.File), c.IDField, c.Docs)
	case c.WikiFile != "":
		r, cl, err := wiki.Open(t.Path(c.WikiFile))
		if err != nil {
			return nil, err
		}
		return wikiReader(r, cl.Close, c.Docs), nil
	case c.Generator == "wiki":
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(wiki.Generate(pw, wiki.GenOptions{Docs: c.Docs, Seed: c.Seed})) }()
		return wikiReader(wiki.NewReader(pr), pr.Close, c.Docs), nil
	case c.Generator == "products-zh":
		g, err := NewProducts(c.Seed)
		if err != nil {
			return nil, err
		}
		var n int64
		return &Reader{next: func(d *Doc) error {
			if n >= c.Docs {
				return io.EOF
			}
			n++
			g.Next(d, n)
			return nil
		}}, nil
	}
	return nil, errors.New("the corpus needs file, wiki_file or generator")
}

func wikiReader(r *wiki.Reader, closer func() error, limit int64) *Reader {
	var n int64
	return &Reader{close: closer, next: func(d *Doc) error {
		if limit > 0 && n >= limit {
			return io.EOF
		}
		var w wiki.Doc
		if err := r.Next(&w); err != nil {
			return err
		}
		n++
		id := strconv.FormatInt(w.ID, 10)
		d.ID, d.Line = id, n
		d.Fields = map[string]any{"id": id, "url": w.URL, "title": w.Title, "abstract": w.Abstract}
		d.JSON, _ = json.Marshal(d.Fields)
		return nil
	}}
}

// MaxLine bounds one document (one corpus line) and one parameter
// file's line, so a file without newlines cannot exhaust memory.
const MaxLine = 64 << 20

// scanErr names a scanner's error at path after line: a line over
// MaxLine says so, with the cap.
func scanErr(what, path string, line int64, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%s %s line %d: longer than %d MiB, the cap on one line", what, path, line+1, MaxLine>>20)
	}
	return fmt.Errorf("%s %s after line %d: %w", what, path, line, err)
}

func openLines(path, idField string, limit int64) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	r, _, done, err := compressed.Reader(f, 1<<16)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	if idField == "" {
		idField = "_id"
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), MaxLine)
	var line, docs int64
	next := func(d *Doc) error {
		for {
			if limit > 0 && docs >= limit {
				return io.EOF
			}
			if !sc.Scan() {
				if err := sc.Err(); err != nil {
					return scanErr("corpus", path, line, err)
				}
				return io.EOF
			}
			line++
			b := sc.Bytes()
			if len(strings.TrimSpace(string(b))) == 0 {
				continue
			}
			docs++
			return parseLine(path, line, b, idField, d)
		}
	}
	return &Reader{next: next, close: func() error { done(); return f.Close() }}, nil
}

// parseLine reads one JSON-lines document.
func parseLine(path string, line int64, b []byte, idField string, d *Doc) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return &LineError{File: path, Line: line, Err: err}
	}
	d.Line, d.ID = line, strconv.FormatInt(line, 10)
	if v, ok := m[idField]; ok {
		switch x := v.(type) {
		case string:
			d.ID = x
		case float64:
			d.ID = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return &LineError{File: path, Line: line, Err: fmt.Errorf("%s is %T, not a string or number", idField, v)}
		}
	}
	if idField == "_id" {
		delete(m, "_id")
		d.JSON, _ = json.Marshal(m)
	} else {
		d.JSON = append([]byte(nil), b...)
	}
	d.Fields = map[string]any{}
	flatten("", m, d.Fields)
	return nil
}

func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		if o, ok := v.(map[string]any); ok {
			flatten(prefix+k+".", o, out)
			continue
		}
		out[prefix+k] = v
	}
}
