package track

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/fulltext"
)

var generators = []string{"products-zh", "wiki"}

var bands = map[string]bool{"head": true, "torso": true, "tail": true}

// validate checks everything that can be checked before the corpus is read.
func (t *Track) validate() error {
	if t.Name == "" {
		return fmt.Errorf("name is required")
	}
	c := t.Corpus
	n := 0
	for _, s := range []string{c.File, c.WikiFile, c.Generator} {
		if s != "" {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf("corpus: give exactly one of file, wiki_file and generator")
	case c.Generator != "" && !slices.Contains(generators, c.Generator):
		return fmt.Errorf("corpus: unknown generator %q (%s)", c.Generator, strings.Join(generators, ", "))
	case c.Generator != "" && c.Docs <= 0:
		return fmt.Errorf("corpus: generator %s needs docs", c.Generator)
	case c.Docs < 0:
		return fmt.Errorf("corpus: docs must not be negative")
	}
	if t.Index.Name == "" {
		return fmt.Errorf("index: name is required")
	}
	m, err := fulltext.ParseMapping(t.Index.TairSearch)
	if err != nil {
		return fmt.Errorf("index: tairsearch mapping: %w", err)
	}
	if len(t.Index.Elasticsearch) > 0 && !json.Valid(t.Index.Elasticsearch) {
		return fmt.Errorf("index: elasticsearch body is not JSON")
	}
	for name, p := range t.Params {
		if err := p.check(name, m); err != nil {
			return err
		}
	}
	if len(t.Tasks) == 0 {
		return fmt.Errorf("tasks: the schedule is empty")
	}
	if t.Relevance != nil {
		if err := t.Relevance.check(m); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i := range t.Tasks {
		if err := t.checkTask(&t.Tasks[i], seen); err != nil {
			return err
		}
	}
	return nil
}

func (p Param) check(name string, m *fulltext.Mapping) error {
	field := func(types ...string) (*fulltext.Field, error) {
		f, ok := m.Fields[p.Field]
		if !ok {
			return nil, fmt.Errorf("param %s: field %q is not in the tairsearch mapping", name, p.Field)
		}
		if len(types) > 0 && !slices.Contains(types, f.Type) {
			return nil, fmt.Errorf("param %s: field %s is %s, not %s", name, p.Field, f.Type, strings.Join(types, " or "))
		}
		return f, nil
	}
	switch p.Kind {
	case "terms":
		if !bands[p.Band] {
			return fmt.Errorf("param %s: band must be head, torso or tail, not %q", name, p.Band)
		}
		_, err := field("text", "keyword")
		return err
	case "range":
		if p.Width < 0 || p.Width > 1 {
			return fmt.Errorf("param %s: width is a share of the range, 0 to 1", name)
		}
		_, err := field("long", "integer", "double", "float")
		return err
	case "values":
		if len(p.Values) > 0 {
			return nil
		}
		_, err := field()
		return err
	case "ids":
		return nil
	case "file":
		if p.File == "" {
			return fmt.Errorf("param %s: kind file needs file", name)
		}
		return nil
	}
	return fmt.Errorf("param %s: kind must be terms, range, values, ids or file, not %q", name, p.Kind)
}

func (t *Track) checkTask(k *Task, seen map[string]bool) error {
	if k.Name == "" {
		return fmt.Errorf("tasks: a task has no name")
	}
	if seen[k.Name] {
		return fmt.Errorf("task %s: the name is used twice", k.Name)
	}
	seen[k.Name] = true
	if k.Ingest == nil && len(k.Queries) == 0 {
		return fmt.Errorf("task %s: give ingest, queries or both", k.Name)
	}
	if k.Clients == 0 {
		k.Clients = 1
	}
	if k.Clients < 0 || k.Rate < 0 || k.Iterations < 0 || k.Duration < 0 || k.Warmup < 0 {
		return fmt.Errorf("task %s: clients, rate, iterations, warmup and duration must not be negative", k.Name)
	}
	if in := k.Ingest; in != nil {
		if in.Bulk == 0 {
			in.Bulk = 1
		}
		if in.Clients == 0 {
			in.Clients = 1
		}
		if in.Bulk < 0 || in.Docs < 0 || in.Clients < 0 {
			return fmt.Errorf("task %s: ingest bulk, docs and clients must not be negative", k.Name)
		}
	}
	if len(k.Queries) == 0 {
		return nil
	}
	if k.Duration == 0 && k.Iterations == 0 {
		return fmt.Errorf("task %s: a query task needs duration or iterations", k.Name)
	}
	names := map[string]bool{}
	for i := range k.Queries {
		q := &k.Queries[i]
		if q.Name == "" || names[q.Name] {
			return fmt.Errorf("task %s: query %d needs a name of its own", k.Name, i+1)
		}
		names[q.Name] = true
		if q.Weight == 0 {
			q.Weight = 1
		}
		if q.Weight < 0 {
			return fmt.Errorf("task %s, template %s: weight must be positive", k.Name, q.Name)
		}
		tp, err := Compile(q.Body)
		if err != nil {
			return fmt.Errorf("task %s, template %s: %w", k.Name, q.Name, err)
		}
		for _, ref := range tp.Params() {
			if err := t.checkRef(ref); err != nil {
				return fmt.Errorf("task %s, template %s: %w", k.Name, q.Name, err)
			}
		}
	}
	return nil
}

// checkRef checks a template's {{name}} or {{name.from}}/{{name.to}}.
func (t *Track) checkRef(ref string) error {
	name, sub, _ := strings.Cut(ref, ".")
	p, ok := t.Params[name]
	if !ok {
		known := make([]string, 0, len(t.Params))
		for k := range t.Params {
			known = append(known, k)
		}
		sort.Strings(known)
		return fmt.Errorf("unknown parameter {{%s}} (the track defines %s)", ref, strings.Join(known, ", "))
	}
	switch {
	case p.Kind == "range" && sub != "from" && sub != "to":
		return fmt.Errorf("parameter {{%s}}: a range is used as {{%s.from}} and {{%s.to}}", ref, name, name)
	case p.Kind != "range" && sub != "":
		return fmt.Errorf("parameter {{%s}}: only a range has .from and .to", ref)
	}
	return nil
}
