package fulltext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Field types.
const (
	TypeText    = "text"
	TypeKeyword = "keyword"
	TypeLong    = "long"
	TypeInteger = "integer"
	TypeDouble  = "double"
	TypeFloat   = "float"
	TypeBoolean = "boolean"
)

// Field is one mapped field. Object fields are flattened to dotted names.
type Field struct {
	Name           string
	Type           string
	Index          bool
	Enabled        bool
	Analyzer       string
	SearchAnalyzer string
	IgnoreAbove    int
	Boost          float64

	analyzer, searchAnalyzer Analyzer
}

func (f *Field) numeric() bool {
	switch f.Type {
	case TypeLong, TypeInteger, TypeDouble, TypeFloat:
		return true
	}
	return false
}

// Mapping is an index's schema.
type Mapping struct {
	Fields         map[string]*Field
	SourceEnabled  bool
	SourceIncludes []string
	SourceExcludes []string
	Dynamic        string
	// settings is the compact settings JSON as given ("{}" when none).
	settings  []byte
	analyzers map[string]Analyzer
}

type mappingInput struct {
	Mappings *struct {
		Dynamic any `json:"dynamic"`
		Source  *struct {
			Enabled  *bool    `json:"enabled"`
			Includes []string `json:"includes"`
			Excludes []string `json:"excludes"`
		} `json:"_source"`
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"mappings"`
	Settings json.RawMessage `json:"settings"`
}

type fieldInput struct {
	Type           string                     `json:"type"`
	Index          *bool                      `json:"index"`
	Enabled        *bool                      `json:"enabled"`
	Analyzer       string                     `json:"analyzer"`
	SearchAnalyzer string                     `json:"search_analyzer"`
	IgnoreAbove    *int                       `json:"ignore_above"`
	Boost          *float64                   `json:"boost"`
	Properties     map[string]json.RawMessage `json:"properties"`
}

// ParseMapping parses a TFT.CREATEINDEX document ({"mappings":…,"settings":…}).
func ParseMapping(raw []byte) (*Mapping, error) {
	var in mappingInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("invalid json: %v", err)
	}
	m := &Mapping{Fields: map[string]*Field{}, SourceEnabled: true, Dynamic: "false", settings: []byte("{}"),
		SourceIncludes: []string{}, SourceExcludes: []string{}}
	if err := m.setSettings(in.Settings); err != nil {
		return nil, err
	}
	if in.Mappings == nil {
		return nil, fmt.Errorf("mappings is required")
	}
	if s := in.Mappings.Source; s != nil {
		if s.Enabled != nil {
			m.SourceEnabled = *s.Enabled
		}
		if s.Includes != nil {
			m.SourceIncludes = s.Includes
		}
		if s.Excludes != nil {
			m.SourceExcludes = s.Excludes
		}
	}
	if err := m.addProperties("", in.Mappings.Properties, false); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Mapping) setSettings(raw json.RawMessage) error {
	m.analyzers = map[string]Analyzer{}
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("invalid settings: %v", err)
	}
	m.settings = buf.Bytes()
	var s struct {
		Analysis struct {
			Analyzer map[string]map[string]any `json:"analyzer"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("invalid settings: %v", err)
	}
	for name, def := range s.Analysis.Analyzer {
		a, err := customAnalyzer(def)
		if err != nil {
			return fmt.Errorf("analyzer '%s': %v", name, err)
		}
		m.analyzers[name] = a
	}
	return nil
}

func (m *Mapping) analyzer(name string) (Analyzer, error) {
	if a, ok := m.analyzers[name]; ok {
		return a, nil
	}
	return builtinAnalyzer(name)
}

