# Cuts sentences with PyPI's jieba (the reference segmenter) for jieba_test.go.
# stdin: {"dict": path, "hmm": bool, "search": bool, "userwords": [...], "sentences": [...]}
# ("search": jieba's search mode, cut_for_search)
# stdout: one JSON list of words per sentence.
import json
import logging
import sys

import jieba

jieba.setLogLevel(logging.WARNING)
req = json.load(sys.stdin)
tk = jieba.Tokenizer(dictionary=req["dict"])
tk.initialize()
for w in req["userwords"]:
    tk.add_word(w)
cut = tk.cut_for_search if req.get("search") else tk.cut
out = [list(cut(s, HMM=req["hmm"])) for s in req["sentences"]]
json.dump(out, sys.stdout, ensure_ascii=False)
