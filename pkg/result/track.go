package result

// SchemaTrack identifies a TrackRun.
const SchemaTrack = "tairbench.track/v1"

// TrackRun is a search track run on one or more engines (schema
// SchemaTrack): every task's result per engine, with per-template
// statistics, and the parity of each query template between the engines.
type TrackRun struct {
	Header
	Track       string `json:"track"`
	Description string `json:"description,omitempty"`
	// Corpus says where the documents came from and how many were read.
	Corpus string `json:"corpus"`
	Docs   int64  `json:"docs"`
	// Engines maps each engine to where it was reached (redacted), with
	// "embedded server, not Tair" for tairbench's own.
	Engines map[string]string `json:"engines"`
	// Analyzers are how the TairSearch mapping's analyzers were translated
	// for Elasticsearch (empty when it ran alone or the track gave its body).
	Analyzers []AnalyzerTranslation `json:"analyzers,omitempty"`
	// TokenAgreement is, per field whose analyzer is not the same on both
	// engines, how alike the two cut the corpus's text.
	TokenAgreement []TokenAgreement `json:"token_agreement,omitempty"`
	// Differences lists what differs in set-up between the engines.
	Differences []string    `json:"differences,omitempty"`
	Tasks       []TrackTask `json:"tasks"`
	// Relevance is how well each engine's answers matched the track's
	// relevance labels (absent when the track has none).
	Relevance *TrackRelevance `json:"relevance,omitempty"`
	// Thresholds are the verdicts of the run's relevance thresholds.
	Thresholds []ThresholdVerdict `json:"thresholds,omitempty"`
	Warnings   []string           `json:"warnings"`
}

// TrackRelevance is each engine's answers judged against labels, after
// the schedule ran.
type TrackRelevance struct {
	// Labels says where the labels came from; Templates are the queries
	// each label's text was put in, by name; K recall's cut-off.
	Labels    string            `json:"labels"`
	Templates map[string]string `json:"templates"`
	K         int               `json:"k"`
	// Engines are the scores per template and engine.
	Engines []RelevanceScores `json:"engines"`
}

// RelevanceScores are one engine's means over the judged queries of one
// template.
type RelevanceScores struct {
	Template string `json:"template_name"`
	Engine   string `json:"engine"`
	// Judged counts the queries with a relevant document; Unjudged those
	// without (left out of the means); Failed the queries the engine
	// refused (each counted as finding nothing).
	Judged   int `json:"judged"`
	Unjudged int `json:"unjudged"`
	Failed   int `json:"failed"`
	// Recall is recall@K; MRR and NDCG are at 10.
	Recall float64 `json:"recall_at_k"`
	MRR    float64 `json:"mrr_at_10"`
	NDCG   float64 `json:"ndcg_at_10"`
}

// AnalyzerTranslation is one field's analyzer on each engine.
type AnalyzerTranslation struct {
	Field         string `json:"field"`
	TairSearch    string `json:"tairsearch"`
	Elasticsearch string `json:"elasticsearch"`
	// Implementation is what Elasticsearch's analyzer is, when its name
	// does not say it ("jieba on jieba-analysis 1.0.2").
	Implementation string `json:"elasticsearch_implementation,omitempty"`
	Exact          bool   `json:"exact"`
	Why            string `json:"why,omitempty"`
}

// TokenAgreement is how alike two engines cut one field's text: the
// field's text in the corpus's first documents, analyzed on both.
type TokenAgreement struct {
	Field         string `json:"field"`
	TairSearch    string `json:"tairsearch"`
	Elasticsearch string `json:"elasticsearch"`
	// Implementation is what Elasticsearch's analyzer is ("jieba on
	// jieba-analysis 1.0.2"); empty when its name says it.
	Implementation string `json:"elasticsearch_implementation,omitempty"`
	// Samples are the texts cut; Equal those cut into the same tokens on
	// both engines, each as many times (in any order: Elasticsearch must
	// give them in the order of their start offsets).
	Samples int `json:"samples"`
	Equal   int `json:"equal"`
	// OnlyTairSearch and OnlyElasticsearch are the tokens one engine made
	// more often than the other over all samples, most first (at most 8).
	OnlyTairSearch    []TokenCount `json:"only_tairsearch,omitempty"`
	OnlyElasticsearch []TokenCount `json:"only_elasticsearch,omitempty"`
	// Example is the first text cut differently.
	Example string `json:"example,omitempty"`
}

