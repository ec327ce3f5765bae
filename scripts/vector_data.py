#!/usr/bin/env python3
"""Prepares the vector benchmark's datasets (tairbench vector --data NAME).

  vector_data.py random-s-100 DIR   ann-benchmarks' random-s-100-euclidean:
                                    make_blobs(100000, 100 dims, 1000 centres,
                                    random_state=1), then train_test_split
                                    (test_size=0.1, random_state=1): 90,000
                                    base and 10,000 query vectors
  vector_data.py random-xs-20 DIR   the same recipe at (10000, 20, 100)
  vector_data.py hdf5 FILE DIR      an ann-benchmarks HDF5 file (NAME.hdf5)'s
                                    train and test datasets as
                                    DIR/NAME/train.npy and test.npy (h5py)

Writes DIR/NAME/train.npy and test.npy (float32, C order) and
DIR/NAME/SOURCE.txt (the recipe, library versions and SHA-256 of the
arrays). scikit-learn comes from PyPI into .cache/pyvec (see
scripts/vector-deps.sh); the ground truth is computed by tairbench itself.
"""
import hashlib
import os
import sys

RECIPES = {"random-s-100": (100, 100000, 1000), "random-xs-20": (20, 10000, 100)}


def blobs(name, out_dir):
    import numpy as np
    import sklearn
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    dims, n, centres = RECIPES[name]
    x, _ = make_blobs(n_samples=n, n_features=dims, centers=centres, random_state=1)
    train, test = train_test_split(x, test_size=0.1, random_state=1)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    lines = [f"{name}-euclidean as ann-benchmarks makes it: make_blobs(n_samples={n}, n_features={dims}, "
             f"centers={centres}, random_state=1), train_test_split(test_size=0.1, random_state=1)",
             f"numpy {np.__version__}, scikit-learn {sklearn.__version__}"]
    for part, arr in (("train", train), ("test", test)):
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        np.save(os.path.join(d, part + ".npy.tmp.npy"), arr)
        os.replace(os.path.join(d, part + ".npy.tmp.npy"), os.path.join(d, part + ".npy"))
        lines.append(f"{part}: {arr.shape[0]} x {arr.shape[1]} float32, sha256 {hashlib.sha256(arr.tobytes()).hexdigest()}")
    with open(os.path.join(d, "SOURCE.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def hdf5(path, out_dir):
    import h5py
    import numpy as np

    name = os.path.splitext(os.path.basename(path))[0]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    lines = [f"{name} from {path} (ann-benchmarks' HDF5 layout)"]
    with h5py.File(path, "r") as f:
        lines.append(f"distance: {f.attrs.get('distance', 'unknown')}")
        for part in ("train", "test"):
            if part not in f:
                sys.exit(f"{path}: no '{part}' dataset (ann-benchmarks' layout has train, test, neighbors, distances)")
            arr = np.ascontiguousarray(f[part][:], dtype=np.float32)
            np.save(os.path.join(d, part + ".npy"), arr)
            lines.append(f"{part}: {arr.shape[0]} x {arr.shape[1]} float32")
    with open(os.path.join(d, "SOURCE.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    if len(sys.argv) == 3 and sys.argv[1] in RECIPES:
        blobs(sys.argv[1], sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "hdf5":
        hdf5(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
