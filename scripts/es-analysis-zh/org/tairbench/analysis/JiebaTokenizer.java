package org.tairbench.analysis;

import java.io.IOException;
import java.util.List;
import java.util.Set;

import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/** A Lucene tokenizer over JiebaCut: reads the whole text, then hands out its tokens. */
final class JiebaTokenizer extends Tokenizer {
    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
    private final PositionIncrementAttribute increment = addAttribute(PositionIncrementAttribute.class);
    private final Set<String> stop;
    private final List<String> userWords;
    private List<JiebaCut.Token> tokens = List.of();
    private int next;
    private int last;
    private int length;

    JiebaTokenizer(Set<String> stop, List<String> userWords) {
        this.stop = stop;
        this.userWords = userWords;
    }

    @Override
    public void reset() throws IOException {
        super.reset();
        StringBuilder sb = new StringBuilder();
        char[] buf = new char[4096];
        for (int n; (n = input.read(buf)) > 0;) {
            sb.append(buf, 0, n);
        }
        length = sb.length();
        tokens = JiebaCut.cut(sb.toString(), stop, userWords);
        next = 0;
        last = -1;
    }

    @Override
    public boolean incrementToken() {
        if (next >= tokens.size()) {
            return false;
        }
        clearAttributes();
        JiebaCut.Token t = tokens.get(next++);
        term.setEmpty().append(t.word());
        offset.setOffset(correctOffset(t.start()), correctOffset(t.end()));
        increment.setPositionIncrement(t.position() - last);
        last = t.position();
        return true;
    }

    @Override
    public void end() throws IOException {
        super.end();
        int end = correctOffset(length);
        offset.setOffset(end, end);
    }
}
