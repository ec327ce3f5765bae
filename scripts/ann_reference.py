#!/usr/bin/env python3
"""A known HNSW implementation on the same data, for scale: FAISS's
IndexHNSWFlat (PyPI faiss-cpu) built with the same M and ef_construct,
single-threaded (the embedded server builds on one writer), then recall@k
against tairbench's own ground truth at each ef_search.

  ann_reference.py DIR/train.npy DIR/test.npy TRUTH.ivecs --m 16 --ef-construct 100 --ef-search 10,20,40 --k 10

Prints one JSON object: build seconds and recall per ef_search.
"""
import argparse
import json
import time

import faiss
import numpy as np


def ivecs(path):
    a = np.fromfile(path, dtype=np.int32)
    d = a[0]
    return a.reshape(-1, d + 1)[:, 1:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("train")
    p.add_argument("test")
    p.add_argument("truth")
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--ef-construct", type=int, default=100)
    p.add_argument("--ef-search", default="10,20,40,80,160")
    p.add_argument("--k", type=int, default=10)
    a = p.parse_args()
    faiss.omp_set_num_threads(1)
    xb = np.ascontiguousarray(np.load(a.train), dtype=np.float32)
    xq = np.ascontiguousarray(np.load(a.test), dtype=np.float32)
    gt = ivecs(a.truth)[:, : a.k]
    xq = xq[: len(gt)]
    index = faiss.IndexHNSWFlat(xb.shape[1], a.m)
    index.hnsw.efConstruction = a.ef_construct
    t0 = time.perf_counter()
    index.add(xb)
    build = time.perf_counter() - t0
    out = {"implementation": f"faiss {faiss.__version__} IndexHNSWFlat, 1 thread", "m": a.m,
           "ef_construct": a.ef_construct, "build_seconds": build, "base": len(xb), "queries": len(xq), "recall": {}}
    for ef in [int(x) for x in a.ef_search.split(",")]:
        index.hnsw.efSearch = ef
        _, ids = index.search(xq, a.k)
        hits = sum(len(set(ids[i]) & set(gt[i])) for i in range(len(xq)))
        out["recall"][str(ef)] = hits / (a.k * len(xq))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
