// Package workload is tairbench's workload file: weighted command
// templates with their key ranges and value sizes, at a rate, on a number
// of connections, as `tairbench fit` writes it from a trace and a person
// reads, edits and runs (`tairbench redis --workload`). What the fit
// found (key patterns, popularity, sizes, TTLs, traffic) is kept beside
// the templates, for reading. A file with a field this version does not
// know is refused.
package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// Version is the workload file format this tairbench reads and writes.
const Version = "tairbench.workload/v1"

// Workload is a workload file.
type Workload struct {
	Format string `yaml:"format"`
	// Source says where the workload came from (a fit's trace).
	Source string `yaml:"source,omitempty"`
	// Rate is the commands per second the workload runs at (its trace's
	// mean); Connections how many connections send them.
	Rate        float64 `yaml:"rate"`
	Connections int     `yaml:"connections"`
	// Operations are the weighted command templates.
	Operations []Operation `yaml:"operations"`
	// Fitted is what the fit found, for reading; runs ignore it.
	Fitted *Notes `yaml:"fitted,omitempty"`
}

// Notes are a part of the file kept as it is, whatever it holds.
type Notes struct{ Node yaml.Node }

// NotesOf encodes v as notes.
func NotesOf(v any) (*Notes, error) {
	n := &Notes{}
	return n, n.Node.Encode(v)
}

// UnmarshalYAML implements yaml.Unmarshaler: the notes are kept as
// they are.
func (n *Notes) UnmarshalYAML(value *yaml.Node) error {
	n.Node = *value
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (n *Notes) MarshalYAML() (any, error) { return &n.Node, nil }

// Operation is one weighted command template.
type Operation struct {
	Name string `yaml:"name"`
	// Command is the template (cmdtmpl syntax: __RANDn__, __DATA__).
	Command string `yaml:"command"`
	// Weight is its share of the commands (a count: the trace's).
	Weight int64 `yaml:"weight"`
	// Ranges are the __RANDn__ ranges the command draws from, by n.
	Ranges map[int]Range `yaml:"ranges,omitempty"`
	// DataSize is the size of its __DATA__ values in bytes; with DataMax
	// above it, sizes are drawn uniformly from DataSize to DataMax.
	DataSize int `yaml:"data_size,omitempty"`
	DataMax  int `yaml:"data_max,omitempty"`
}

// Range is one __RANDn__ range: Size values from Offset, drawn by Dist
// (uniform, zipf with Theta below 1, power with Theta above 1, seq).
type Range struct {
	Size   uint64  `yaml:"size"`
	Dist   string  `yaml:"dist,omitempty"`
	Theta  float64 `yaml:"theta,omitempty"`
	Offset uint64  `yaml:"offset,omitempty"`
}

// Options are the operation's template options: its ranges and data size.
func (o Operation) Options() (cmdtmpl.Options, error) {
	var opts cmdtmpl.Options
	opts.DataSize, opts.DataMax = o.DataSize, o.DataMax
	for n, r := range o.Ranges {
		if n < 1 || n > cmdtmpl.MaxRanges {
			return opts, fmt.Errorf("operation %q: range %d: want 1 to %d", o.Name, n, cmdtmpl.MaxRanges)
		}
		spec := strconv.FormatUint(r.Size, 10)
		if r.Dist != "" {
			spec += ":" + r.Dist
		}
		if r.Theta != 0 {
			spec += ":" + strconv.FormatFloat(r.Theta, 'g', -1, 64)
		}
		cr, err := cmdtmpl.ParseRange(spec)
		if err != nil {
			return opts, fmt.Errorf("operation %q: range %d: %w", o.Name, n, err)
		}
		cr.Offset = r.Offset
		opts.Ranges[n] = cr
	}
	return opts, nil
}

// Read reads a workload file, refusing unknown fields and a format this
// version does not read.
func Read(r io.Reader) (*Workload, error) {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	var w Workload
	if err := dec.Decode(&w); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the workload file is empty")
		}
		return nil, err
	}
	return &w, w.Check()
}

// Check refuses a workload that cannot run.
func (w *Workload) Check() error {
	switch {
	case w.Format != Version:
		return fmt.Errorf("format %q: this tairbench reads %q", w.Format, Version)
	case len(w.Operations) == 0:
		return errors.New("no operations")
	case w.Rate < 0:
		return errors.New("rate must not be negative")
	case w.Connections < 0:
		return errors.New("connections must not be negative")
	}
	var total int64
	for _, o := range w.Operations {
		if o.Weight < 0 {
			return fmt.Errorf("operation %q: weight must not be negative", o.Name)
		}
		if o.DataSize < 0 || o.DataMax < 0 {
			return fmt.Errorf("operation %q: data_size and data_max must not be negative", o.Name)
		}
		if _, err := cmdtmpl.Parse(o.Command); err != nil {
			return fmt.Errorf("operation %q: %w", o.Name, err)
		}
		if _, err := o.Options(); err != nil {
			return err
		}
		total += o.Weight
	}
	if total == 0 {
		return errors.New("the operations' weights add up to 0")
	}
	return nil
}

// Write writes the workload as YAML, after a comment header.
func (w *Workload) Write(out io.Writer, header string) error {
	var b bytes.Buffer
	for _, line := range bytes.Split([]byte(header), []byte("\n")) {
		if len(line) > 0 {
			fmt.Fprintf(&b, "# %s\n", line)
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(w); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}
