package org.tairbench.analysis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import com.huaban.analysis.jieba.JiebaSegmenter;
import com.huaban.analysis.jieba.SegToken;
import com.huaban.analysis.jieba.WordDictionary;

/**
 * Tair's jieba analyzer on jieba-analysis (the Java port of jieba), cut as
 * tairbench's embedded server cuts (internal/fulltext, jiebaAnalyzer): jieba's
 * search mode (a word longer than two characters also yields its dictionary
 * sub-words of two and three characters, before it; a sub-word needs a
 * dictionary frequency of at least MIN_SUBWORD_FREQ), lower-cased, without
 * punctuation and stop words, and with positions counted over every token of
 * the cut, the dropped ones included. One difference: Lucene indexes a field
 * only when its tokens' start offsets never go back, so the tokens are handed
 * out in the order of their start offsets (高性能 28 before 性能 29, where the
 * embedded server gives 性能 first), and the same positions are given out in
 * that order (高性能 15, 性能 16; the embedded server: 性能 15, 高性能 16).
 */
final class JiebaCut {
    /** The embedded server's minSubwordFreq. */
    static final long MIN_SUBWORD_FREQ = 10;

    private static final JiebaSegmenter SEGMENTER = new JiebaSegmenter();
    private static final double LOG_TOTAL = logTotal();

    private JiebaCut() {}

    /** One token: its word, character offsets and position. */
    record Token(String word, int start, int end, int position) {}

    /**
     * logTotal recovers the log of the dictionary's total frequency (which
     * jieba-analysis keeps private) from its first entry, whose frequency
     * the dictionary file gives and whose log probability the port keeps.
     */
    private static double logTotal() {
        WordDictionary d = WordDictionary.getInstance();
        try (InputStream in = WordDictionary.class.getResourceAsStream("/dict.txt")) {
            if (in == null) {
                throw new IllegalStateException("jieba-analysis: dict.txt is missing from its jar");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null;) {
                String[] f = line.trim().split("[\t ]+");
                if (f.length < 2) {
                    continue;
                }
                Double logp = d.freqs.get(f[0].toLowerCase(Locale.ROOT));
                if (logp != null) {
                    return Math.log(Double.parseDouble(f[1])) - logp;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("jieba-analysis: no entry of dict.txt is in its dictionary");
    }

    /**
     * Cuts text into the tokens the analyzer emits. A user word is cut whole
     * wherever it occurs (the longest one first); the text between user words
     * is cut by jieba-analysis. jieba-analysis keeps one dictionary per node,
     * so user words are kept here, per analyzer, rather than added to it.
     */
    static List<Token> cut(String text, Set<String> stop, List<String> userWords) {
        List<Token> out = new ArrayList<>();
        int[] pos = {-1};
        String lower = text.toLowerCase(Locale.ROOT);
        int from = 0;
        for (int i = 0; i < text.length();) {
            String u = longestUserWord(lower, i, userWords);
            if (u == null) {
                i++;
                continue;
            }
            cutPlain(out, text.substring(from, i), from, stop, pos);
            word(out, text.substring(i, i + u.length()), i, stop, pos);
            i += u.length();
            from = i;
        }
        cutPlain(out, text.substring(from), from, stop, pos);
        return inOffsetOrder(out);
    }

    /** inOffsetOrder sorts tokens by start offset (stably) and hands out their positions in that order. */
    static List<Token> inOffsetOrder(List<Token> in) {
        List<Token> sorted = new ArrayList<>(in);
        sorted.sort(java.util.Comparator.comparingInt(Token::start));
        List<Token> out = new ArrayList<>(in.size());
        for (int i = 0; i < sorted.size(); i++) {
            Token t = sorted.get(i);
            out.add(new Token(t.word(), t.start(), t.end(), in.get(i).position()));
        }
        return out;
    }

    private static String longestUserWord(String lower, int at, List<String> userWords) {
        String best = null;
        for (String u : userWords) {
            if ((best == null || u.length() > best.length()) && lower.startsWith(u, at)) {
                best = u;
            }
        }
        return best;
    }

    private static void cutPlain(List<Token> out, String text, int base, Set<String> stop, int[] pos) {
        if (text.isEmpty()) {
            return;
        }
        for (SegToken t : SEGMENTER.process(text, JiebaSegmenter.SegMode.SEARCH)) {
            word(out, t.word, base + t.startOffset, stop, pos);
        }
    }

    /** word emits a word of the cut, after its sub-words (search mode). */
    private static void word(List<Token> out, String w, int start, Set<String> stop, int[] pos) {
        int n = w.length();
        if (n > 2) {
            for (int i = 0; i + 2 <= n; i++) {
                sub(out, w.substring(i, i + 2), start + i, stop, pos);
            }
        }
        if (n > 3) {
            for (int i = 0; i + 3 <= n; i++) {
                sub(out, w.substring(i, i + 3), start + i, stop, pos);
            }
        }
        emit(out, w, start, start + n, stop, pos);
    }

    private static void sub(List<Token> out, String g, int start, Set<String> stop, int[] pos) {
        Double logp = WordDictionary.getInstance().freqs.get(g);
        if (logp != null && logp + LOG_TOTAL >= Math.log(MIN_SUBWORD_FREQ) - 1e-9) {
            emit(out, g, start, start + g.length(), stop, pos);
        }
    }

    private static void emit(List<Token> out, String w, int start, int end, Set<String> stop, int[] pos) {
        pos[0]++;
        if (w.codePoints().noneMatch(Character::isLetterOrDigit)) {
            return;
        }
        String lw = w.toLowerCase(Locale.ROOT);
        if (stop.contains(lw)) {
            return;
        }
        out.add(new Token(lw, start, end, pos[0]));
    }
}
