// Package wiki reads and generates Wikipedia abstract dumps
// (<feed><doc><title>Wikipedia: …</title><url/><abstract/><links/></doc>…</feed>),
// streaming, in constant memory.
package wiki

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"strings"

	"github.com/tairbench/tairbench/internal/compressed"
)

// Doc is one abstract. ID is assigned in file order, starting at 1.
type Doc struct {
	ID       int64
	Title    string
	URL      string
	Abstract string
}

// maxDoc bounds one <doc> element, so that a corrupt file cannot exhaust memory.
const maxDoc = 16 << 20

// SyntaxError is malformed input, with its position.
type SyntaxError struct {
	Line   int64
	Offset int64
	Msg    string
}

// Error returns the position and the problem.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d (byte %d): %s", e.Line, e.Offset, e.Msg)
}

// Reader streams documents.
type Reader struct {
	br     *bufio.Reader
	buf    []byte
	offset int64 // bytes consumed
	line   int64 // line of the next unread byte (1-based)
	nextID int64
	done   bool
}

// NewReader reads an uncompressed dump from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), line: 1, nextID: 1}
}

// Open opens a dump file, plain, .gz, .bz2 or .zst (by content, not name).
func Open(path string) (*Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("wiki: %w", err)
	}
	r, _, done, err := compressed.Reader(f, 1<<20)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("wiki: %s: %w", path, err)
	}
	return NewReader(r), closer{f, done}, nil
}

// closer closes a file and releases its decoder.
type closer struct {
	f    *os.File
	done func()
}

func (c closer) Close() error {
	c.done()
	return c.f.Close()
}

func (r *Reader) fail(line, off int64, format string, a ...any) error {
	return &SyntaxError{Line: line, Offset: off, Msg: fmt.Sprintf(format, a...)}
}

// readUntil appends input to r.buf until it ends with delim, keeping count
// of lines and bytes. It returns io.EOF if the input ends first.
func (r *Reader) readUntil(delim []byte) error {
	last := delim[len(delim)-1]
	for {
		chunk, err := r.br.ReadSlice(last)
		r.buf = append(r.buf, chunk...)
		r.offset += int64(len(chunk))
		r.line += int64(bytes.Count(chunk, []byte{'\n'}))
		if len(r.buf) > maxDoc {
			return errors.New("element larger than 16 MiB")
		}
		switch {
		case err == nil:
			if bytes.HasSuffix(r.buf, delim) {
				return nil
			}
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return err
		}
	}
}

var (
	openDoc  = []byte("<doc>")
	closeDoc = []byte("</doc>")
)

// Next reads the next document into d. It returns io.EOF after the last one.
func (r *Reader) Next(d *Doc) error {
	if r.done {
		return io.EOF
	}
	// Skip to <doc>, allowing only the prolog, <feed>, </feed> and blanks.
	r.buf = r.buf[:0]
	line, off := r.line, r.offset
	err := r.readUntil(openDoc)
	if err != nil {
		if errors.Is(err, io.EOF) {
			rest := strings.TrimSpace(string(r.buf))
			rest = strings.TrimSpace(strings.TrimSuffix(rest, "</feed>"))
			if rest != "" && rest != "<feed>" && !strings.HasPrefix(rest, "<?xml") {
				return r.fail(line, off, "unexpected content %q", clip(rest))
			}
			r.done = true
			return io.EOF
		}
		return r.fail(line, off, "%v", err)
	}
	between := bytes.TrimSpace(r.buf[:len(r.buf)-len(openDoc)])
	between = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(between), []byte("<feed>")))
	if len(between) > 0 && !bytes.HasPrefix(between, []byte("<?xml")) {
		return r.fail(line, off, "unexpected content %q before <doc>", clip(string(between)))
	}
	docLine, docOff := r.line, r.offset-int64(len(openDoc))
	r.buf = r.buf[:0]
	if err := r.readUntil(closeDoc); err != nil {
		if errors.Is(err, io.EOF) {
			return r.fail(docLine, docOff, "truncated input: <doc> has no </doc>")
		}
		return r.fail(docLine, docOff, "%v", err)
	}
	body := r.buf[:len(r.buf)-len(closeDoc)]
	title, ok, err := element(body, "title")
	if err != nil || !ok {
		if err == nil {
			err = errors.New("no <title>")
		}
		return r.fail(docLine, docOff, "<doc>: %v", err)
	}
	url, _, err := element(body, "url")
	if err != nil {
		return r.fail(docLine, docOff, "<doc>: %v", err)
	}
	abstract, _, err := element(body, "abstract")
	if err != nil {
		return r.fail(docLine, docOff, "<doc>: %v", err)
	}
	d.ID = r.nextID
	r.nextID++
	d.Title = strings.TrimPrefix(title, "Wikipedia: ")
	d.URL = url
	d.Abstract = abstract
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// element returns the unescaped text of the first <name>…</name> (or "" for
// <name/> and <name attr=""/>); ok is false when the element is absent.
func element(body []byte, name string) (string, bool, error) {
	open := []byte("<" + name)
	i := bytes.Index(body, open)
	for i >= 0 {
		next := body[i+len(open):]
		if len(next) > 0 && (next[0] == '>' || next[0] == ' ' || next[0] == '/' || next[0] == '\t') {
			break
		}
		j := bytes.Index(next, open)
		if j < 0 {
			i = -1
			break
		}
		i += len(open) + j
	}
	if i < 0 {
		return "", false, nil
	}
	rest := body[i+len(open):]
	end := bytes.IndexByte(rest, '>')
	if end < 0 {
		return "", false, fmt.Errorf("unterminated <%s> tag", name)
	}
	if end > 0 && rest[end-1] == '/' {
		return "", true, nil // self-closing
	}
	content := rest[end+1:]
	close := bytes.Index(content, []byte("</"+name+">"))
	if close < 0 {
		return "", false, fmt.Errorf("<%s> has no </%s>", name, name)
	}
	text := content[:close]
	if bytes.IndexByte(text, '&') < 0 {
		return string(text), true, nil
	}
	return html.UnescapeString(string(text)), true, nil
}
