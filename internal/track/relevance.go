package track

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/internal/relevance"
)

// Relevance is how a track judges the engines' answers: a query template
// whose {{query}} is each query's text, and the labels (known items made
// from the corpus, the user's TREC qrels and queries, or queries judged in
// the track itself).
type Relevance struct {
	// Template is a query body with the placeholder {{query}}; its size
	// should be at least K. Templates names several, each judged apart
	// (Template alone is named "query").
	Template  json.RawMessage            `json:"template,omitempty"`
	Templates map[string]json.RawMessage `json:"templates,omitempty"`
	// KnownItems makes the labels from the corpus.
	KnownItems *KnownItems `json:"known_items,omitempty"`
	// Qrels (TREC qrels) and Queries (ID<TAB>TEXT lines or BEIR JSON
	// lines) are the user's labels, paths relative to the track.
	Qrels   string `json:"qrels,omitempty"`
	Queries string `json:"queries,omitempty"`
	// Labels are queries judged in the track itself.
	Labels []Labelled `json:"labels,omitempty"`
	// K is recall's cut-off (default 10).
	K int `json:"k,omitempty"`
}

// KnownItems are labels made from the corpus: a document's Field (its
// title) is a query whose one relevant answer is that document.
type KnownItems struct {
	Field string `json:"field"`
	// Queries is how many documents, spread evenly over the corpus
	// (default 100).
	Queries int `json:"queries,omitempty"`
}

// Labelled is a query judged in the track: its text and its relevant
// documents, a list of ids (each of grade 1) or ids with their grades
// ({"12": 2, "57": 1}); ID names it (default: its place, q1, q2, …).
type Labelled struct {
	ID       string          `json:"id,omitempty"`
	Query    string          `json:"query"`
	Relevant json.RawMessage `json:"relevant"`
}

// judgments reads Relevant: ids, or ids with grades (0 or more).
func (l Labelled) judgments() (relevance.Labels, error) {
	var ids []string
	if err := json.Unmarshal(l.Relevant, &ids); err == nil {
		out := relevance.Labels{}
		for _, id := range ids {
			out[id] = 1
		}
		return out, nil
	}
	var graded map[string]int
	if err := json.Unmarshal(l.Relevant, &graded); err != nil {
		return nil, errors.New(`relevant must be a list of ids or ids with grades ({"12": 2})`)
	}
	for id, g := range graded {
		if g < 0 {
			return nil, fmt.Errorf("relevant %s: grade %d below 0", id, g)
		}
	}
	return graded, nil
}

// Count is how many known items to make (Queries, or 100).
func (k KnownItems) Count() int {
	if k.Queries == 0 {
		return 100
	}
	return k.Queries
}

// placeholder is the template's one placeholder.
const placeholder = "{{query}}"

// NamedTemplate is one relevance query.
type NamedTemplate struct {
	Name string
	Body json.RawMessage
}

// Bodies are the relevance templates by name, in name order.
func (r *Relevance) Bodies() []NamedTemplate {
	if len(r.Template) > 0 {
		return []NamedTemplate{{Name: "query", Body: r.Template}}
	}
	names := make([]string, 0, len(r.Templates))
	for n := range r.Templates {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]NamedTemplate, len(names))
	for i, n := range names {
		out[i] = NamedTemplate{Name: n, Body: r.Templates[n]}
	}
	return out
}

// check refuses a relevance section that cannot run.
func (r *Relevance) check(m *fulltext.Mapping) error {
	if (len(r.Template) > 0) == (len(r.Templates) > 0) {
		return errors.New("relevance: give template, or templates by name")
	}
	for _, q := range r.Bodies() {
		switch {
		case !json.Valid(q.Body):
			return fmt.Errorf("relevance: template %s is not JSON", q.Name)
		case !bytes.Contains(q.Body, []byte(placeholder)):
			return fmt.Errorf("relevance: template %s has no %s", q.Name, placeholder)
		case bytes.Count(q.Body, []byte("{{")) != bytes.Count(q.Body, []byte(placeholder)):
			return fmt.Errorf("relevance: template %s may hold only %s", q.Name, placeholder)
		}
	}
	switch {
	case r.K < 0:
		return errors.New("relevance: k must be 1 or more")
	case sources(r) != 1:
		return errors.New("relevance: give one of known_items, qrels and queries, or labels")
	case (r.Qrels == "") != (r.Queries == ""):
		return errors.New("relevance: qrels and queries go together")
	}
	if _, _, err := r.inline(); err != nil {
		return err
	}
	if k := r.KnownItems; k != nil {
		f, ok := m.Fields[k.Field]
		switch {
		case !ok:
			return fmt.Errorf("relevance: known_items field %q is not in the tairsearch mapping", k.Field)
		case f.Type != "text" && f.Type != "keyword":
			return fmt.Errorf("relevance: known_items field %s is %s, not text or keyword", k.Field, f.Type)
		case k.Queries < 0:
			return errors.New("relevance: known_items queries must be 1 or more")
		}
	}
	return nil
}

