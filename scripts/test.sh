#!/usr/bin/env bash
# Installs everything the tests need (Debian's Chromium and nginx included) and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# nginx: the load balancer in front of two portal replicas (tests/test_replicas.py)
{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" fonts-liberation >/dev/null
fi

bash scripts/setup.sh dev
# Lint and formatting are part of the suite: CI holds them.
.venv/bin/ruff check .
.venv/bin/ruff format --check .
export BROWSER_PATH=${BROWSER_PATH:-/usr/bin/chromium}
# -m "": every test, the browser, portal and load tests too (a bare pytest leaves them out)
exec .venv/bin/python -m pytest -m "" "$@"
