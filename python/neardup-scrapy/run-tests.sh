#!/usr/bin/env bash
# Tests the neardup-scrapy package with real parts: installs it (and the
# latest Scrapy, brotli) from this directory and PyPI into a venv (VENV,
# default /tmp/neardup-scrapy-venv), nginx with its brotli module from
# Debian's packages if missing (as root), then crawls a local nginx site
# (gzip, brotli) against a real `neardup serve` (NEARDUP_BIN or the
# repository's target/{release,debug}/neardup). With CI set, anything
# missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${VENV:-/tmp/neardup-scrapy-venv}
BROTLI_MODULE=/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ] || [ ! -e "$BROTLI_MODULE" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq nginx libnginx-mod-http-brotli-filter >/dev/null
  elif [ -n "${CI:-}" ]; then
    echo "run-tests.sh: nginx and libnginx-mod-http-brotli-filter are needed (apt-get as root)" >&2
    exit 1
  fi
fi

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check ".[brotli]"
"$VENV/bin/python" -c 'import scrapy, neardup_scrapy; print("scrapy", scrapy.__version__, "neardup_scrapy", neardup_scrapy.__version__)'

cd tests
"$VENV/bin/python" -m unittest -v test_breaker test_content_type test_crawl
