#!/usr/bin/env bash
# Installs what is needed (Debian packages; Python packages into build/venv), builds, and runs
# every test, C++ and Python (GPU tests skip without a device).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/python_env.sh"
"$root/scripts/build.sh"
cd "${AMPSCOPE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
