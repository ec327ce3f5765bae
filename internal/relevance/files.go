package relevance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
)

// ParseQrels reads TREC qrels: one judgment a line, "QUERY-ID ITERATION
// DOC-ID RELEVANCE" separated by spaces or tabs (the iteration is
// ignored, as trec_eval does). Empty lines and lines starting with # are
// skipped. A line of another shape, a relevance that is not an integer,
// a negative relevance, or a document judged twice for one query is
// refused with its line number.
func ParseQrels(r io.Reader) (map[string]Labels, error) {
	out := map[string]Labels{}
	where := map[[2]string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("qrels line %d: %d fields, want 4 (query-id iteration doc-id relevance): %q", n, len(f), report.Clip(line, 59))
		}
		grade, err := strconv.Atoi(f[3])
		switch {
		case err != nil:
			return nil, fmt.Errorf("qrels line %d: relevance %q is not an integer", n, f[3])
		case grade < 0:
			return nil, fmt.Errorf("qrels line %d: relevance %d is negative; want 0 (not relevant) or more", n, grade)
		}
		key := [2]string{f[0], f[2]}
		if first, dup := where[key]; dup {
			return nil, fmt.Errorf("qrels line %d: query %s judges document %s again (first on line %d)", n, f[0], f[2], first)
		}
		where[key] = n
		if out[f[0]] == nil {
			out[f[0]] = Labels{}
		}
		out[f[0]][f[2]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("qrels: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("qrels: no judgment")
	}
	return out, nil
}

// Query is one query of an evaluation: its id and its text.
type Query struct {
	ID, Text string
}

// ParseQueries reads queries: "ID<TAB>TEXT" lines (MS MARCO's and BEIR's
// queries.tsv), or JSON lines with "_id" and "text" (BEIR's
// queries.jsonl). Empty lines are skipped; a line of neither shape, an
// empty id or text, or an id given twice is refused with its line number.
func ParseQueries(r io.Reader) ([]Query, error) {
	var out []Query
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		q, err := parseQuery(line)
		if err != nil {
			return nil, fmt.Errorf("queries line %d: %w", n, err)
		}
		if first, dup := seen[q.ID]; dup {
			return nil, fmt.Errorf("queries line %d: query %s again (first on line %d)", n, q.ID, first)
		}
		seen[q.ID] = n
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("queries: none")
	}
	return out, nil
}

func parseQuery(line string) (Query, error) {
	var q Query
	if strings.HasPrefix(strings.TrimSpace(line), "{") {
		var j struct {
			ID   json.RawMessage `json:"_id"`
			Text string          `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			return q, fmt.Errorf("not a JSON object: %v", err)
		}
		q.ID, q.Text = strings.Trim(string(j.ID), `"`), strings.TrimSpace(j.Text)
	} else {
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			return q, fmt.Errorf("want ID<TAB>TEXT or a JSON object with _id and text: %q", report.Clip(line, 59))
		}
		q.ID, q.Text = strings.TrimSpace(id), strings.TrimSpace(text)
	}
	switch {
	case q.ID == "" || q.ID == "null":
		return q, fmt.Errorf("no query id")
	case q.Text == "":
		return q, fmt.Errorf("query %s has no text", q.ID)
	}
	return q, nil
}