// addProperties adds fields; with update set, existing fields are an error.
func (m *Mapping) addProperties(prefix string, props map[string]json.RawMessage, update bool) error {
	for name, raw := range props {
		full := prefix + name
		var fi fieldInput
		if err := json.Unmarshal(raw, &fi); err != nil {
			return fmt.Errorf("field '%s': %v", full, err)
		}
		if fi.Properties != nil && fi.Type == "" {
			if err := m.addProperties(full+".", fi.Properties, update); err != nil {
				return err
			}
			continue
		}
		if _, exists := m.Fields[full]; exists && update {
			return fmt.Errorf("field '%s' already exists", full)
		}
		f := &Field{Name: full, Type: fi.Type, Index: true, Enabled: true, IgnoreAbove: -1, Boost: 1,
			Analyzer: fi.Analyzer, SearchAnalyzer: fi.SearchAnalyzer}
		if fi.Index != nil {
			f.Index = *fi.Index
		}
		if fi.Enabled != nil {
			f.Enabled = *fi.Enabled
		}
		if fi.IgnoreAbove != nil {
			f.IgnoreAbove = *fi.IgnoreAbove
		}
		if fi.Boost != nil {
			f.Boost = *fi.Boost
		}
		switch f.Type {
		case TypeText:
			a, err := m.analyzer(f.Analyzer)
			if err != nil {
				return fmt.Errorf("field '%s': %v", full, err)
			}
			f.analyzer, f.searchAnalyzer = a, a
			if f.SearchAnalyzer != "" {
				if f.searchAnalyzer, err = m.analyzer(f.SearchAnalyzer); err != nil {
					return fmt.Errorf("field '%s': %v", full, err)
				}
			}
		case TypeKeyword:
			f.analyzer, f.searchAnalyzer = keywordAnalyzer{}, keywordAnalyzer{}
		case TypeLong, TypeInteger, TypeDouble, TypeFloat, TypeBoolean:
		case "":
			return fmt.Errorf("field '%s' has no type", full)
		default:
			return fmt.Errorf("field '%s': unsupported type '%s'", full, f.Type)
		}
		m.Fields[full] = f
	}
	return nil
}

// Update adds the properties of an update document ({"mappings":{"properties":…}}).
func (m *Mapping) Update(raw []byte) error {
	var in mappingInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("invalid json: %v", err)
	}
	if in.Mappings == nil {
		return fmt.Errorf("mappings is required")
	}
	return m.addProperties("", in.Mappings.Properties, true)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonStrings(v []string) string {
	parts := make([]string, len(v))
	for i, s := range v {
		parts[i] = jsonString(s)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// MappingsJSON renders the normalized mappings as TFT.GETINDEX prints them.
func (m *Mapping) MappingsJSON() string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"_source":{"enabled":%t,"excludes":%s,"includes":%s},"dynamic":%s,"properties":{`,
		m.SourceEnabled, jsonStrings(m.SourceExcludes), jsonStrings(m.SourceIncludes), jsonString(m.Dynamic))
	names := make([]string, 0, len(m.Fields))
	for n := range m.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		f := m.Fields[n]
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(n) + ":{")
		if f.Analyzer != "" {
			b.WriteString(`"analyzer":` + jsonString(f.Analyzer) + ",")
		}
		fmt.Fprintf(&b, `"boost":%s,"enabled":%t,"ignore_above":%d,"index":%t,"similarity":"classic","type":%s`,
			FormatFloat(f.Boost), f.Enabled, f.IgnoreAbove, f.Index, jsonString(f.Type))
		if f.SearchAnalyzer != "" {
			b.WriteString(`,"search_analyzer":` + jsonString(f.SearchAnalyzer))
		}
		b.WriteByte('}')
	}
	b.WriteString("}}")
	return b.String()
}

// SettingsJSON returns the settings as given, compact ("{}" when none).
func (m *Mapping) SettingsJSON() string { return string(m.settings) }

// Terms returns the terms the field's index analyzer makes of text (none
// for a field that is not analyzed text).
func (f *Field) Terms(text string) []string {
	if f.analyzer == nil {
		return nil
	}
	toks := f.analyzer.Analyze(text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Term
	}
	return out
}
