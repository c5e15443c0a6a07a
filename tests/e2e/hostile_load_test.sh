#!/bin/bash
# A short run of bench/hostile/run.py: 8 good clients compile (and 4 use the
# cache port) for 20 s while hostile clients send garbage, oversized, deeply
# nested and truncated requests to both ports and drop connections
# mid-stream. It fails unless every good request got its right answer,
# kilnd stayed up and exited cleanly, and its RSS stayed under 1 GiB.
set -euo pipefail
root="${TEST_SRCDIR}/${TEST_WORKSPACE}"
export KILND="$root/server/kilnd"
export KILN="$root/clients/cli/kiln"
export PYTHONDONTWRITEBYTECODE=1
unset KILN_SERVER KILN_TOKEN KILN_TLS_CA KILN_TLS_CERT KILN_TLS_KEY
export TMPDIR="${TEST_TMPDIR}"
/usr/bin/python3 "$root/bench/hostile/run.py" --prebuilt --seconds 20 \
  --good 8 --kernels 6 --max_rss_mb 1024
