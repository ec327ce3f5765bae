#!/usr/bin/env bash
# Installs PyPI's scikit-learn (and h5py) into .cache/pyvec for
# scripts/vector_data.py; prints the PYTHONPATH to use. Only the vector
# benchmark's targets call it, never make test.
set -euo pipefail
py="$(cd "$(dirname "$0")/.." && pwd)/.cache/pyvec"
if [ ! -f "$py/sklearn/__init__.py" ] || [ ! -f "$py/h5py/__init__.py" ]; then
  echo "vector-deps: installing PyPI scikit-learn 1.9.1 and h5py 3.16.0 into $py" >&2
  pip=(python3 -m pip install -q --disable-pip-version-check --target "$py" scikit-learn==1.9.1 h5py==3.16.0)
  "${pip[@]}" >&2 2>/dev/null || "${pip[@]}" --break-system-packages >&2
fi
echo "$py"
