package track

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/pkg/result"
)

// Translation is how one TairSearch analyzer became an Elasticsearch one
// (the track result's own type).
type Translation = result.AnalyzerTranslation

// The Elasticsearch analyzers a jieba field can get, from the analysis
// plugin scripts/elasticsearch.sh builds (scripts/es-analysis-zh):
// ChineseJieba (the default) is Tair's jieba on jieba-analysis, the Java port
// of jieba; ChineseSmartcn is Lucene's smartcn (Elasticsearch's official
// analysis-smartcn is not on Maven Central; Lucene's analyzer is). Both drop
// the jieba analyzer's stop words.
const (
	ChineseJieba   = "jieba"
	ChineseSmartcn = "smartcn"
)

// ChineseAnalyzers lists the choices of ProposeElasticsearch's chinese.
var ChineseAnalyzers = []string{ChineseJieba, ChineseSmartcn}

// chineseES is what a jieba field becomes on Elasticsearch: the analyzer's
// name there, its definition, and how it differs from TairSearch's jieba.
type chineseES struct {
	name, why, impl string
	def             map[string]any
}

func chineseFor(choice string) (chineseES, error) {
	stop := fulltext.ChineseStopWords()
	switch choice {
	case "", ChineseJieba:
		return chineseES{name: "tair_jieba", impl: "jieba on jieba-analysis 1.0.2", def: map[string]any{"type": "jieba", "stopwords": stop},
			why: "jieba search mode with the same stop words on both engines, Elasticsearch's on jieba-analysis 1.0.2 and its own dictionary: " +
				"tokens differ where the two dictionaries do (see token agreement)"}, nil
	case ChineseSmartcn:
		return chineseES{name: "tair_smartcn", impl: "Lucene smartcn", def: map[string]any{"type": "smartcn", "stopwords": stop},
			why: "jieba (search mode: sub-words too) on TairSearch, Lucene smartcn (one cut, English words stemmed) on Elasticsearch, " +
				"the same stop words: hits and scores differ where the two cut differently"}, nil
	}
	return chineseES{}, fmt.Errorf("unknown Chinese analyzer %q for Elasticsearch (choose %s)", choice, strings.Join(ChineseAnalyzers, " or "))
}

// esAnalyzers are the Elasticsearch analyzers tairbench defines for
// TairSearch's built-in ones, with zh the one for jieba.
func esAnalyzers(zh chineseES) map[string]any {
	return map[string]any{
		// Lucene's standard tokenizer, lower-cased, English stop words: what
		// TairSearch's standard analyzer does.
		"tair_standard": map[string]any{"type": "standard", "stopwords": "_english_"},
		zh.name:         zh.def,
	}
}

// builtinES maps TairSearch's built-in analyzers.
func builtinES(name string, zh chineseES) (es string, exact bool, why string) {
	switch name {
	case "", "standard", "stop":
		return "tair_standard", true, ""
	case "chinese":
		return "tair_standard", true, "" // Lucene's standard tokenizer cuts Han text into single characters too
	case "whitespace", "keyword":
		return name, true, ""
	case "jieba":
		return zh.name, false, zh.why
	}
	return "standard", false, "unknown analyzer " + name
}

// customJieba translates a custom jieba analyzer: with jieba-analysis its
// user words come along (use_hmm false cannot: the port always uses its
// HMM); smartcn knows no user words.
func customJieba(name string, def map[string]any, zh chineseES) (es string, body any, why string) {
	if zh.def["type"] != "jieba" {
		return zh.name, nil, zh.why + "; smartcn knows no user words"
	}
	out := map[string]any{}
	for k, v := range zh.def {
		out[k] = v
	}
	if w, ok := def["userwords"]; ok {
		out["userwords"] = w
	}
	why = zh.why
	if h, ok := def["use_hmm"].(bool); ok && !h {
		why += "; use_hmm false on TairSearch only (jieba-analysis always cuts unknown words with its HMM)"
	}
	return name, out, why
}

// ProposeElasticsearch derives an Elasticsearch index body from a
// TairSearch mapping and says how every analyzer was translated; chinese
// ("jieba", the default, or "smartcn") is what jieba fields become.
func ProposeElasticsearch(tair json.RawMessage, chinese string) (json.RawMessage, []Translation, error) {
	zh, err := chineseFor(chinese)
	if err != nil {
		return nil, nil, err
	}
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
	analyzers := esAnalyzers(zh)
	impl := map[string]string{zh.name: zh.impl} // what an ES analyzer is, when its name does not say
	custom := map[string]string{}               // custom analyzer → its ES name
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
			es, body, why := customJieba(name, def, zh)
			if body != nil {
				analyzers[es] = body
			}
			impl[es] = zh.impl
			custom[name], customWhy[name] = es, why
		default:
			es, _, why := builtinES(typ, zh)
			custom[name], customWhy[name] = es, why
		}
	}
	var notes []Translation
	tr := func(field, name string) string {
		if es, ok := custom[name]; ok {
			why := customWhy[name]
			notes = append(notes, Translation{Field: field, TairSearch: name, Elasticsearch: es, Implementation: impl[es], Exact: why == "", Why: why})
			return es
		}
		es, exact, why := builtinES(name, zh)
		shown := name
		if shown == "" {
			shown = "standard"
		}
		notes = append(notes, Translation{Field: field, TairSearch: shown, Elasticsearch: es, Implementation: impl[es], Exact: exact, Why: why})
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

// CheckChinese refuses a Chinese analyzer choice ProposeElasticsearch
// does not know, before anything runs.
func CheckChinese(choice string) error {
	_, err := chineseFor(choice)
	return err
}
