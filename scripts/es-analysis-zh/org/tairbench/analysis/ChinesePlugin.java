// An Elasticsearch analysis plugin with Chinese analyzers for tairbench's
// search tracks: Lucene's (the official analysis-smartcn and analysis-common
// modules are not on Maven Central, Lucene's analyzers are) and Tair's jieba
// on jieba-analysis, the Java port of jieba. Built and installed by
// scripts/elasticsearch.sh.
package org.tairbench.analysis;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cjk.CJKAnalyzer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.analysis.AbstractIndexAnalyzerProvider;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * Registers the analyzers "smartcn" (Lucene's SmartChineseAnalyzer: words; a "stopwords" list in
 * the analyzer's settings is dropped too, besides Lucene's punctuation), "cjk" (bigrams) and
 * "jieba" (Tair's jieba: search mode, the "stopwords" list of its settings dropped, the words of
 * "userwords" cut whole; see JiebaCut).
 */
public class ChinesePlugin extends Plugin implements AnalysisPlugin {
    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        return Map.of(
            "smartcn", (indexSettings, env, name, settings) -> new Provider<>(name, settings, smartcn(settings)),
            "cjk", (indexSettings, env, name, settings) -> new Provider<>(name, settings, new CJKAnalyzer()),
            "jieba", (indexSettings, env, name, settings) -> new Provider<>(name, settings, jieba(settings)));
    }

    static Analyzer jieba(Settings settings) {
        if (!settings.getAsBoolean("use_hmm", true)) {
            throw new IllegalArgumentException("jieba: use_hmm false is not supported (jieba-analysis always cuts unknown words with its HMM)");
        }
        List<String> user = settings.getAsList("userwords").stream()
            .map(w -> w.trim().toLowerCase(java.util.Locale.ROOT)).filter(w -> !w.isEmpty()).toList();
        Set<String> stop = new HashSet<>(settings.getAsList("stopwords"));
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String field) {
                Tokenizer t = new JiebaTokenizer(stop, user);
                return new TokenStreamComponents(t);
            }
        };
    }

    static SmartChineseAnalyzer smartcn(Settings settings) {
        List<String> extra = settings.getAsList("stopwords");
        if (extra.isEmpty()) {
            return new SmartChineseAnalyzer();
        }
        CharArraySet stop = CharArraySet.copy(SmartChineseAnalyzer.getDefaultStopSet());
        stop.addAll(extra);
        return new SmartChineseAnalyzer(stop);
    }

    /** Hands out one analyzer instance. */
    static final class Provider<T extends Analyzer> extends AbstractIndexAnalyzerProvider<T> {
        private final T analyzer;

        Provider(String name, Settings settings, T analyzer) {
            super(name, settings);
            this.analyzer = analyzer;
        }

        @Override
        public T get() {
            return analyzer;
        }
    }
}