// Agreement is the share of samples cut alike.
func (t TokenAgreement) Agreement() float64 {
	if t.Samples == 0 {
		return 0
	}
	return float64(t.Equal) / float64(t.Samples)
}

// TokenCount is a token and how many more times one engine made it.
type TokenCount struct {
	Token string `json:"token"`
	Count int    `json:"count"`
}

// TrackTask is one task of the schedule.
type TrackTask struct {
	Name string `json:"name"`
	// Kind is ingest, query or mixed.
	Kind    string  `json:"kind"`
	Clients int     `json:"clients"`
	Rate    float64 `json:"rate,omitempty"`
	// Parity is each template checked on every engine before timing.
	Parity  []TemplateParity `json:"parity,omitempty"`
	Engines []TrackEngine    `json:"engines"`
}

// TrackEngine is one engine's run of a task.
type TrackEngine struct {
	Engine string `json:"engine"`
	Run    *Run   `json:"run"`
	// Templates are the per-template figures beside Run.Operations.
	Templates []TemplateStats `json:"templates,omitempty"`
	// Docs is the searchable document count after an ingest.
	Docs int64 `json:"docs,omitempty"`
	// Ingest is, for a task that writes while it queries, the writers'
	// own figures: the documents over the time they were writing.
	Ingest *IngestFigures `json:"ingest,omitempty"`
}

// IngestFigures are the writers' figures of a task that writes while it
// queries. Their run's operation rate is the documents over the whole
// task; when the corpus ran out before the task ended, that is not the
// engine's rate, DocsPerSec is.
type IngestFigures struct {
	Docs int64 `json:"docs"`
	// WritingS is how long the writers wrote: the seconds with writes,
	// the last one counted as the share of a full second's documents it
	// held.
	WritingS   float64 `json:"writing_s"`
	DocsPerSec float64 `json:"docs_per_sec"`
	// CorpusLimited is set when the writers ran out of documents before
	// the task ended.
	CorpusLimited bool `json:"corpus_limited"`
}

// TemplateStats are one query template's figures in a run (its latency
// histogram is the matching Run.Operations entry).
type TemplateStats struct {
	Name string `json:"name"`
	// Requests and ZeroHitShare: replies, and the share that found nothing.
	Requests     int64   `json:"requests"`
	ZeroHitShare float64 `json:"zero_hit_share"`
	// MeanHits is the mean total hits per reply (warm-up included).
	MeanHits float64 `json:"mean_hits"`
	// Latency is from the send (service time); CorrectedLatency, for a task
	// with a target rate, from each request's intended start.
	Latency          *Latency `json:"latency_us,omitempty"`
	CorrectedLatency *Latency `json:"latency_corrected_us,omitempty"`
}

// TemplateParity compares one template's hits between engines on sample
// parameters.
type TemplateParity struct {
	Template string `json:"template"`
	Samples  int    `json:"samples"`
	// TotalAgreement is the share of samples whose total hits are equal.
	TotalAgreement float64 `json:"total_agreement"`
	// TopOverlap is the mean share of the top 10 ids both engines return.
	TopOverlap float64 `json:"top10_overlap"`
	// Divergence is 1 − min(TotalAgreement, TopOverlap).
	Divergence float64 `json:"divergence"`
	// Cause names why they differ ("" when they agree): every cause in
	// Causes, highest score first, as one line.
	Cause string `json:"cause,omitempty"`
	// Causes is every cause that applies, each scored by the share of the
	// samples it explains.
	Causes []ParityCause `json:"causes,omitempty"`
	// NoEvidence is set when every sample found nothing on every engine:
	// equal totals of zero say nothing of parity (Cause says so).
	NoEvidence bool `json:"no_evidence,omitempty"`
	// Example is one sample query and each engine's total.
	Example string           `json:"example"`
	Totals  map[string]int64 `json:"totals"`
}

// ParityCause is one reason two engines' hits for a template differ.
type ParityCause struct {
	// Kind is "analyzer", "scoring model", "sort ties", "unexplained" or
	// "engine defaults".
	Kind string `json:"kind"`
	// Score is the share of the samples it explains: for a difference in
	// totals, the samples whose totals differ; for a difference in order,
	// the top-10 share lost on samples whose totals agree.
	Score float64 `json:"score"`
	// Detail says how (the analyzers and an example of their cuts).
	Detail string `json:"detail,omitempty"`
}
