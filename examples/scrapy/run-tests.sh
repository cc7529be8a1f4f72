#!/usr/bin/env bash
# Runs the Scrapy middleware tests against a real `neardup serve`: installs
# Scrapy from PyPI into a venv (VENV, default /tmp/neardup-scrapy-venv) and
# uses NEARDUP_BIN or the repository's target/{release,debug}/neardup.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${VENV:-/tmp/neardup-scrapy-venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import scrapy" 2>/dev/null || "$VENV/bin/pip" install -q scrapy
"$VENV/bin/python" -m unittest -v test_neardup_scrapy
