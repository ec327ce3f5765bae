// Package track reads search tracks: a corpus, an index definition per
// engine and a schedule of ingest and query tasks whose queries are
// templates filled from parameter sources (terms of the corpus by
// frequency band, numeric ranges, document ids, a file). It runs nothing:
// frontend/track runs a track on the search drivers.
package track

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Track is a track file.
type Track struct {
	// Name and Description say what the track measures.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Corpus      Corpus `json:"corpus"`
	Index       Index  `json:"index"`
	// Params are the parameter sources templates name as {{name}}.
	Params map[string]Param `json:"params,omitempty"`
	Tasks  []Task           `json:"tasks"`
	// Relevance, when set, judges the engines' answers against labels
	// after the schedule.
	Relevance *Relevance `json:"relevance,omitempty"`
	// dir is the track file's folder: relative paths are read from it.
	dir string
}

// Corpus is where the documents come from: a JSON-lines file (plain, .gz,
// .bz2 or .zst) or a generator ("products-zh", "wiki").
type Corpus struct {
	File      string `json:"file,omitempty"`
	Generator string `json:"generator,omitempty"`
	// WikiFile is a Wikipedia abstract dump (the whitepaper's corpus).
	WikiFile string `json:"wiki_file,omitempty"`
	// Docs is the number of documents to generate, or at most to read (0: all).
	Docs int64  `json:"docs,omitempty"`
	Seed uint64 `json:"seed,omitempty"`
	// IDField holds a document's id (default "_id"; documents without one
	// get their line number).
	IDField string `json:"id_field,omitempty"`
}

// Index is the index each engine creates.
type Index struct {
	Name string `json:"name"`
	// TairSearch is the TFT.CREATEINDEX body.
	TairSearch json.RawMessage `json:"tairsearch"`
	// Elasticsearch is the index body; without it tairbench proposes one
	// from TairSearch's (ProposeElasticsearch).
	Elasticsearch json.RawMessage `json:"elasticsearch,omitempty"`
}

// Param is one parameter source.
type Param struct {
	// Kind is "terms" (terms of Field's analysed text, from Band), "values"
	// (the field's observed values, or Values), "range" (a numeric range
	// within the field's observed range, as {{name.from}} and {{name.to}},
	// Width its share of the range), "ids" (ids of written documents) or
	// "file" (one value per line of File).
	Kind   string  `json:"kind"`
	Field  string  `json:"field,omitempty"`
	Band   string  `json:"band,omitempty"`
	Width  float64 `json:"width,omitempty"`
	File   string  `json:"file,omitempty"`
	Values []any   `json:"values,omitempty"`
}

// Task is one step of the schedule: an ingest, a query mix, or both at
// once (ingest while querying).
type Task struct {
	Name string `json:"name"`
	// Clients are the query clients (or the ingest clients of an ingest task).
	Clients int `json:"clients,omitempty"`
	// Warmup runs first and is not measured; Duration bounds the measured
	// part, Iterations counts its queries (one of them for query tasks).
	Warmup     Duration `json:"warmup,omitempty"`
	Duration   Duration `json:"duration,omitempty"`
	Iterations int64    `json:"iterations,omitempty"`
	// Rate is the target throughput in requests per second (open loop,
	// latency also from the intended start); 0 runs closed loop.
	Rate    float64 `json:"rate,omitempty"`
	Ingest  *Ingest `json:"ingest,omitempty"`
	Queries []Query `json:"queries,omitempty"`
	Cache   bool    `json:"cache,omitempty"`
}

// Ingest writes the corpus's next documents.
type Ingest struct {
	// Bulk is documents per request (1: single-document writes).
	Bulk int `json:"bulk,omitempty"`
	// Docs is how many (0: the rest of the corpus).
	Docs int64 `json:"docs,omitempty"`
	// Clients are the writers of a mixed task (default 1).
	Clients int `json:"clients,omitempty"`
}

// Query is one weighted query template.
type Query struct {
	Name   string          `json:"name"`
	Weight int             `json:"weight,omitempty"`
	Body   json.RawMessage `json:"body"`
}

// Kind is "ingest", "query" or "mixed".
func (t Task) Kind() string {
	switch {
	case t.Ingest != nil && len(t.Queries) > 0:
		return "mixed"
	case t.Ingest != nil:
		return "ingest"
	}
	return "query"
}

// Duration is a time.Duration read from "10s" in JSON.
type Duration time.Duration

// UnmarshalJSON reads "10s" or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var secs float64
		if err := json.Unmarshal(b, &secs); err != nil {
			return fmt.Errorf("a duration is \"10s\" or a number of seconds, not %s", b)
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes "10s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

//go:embed tracks/*.json
var builtin embed.FS

// Builtin lists the built-in tracks' names.
func Builtin() []string {
	ents, _ := builtin.ReadDir("tracks")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(out)
	return out
}

// Load reads a track: a built-in one by name, or a file.
func Load(nameOrPath string) (*Track, error) {
	var raw []byte
	dir := "."
	if b, err := builtin.ReadFile("tracks/" + nameOrPath + ".json"); err == nil {
		raw = b
	} else {
		b, err := readCapped(nameOrPath, MaxTrackFile)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("track %q: no such file, and not a built-in track (%s)", nameOrPath, strings.Join(Builtin(), ", "))
			}
			return nil, fmt.Errorf("track: %w", err)
		}
		raw, dir = b, filepath.Dir(nameOrPath)
		if ext := strings.ToLower(filepath.Ext(nameOrPath)); ext == ".yaml" || ext == ".yml" {
			if raw, err = yamlToJSON(b); err != nil {
				return nil, fmt.Errorf("track %s: %w", nameOrPath, err)
			}
		}
	}
	t, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("track %s: %w", nameOrPath, err)
	}
	t.dir = dir
	return t, nil
}

// MaxTrackFile bounds a track file: its documents belong in its corpus,
// which is read a line at a time.
const MaxTrackFile = 16 << 20

// readCapped reads path whole, refusing a file of more than limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MiB, the cap on a track file (documents belong in its corpus)", path, limit>>20)
	}
	return b, nil
}

// yamlToJSON reads a YAML track as the JSON it stands for (a placeholder
// must be quoted in YAML: "{{term}}", or it reads as a mapping).
func yamlToJSON(b []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("YAML that is not JSON data (a mapping with non-string keys?): %w", err)
	}
	return out, nil
}

// Parse reads a track file's JSON and checks it.
func Parse(raw []byte) (*Track, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var t Track
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not a track file: %w", err)
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Path resolves a path of the track file against its folder.
func (t *Track) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || t.dir == "" {
		return p
	}
	return filepath.Join(t.dir, p)
}
