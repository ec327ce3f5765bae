// Package monitor reads what Redis's MONITOR prints, as redis-cli monitor
// writes it or memtier's --monitor-input takes it: one command a line,
//
//	1339518083.107412 [0 127.0.0.1:60866] "set" "key" "va\"lue"
//
// (seconds since the epoch, the database and the client, then the
// arguments quoted as Redis's sdscatrepr quotes them), with an optional
// '+' before the time (the raw reply) or a "[ name ]" before it (a
// proxy's prefix, as memtier's tests write). redis-cli's first line,
// "OK", is passed over.
package monitor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Command is one parsed line; Args point into the parser's buffers and
// are valid until the next Next.
type Command struct {
	Time time.Time
	DB   uint32
	// Client is the client's address as MONITOR named it ("127.0.0.1:60866",
	// "lua", "unix:/tmp/redis.sock").
	Client []byte
	Args   [][]byte
}

// LineError is a line that does not parse.
type LineError struct {
	Line int64
	Why  string
}

func (e *LineError) Error() string { return fmt.Sprintf("MONITOR line %d: %s", e.Line, e.Why) }

// Parser reads MONITOR lines.
type Parser struct {
	r    *bufio.Reader
	line int64
	args [][]byte
	data []byte
	ends []int
}

// NewParser reads MONITOR text from r.
func NewParser(r io.Reader) *Parser { return &Parser{r: bufio.NewReaderSize(r, 256<<10)} }

// Line is the number of the last line read.
func (p *Parser) Line() int64 { return p.line }

// Next parses the next command line into c; a *LineError for a line that
// does not parse (the parser goes on with the next line if called again),
// io.EOF after the last.
func (p *Parser) Next(c *Command) error {
	for {
		line, err := p.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			whole := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = p.r.ReadSlice('\n')
				whole = append(whole, line...)
			}
			line = whole
		}
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return fmt.Errorf("MONITOR input: %w", err)
		}
		p.line++
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 || string(line) == "OK" {
			continue
		}
		return p.parse(line, c)
	}
}

// parse reads one non-empty line.
func (p *Parser) parse(line []byte, c *Command) error {
	rest := line
	if rest[0] == '[' { // a proxy's "[ name ] " before the time
		end := bytes.IndexByte(rest, ']')
		if end < 0 {
			return p.fail("an unclosed [ before the time")
		}
		rest = bytes.TrimLeft(rest[end+1:], " ")
	}
	rest = bytes.TrimPrefix(rest, []byte("+"))
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return p.fail("no time, [db client] and command")
	}
	t, err := parseTime(rest[:sp])
	if err != nil {
		return p.fail(err.Error())
	}
	rest = rest[sp+1:]
	if len(rest) == 0 || rest[0] != '[' {
		return p.fail("no [db client] after the time")
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return p.fail("an unclosed [db client]")
	}
	dbText, client, ok := bytes.Cut(rest[1:end], []byte(" "))
	db, err := strconv.ParseUint(string(dbText), 10, 32)
	if !ok || err != nil {
		return p.fail(fmt.Sprintf("[%s] is not [db client]", rest[1:end]))
	}
	if err := p.quoted(rest[end+1:]); err != nil {
		return err
	}
	*c = Command{Time: t, DB: uint32(db), Client: client, Args: p.args}
	return nil
}

// parseTime reads "1339518083.107412".
func parseTime(b []byte) (time.Time, error) {
	secText, usecText, ok := bytes.Cut(b, []byte("."))
	sec, err1 := strconv.ParseInt(string(secText), 10, 64)
	usec, err2 := strconv.ParseInt(string(usecText), 10, 64)
	if !ok || err1 != nil || err2 != nil || len(usecText) != 6 || sec < 0 {
		return time.Time{}, fmt.Errorf("%q is not a time (seconds.microseconds)", b)
	}
	return time.Unix(sec, usec*1000), nil
}

// quoted reads the arguments: each in double quotes, escaped as Redis's
// sdscatrepr escapes (\\ \" \n \r \t \a \b \xHH), separated by spaces.
func (p *Parser) quoted(b []byte) error {
	p.data, p.ends, p.args = p.data[:0], p.ends[:0], p.args[:0]
	for {
		b = bytes.TrimLeft(b, " ")
		if len(b) == 0 {
			break
		}
		if b[0] != '"' {
			return p.fail(fmt.Sprintf("argument %d does not start with a quote", len(p.ends)+1))
		}
		i := 1
		for ; i < len(b) && b[i] != '"'; i++ {
			if b[i] != '\\' {
				p.data = append(p.data, b[i])
				continue
			}
			if i+1 >= len(b) {
				return p.fail("a line that ends inside an escape")
			}
			i++
			switch e := b[i]; e {
			case 'n':
				p.data = append(p.data, '\n')
			case 'r':
				p.data = append(p.data, '\r')
			case 't':
				p.data = append(p.data, '\t')
			case 'a':
				p.data = append(p.data, '\a')
			case 'b':
				p.data = append(p.data, '\b')
			case 'x':
				if i+2 >= len(b) {
					return p.fail("a \\x escape cut short")
				}
				v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
				if err != nil {
					return p.fail(fmt.Sprintf("\\x%s is not a hex byte", b[i+1:i+3]))
				}
				p.data = append(p.data, byte(v))
				i += 2
			default: // \\ and \" stand for themselves
				p.data = append(p.data, e)
			}
		}
		if i >= len(b) {
			return p.fail(fmt.Sprintf("argument %d has no closing quote", len(p.ends)+1))
		}
		p.ends = append(p.ends, len(p.data))
		b = b[i+1:]
		if len(b) > 0 && b[0] != ' ' {
			return p.fail(fmt.Sprintf("argument %d runs on after its closing quote", len(p.ends)))
		}
	}
	if len(p.ends) == 0 {
		return p.fail("no command after [db client]")
	}
	start := 0
	for _, e := range p.ends {
		p.args = append(p.args, p.data[start:e:e])
		start = e
	}
	return nil
}

func (p *Parser) fail(why string) error { return &LineError{Line: p.line, Why: why} }
