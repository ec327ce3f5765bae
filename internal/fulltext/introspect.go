package fulltext

import (
	"bytes"
	"fmt"
)

// AnalyzeJSON renders TFT.ANALYZER's reply.
func AnalyzeJSON(a Analyzer, text string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"tokens":[`)
	for i, t := range a.Analyze(text) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"token":%s,"start_offset":%d,"end_offset":%d,"position":%d}`, jsonString(t.Term), t.Start, t.End, t.Position)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// AnalyzerFor resolves an analyzer by name, looking in the index's settings first.
func AnalyzerFor(ix *Index, name string) (Analyzer, error) {
	if ix != nil {
		return ix.Mapping.analyzer(name)
	}
	return builtinAnalyzer(name)
}

// GetIndexJSON renders TFT.GETINDEX: part is "", "mappings" or "settings".
func (ix *Index) GetIndexJSON(part string) string {
	switch part {
	case "mappings":
		return `{` + jsonString(ix.Name) + `:{"mappings":` + ix.Mapping.MappingsJSON() + `}}`
	case "settings":
		return `{` + jsonString(ix.Name) + `:{"settings":` + ix.Mapping.SettingsJSON() + `}}`
	}
	return `{` + jsonString(ix.Name) + `:{"mappings":` + ix.Mapping.MappingsJSON() + `,"settings":` + ix.Mapping.SettingsJSON() + `}}`
}
