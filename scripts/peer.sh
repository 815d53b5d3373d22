#!/usr/bin/env bash
# Creates .venv-peer with NVIDIA's AIConfigurator (pinned: bench/peer/requirements.txt), the peer
# bench/serve_peer.py compares the serving model with. It runs offline once installed (its model
# configs and performance databases ship in the package). Not needed by the portal or the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv-peer/bin/python ] || "$PYTHON" -m venv .venv-peer
.venv-peer/bin/python -m pip install -q --disable-pip-version-check -r bench/peer/requirements.txt
