package result

// SchemaTranslation identifies a Translation.
const SchemaTranslation = "tairbench.translation/v1"

// Translation is 'tairbench replay --translate': a trace's bitmap traffic
// replayed as it was (Redis bitmaps) and translated (TairRoaring), side
// by side: a Run each, the bitmaps' memory in each structure, and how
// the two structures' answers agreed on a sample of keys.
type Translation struct {
	Header
	// Translate names the translation ("bitmaps=tairroaring"); Trace the
	// trace's file name.
	Translate string `json:"translate"`
	Trace     string `json:"trace"`
	// BitmapKeys is how many keys the trace uses as bitmaps.
	BitmapKeys int64 `json:"bitmap_keys"`
	// Unmapped are the commands left out of both replays, with the reason.
	Unmapped []ReplayDrop `json:"unmapped,omitempty"`
	// Pairs names each original command beside its translation, as the
	// runs' operations name them.
	Pairs      []TranslationPair `json:"pairs"`
	Original   *Run              `json:"original"`
	Translated *Run              `json:"translated"`
	Memory     TranslationMemory `json:"memory"`
	Agreement  Agreement         `json:"agreement"`
}

// TranslationPair is an original command and its translation.
type TranslationPair struct {
	Original   string `json:"original"`
	Translated string `json:"translated"`
}

// TranslationMemory is what the bitmap keys took in each structure:
// MEMORY USAGE summed over Sampled of the Keys, scaled to all of them.
type TranslationMemory struct {
	Keys            int64 `json:"keys"`
	Sampled         int64 `json:"sampled"`
	OriginalBytes   int64 `json:"original_bytes"`
	TranslatedBytes int64 `json:"translated_bytes"`
}

// Agreement is how a sample of keys' commands, sent to both structures
// one after the other, were answered: Agreed of Commands alike.
type Agreement struct {
	Keys     int64 `json:"keys"`
	Commands int64 `json:"commands"`
	Agreed   int64 `json:"agreed"`
	// Disagreements are the first few answers that differed.
	Disagreements []Disagreement `json:"disagreements,omitempty"`
}

// Disagreement is one command answered differently.
type Disagreement struct {
	Original        string `json:"original"`
	Translated      string `json:"translated"`
	OriginalReply   string `json:"original_reply"`
	TranslatedReply string `json:"translated_reply"`
}
