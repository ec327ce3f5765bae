package track

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/pkg/result"
)

// Translation is how one TairSearch analyzer became an Elasticsearch one
// (the track result's own type).
type Translation = result.AnalyzerTranslation

// ChineseAnalyzer is the Elasticsearch analyzer a jieba field gets: Lucene's
// smartcn (words, from a hidden Markov model over its own dictionary) with
// the jieba analyzer's stop words, from the analysis plugin that
// scripts/elasticsearch.sh builds (Elasticsearch's official analysis-smartcn
// is not on Maven Central; Lucene's analyzer is).
const ChineseAnalyzer = "tair_jieba"

// chineseWhy says how smartcn differs from Tair's jieba.
const chineseWhy = "jieba (search mode: sub-words too) on TairSearch, Lucene smartcn (one cut, English words stemmed) on Elasticsearch, the same stop words: hits and scores differ where the two cut differently"

// esAnalyzers are the Elasticsearch analyzers tairbench defines for
// TairSearch's built-in ones.
var esAnalyzers = map[string]any{
	// Lucene's standard tokenizer, lower-cased, English stop words: what
	// TairSearch's standard analyzer does.
	"tair_standard": map[string]any{"type": "standard", "stopwords": "_english_"},
	// Lucene's smartcn with the jieba analyzer's stop words (the plugin of
	// scripts/es-analysis-zh).
	ChineseAnalyzer: map[string]any{"type": "smartcn", "stopwords": fulltext.ChineseStopWords()},
}

// builtinES maps TairSearch's built-in analyzers.
func builtinES(name string) (es string, exact bool, why string) {
	switch name {
	case "", "standard", "stop":
		return "tair_standard", true, ""
	case "chinese":
		return "tair_standard", true, "" // Lucene's standard tokenizer cuts Han text into single characters too
	case "whitespace", "keyword":
		return name, true, ""
	case "jieba":
		return ChineseAnalyzer, false, chineseWhy
	}
	return "standard", false, "unknown analyzer " + name
}

// ProposeElasticsearch derives an Elasticsearch index body from a
// TairSearch mapping and says how every analyzer was translated.
func ProposeElasticsearch(tair json.RawMessage) (json.RawMessage, []Translation, error) {
	var in struct {
		Mappings struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"mappings"`
		Settings struct {
			Analysis struct {
				Analyzer map[string]map[string]any `json:"analyzer"`
			} `json:"analysis"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(tair, &in); err != nil {
		return nil, nil, fmt.Errorf("tairsearch mapping: %w", err)
	}
	analyzers := map[string]any{}
	for k, v := range esAnalyzers {
		analyzers[k] = v
	}
	custom := map[string]string{} // custom analyzer → its ES name
	customWhy := map[string]string{}
	for name, def := range in.Settings.Analysis.Analyzer {
		typ, _ := def["type"].(string)
		tok, _ := def["tokenizer"].(string)
		switch {
		case typ == "custom" && (tok == "whitespace" || tok == "keyword"):
			analyzers[name], custom[name] = map[string]any{"type": "custom", "tokenizer": tok}, name
		case typ == "custom" && (tok == "standard" || tok == ""):
			analyzers[name], custom[name] = map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{"lowercase"}}, name
		case typ == "jieba":
			custom[name], customWhy[name] = ChineseAnalyzer, chineseWhy+"; smartcn knows no user words"
		default:
			es, _, why := builtinES(typ)
			custom[name], customWhy[name] = es, why
		}
	}
	var notes []Translation
	tr := func(field, name string) string {
		if es, ok := custom[name]; ok {
			why := customWhy[name]
			notes = append(notes, Translation{Field: field, TairSearch: name, Elasticsearch: es, Exact: why == "", Why: why})
			return es
		}
		es, exact, why := builtinES(name)
		shown := name
		if shown == "" {
			shown = "standard"
		}
		notes = append(notes, Translation{Field: field, TairSearch: shown, Elasticsearch: es, Exact: exact, Why: why})
		return es
	}
	props, err := esProperties("", in.Mappings.Properties, tr)
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Field < notes[j].Field })
	body, err := json.Marshal(map[string]any{
		"settings": map[string]any{"analysis": map[string]any{"analyzer": analyzers}},
		"mappings": map[string]any{"dynamic": false, "properties": props},
	})
	return body, notes, err
}

func esProperties(prefix string, props map[string]json.RawMessage, tr func(field, name string) string) (map[string]any, error) {
	out := map[string]any{}
	for name, raw := range props {
		var f struct {
			Type           string                     `json:"type"`
			Index          *bool                      `json:"index"`
			Analyzer       string                     `json:"analyzer"`
			SearchAnalyzer string                     `json:"search_analyzer"`
			IgnoreAbove    *int                       `json:"ignore_above"`
			Properties     map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("field %s%s: %w", prefix, name, err)
		}
		if f.Properties != nil && f.Type == "" {
			sub, err := esProperties(prefix+name+".", f.Properties, tr)
			if err != nil {
				return nil, err
			}
			out[name] = map[string]any{"properties": sub}
			continue
		}
		p := map[string]any{"type": f.Type}
		switch f.Type {
		case "text":
			p["analyzer"] = tr(prefix+name, f.Analyzer)
			if f.SearchAnalyzer != "" {
				p["search_analyzer"] = tr(prefix+name+" (search)", f.SearchAnalyzer)
			}
		case "keyword":
			if f.IgnoreAbove != nil && *f.IgnoreAbove > 0 {
				p["ignore_above"] = *f.IgnoreAbove
			}
		}
		if f.Index != nil && !*f.Index {
			p["index"] = false
		}
		out[name] = p
	}
	return out, nil
}
