#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test (GPU tests skip without a device).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh"
cd "${AMPSCOPE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
