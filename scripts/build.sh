#!/usr/bin/env bash
# Configures and builds ampscope into build/ (or $AMPSCOPE_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMPSCOPE_BUILD_DIR:-$root/build}"
# CUDA parts build when nvcc is found; the toolkit usually lives in /usr/local/cuda.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
# The Python package's extension is built for the venv scripts/python_env.sh makes, when it exists.
python_args=()
if [ -x "$build/venv/bin/python" ]; then python_args=(-DPython_EXECUTABLE="$build/venv/bin/python"); fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${AMPSCOPE_BUILD_TYPE:-RelWithDebInfo}" "${python_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
