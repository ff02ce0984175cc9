#!/usr/bin/env bash
# Makes the Python environment the build and the tests use: a venv in build/venv (or
# $AMPSCOPE_BUILD_DIR/venv) with nanobind and scikit-build-core (to build the package) and pytest,
# pandas and dask (to test it), from PyPI. Idempotent: reinstalls only when
# python/requirements-dev.txt changed. Prints nothing on success but one line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMPSCOPE_BUILD_DIR:-$root/build}"
venv="$build/venv"
requirements="$root/python/requirements-dev.txt"
stamp="$venv/.ampscope-requirements"
python="${AMPSCOPE_PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$build"
  "$python" -m venv "$venv"
fi
if [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  echo "python_env: $venv is up to date"
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
echo "python_env: $venv filled from $requirements"
