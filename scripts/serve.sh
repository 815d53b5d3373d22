#!/usr/bin/env bash
# Installs what the portal needs and starts it on the bundled catalogue: http://127.0.0.1:8501
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/streamlit run app/main.py "$@"