// sources counts the kinds of labels given.
func sources(r *Relevance) int {
	n := 0
	for _, given := range []bool{r.KnownItems != nil, r.Qrels != "" || r.Queries != "", len(r.Labels) > 0} {
		if given {
			n++
		}
	}
	return n
}

// inline is the track's own labels as queries and judgments; an entry
// without a query or with a bad relevant is refused, naming it.
func (r *Relevance) inline() ([]relevance.Query, map[string]relevance.Labels, error) {
	var qs []relevance.Query
	labels := map[string]relevance.Labels{}
	seen := map[string]bool{}
	for i, l := range r.Labels {
		id := cmp.Or(l.ID, fmt.Sprintf("q%d", i+1))
		switch {
		case strings.TrimSpace(l.Query) == "":
			return nil, nil, fmt.Errorf("relevance: labels[%d] has no query", i)
		case seen[id]:
			return nil, nil, fmt.Errorf("relevance: labels[%d]: id %s is given twice", i, id)
		}
		seen[id] = true
		j, err := l.judgments()
		if err != nil {
			return nil, nil, fmt.Errorf("relevance: labels[%d]: %w", i, err)
		}
		qs = append(qs, relevance.Query{ID: id, Text: l.Query})
		labels[id] = j
	}
	return qs, labels, nil
}

// CutOff is recall's k.
func (r *Relevance) CutOff() int {
	if r.K == 0 {
		return 10
	}
	return r.K
}

// Expand is the template with text in place of {{query}}: a JSON string
// that is only the placeholder becomes the text, quoted; inside a longer
// string, the text escaped.
func (q NamedTemplate) Expand(text string) []byte {
	quoted, _ := json.Marshal(text)
	out := bytes.ReplaceAll(q.Body, []byte(`"`+placeholder+`"`), quoted)
	return bytes.ReplaceAll(out, []byte(placeholder), quoted[1:len(quoted)-1])
}

// Labels are the queries to judge and their labels, and a line saying
// where they come from. docs is the corpus's document count (known items
// are spread over it).
func (t *Track) Labels(docs int64) ([]relevance.Query, map[string]relevance.Labels, string, error) {
	r := t.Relevance
	if len(r.Labels) > 0 {
		qs, labels, err := r.inline()
		return qs, labels, fmt.Sprintf("the track's labels: %d queries judged in the track", len(qs)), err
	}
	if r.KnownItems == nil {
		return t.userLabels()
	}
	k := *r.KnownItems
	n := k.Count()
	step := max(1, docs/int64(n))
	rd, err := t.Open()
	if err != nil {
		return nil, nil, "", err
	}
	defer rd.Close()
	var qs []relevance.Query
	labels := map[string]relevance.Labels{}
	var d Doc
	for len(qs) < n {
		err := rd.Next(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, "", err
		}
		text, _ := d.Fields[k.Field].(string)
		text = strings.TrimSpace(text)
		if (d.Line-1)%step != 0 || text == "" || labels[d.ID] != nil {
			continue
		}
		qs = append(qs, relevance.Query{ID: d.ID, Text: text})
		labels[d.ID] = relevance.Labels{d.ID: 1}
	}
	if len(qs) == 0 {
		return nil, nil, "", fmt.Errorf("relevance: no document has a %s to make a known item of", k.Field)
	}
	return qs, labels, fmt.Sprintf("known items: %d documents, each found by its %s (the document is the one relevant answer)", len(qs), k.Field), nil
}

// userLabels reads the track's qrels and queries; a query without a
// judgment is kept (it counts as unjudged), a judged query without a text
// is refused.
func (t *Track) userLabels() ([]relevance.Query, map[string]relevance.Labels, string, error) {
	r := t.Relevance
	open := func(p string) (*os.File, error) {
		f, err := os.Open(t.Path(p))
		if err != nil {
			return nil, fmt.Errorf("relevance: %w", err)
		}
		return f, nil
	}
	qf, err := open(r.Queries)
	if err != nil {
		return nil, nil, "", err
	}
	defer qf.Close()
	qs, err := relevance.ParseQueries(qf)
	if err != nil {
		return nil, nil, "", fmt.Errorf("relevance: %s: %w", r.Queries, err)
	}
	lf, err := open(r.Qrels)
	if err != nil {
		return nil, nil, "", err
	}
	defer lf.Close()
	labels, err := relevance.ParseQrels(lf)
	if err != nil {
		return nil, nil, "", fmt.Errorf("relevance: %s: %w", r.Qrels, err)
	}
	have := map[string]bool{}
	for _, q := range qs {
		have[q.ID] = true
	}
	for qid := range labels {
		if !have[qid] {
			return nil, nil, "", fmt.Errorf("relevance: %s judges query %s, which %s does not give", r.Qrels, qid, r.Queries)
		}
	}
	return qs, labels, fmt.Sprintf("the track's labels: %d queries (%s), judged in %s", len(qs), r.Queries, r.Qrels), nil
}
