// An Elasticsearch analysis plugin with Lucene's Chinese analyzers, for
// tairbench's search tracks: the official analysis-smartcn and
// analysis-common modules are not on Maven Central, Lucene's analyzers are.
// Built and installed by scripts/elasticsearch.sh.
package org.tairbench.analysis;

import java.util.List;
import java.util.Map;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
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
 * the analyzer's settings is dropped too, besides Lucene's punctuation) and "cjk" (bigrams).
 */
public class ChinesePlugin extends Plugin implements AnalysisPlugin {
    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
        return Map.of(
            "smartcn", (indexSettings, env, name, settings) -> new Provider<>(name, settings, smartcn(settings)),
            "cjk", (indexSettings, env, name, settings) -> new Provider<>(name, settings, new CJKAnalyzer()));
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
