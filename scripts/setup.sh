#!/usr/bin/env bash
# Creates .venv at the repository root and installs the project into it, pinned by requirements.lock.
# Usage: scripts/setup.sh [dev]   ("dev" adds the test tools)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; assert sys.version_info[:2] >= (3, 11)' 2>/dev/null; then
  echo "Python 3.11 or newer is needed as '$PYTHON'." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  if ! "$PYTHON" -m venv .venv 2>/dev/null; then
    # Debian ships venv separately; install it when we are allowed to.
    rm -rf .venv
    if [ "$(id -u)" = 0 ]; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    else
      sudo apt-get update -qq && sudo apt-get install -y -qq python3-venv >/dev/null
    fi
    "$PYTHON" -m venv .venv
  fi
fi
extra=""
[ "${1:-}" = "dev" ] && extra="[dev]"
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e ".${extra}"
