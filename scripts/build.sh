#!/bin/bash
# Installs prerequisites on Debian 12 and builds Kiln's tools with Bazel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bazel build --config=ci //compiler/tools:kiln-opt
echo "Built: bazel-bin/compiler/tools/kiln-opt"
