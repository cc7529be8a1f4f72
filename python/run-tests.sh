#!/usr/bin/env bash
# Builds the neardup wheel from this checkout into a venv (VENV, default
# /tmp/neardup-python-venv) with Scrapy, PySpark and warcio from PyPI, then
# runs the package's pytest suite. Java (for Spark) comes from Debian's
# packages if missing (as root). With CI set, anything missing fails the
# tests instead of skipping them (tests/conftest.py). Extra arguments go to
# pytest.
set -euo pipefail
cd "$(dirname "$0")"
VENV=${VENV:-/tmp/neardup-python-venv}

if ! command -v java >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq default-jre-headless >/dev/null
  else
    echo "run-tests.sh: Java is missing (Spark needs a JRE 17+: apt-get install default-jre-headless)" >&2
    [ -z "${CI:-}" ] || exit 1
  fi
fi
command -v java >/dev/null && java -version 2>&1 | head -n 1

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# maturin (from PyPI, in pip's build environment) compiles crates/python in
# release mode into the workspace's target/.
# The scrapy extra's neardup-scrapy (the middlewares' shared base) comes
# from this checkout, not PyPI.
"$VENV/bin/pip" install -q --disable-pip-version-check ./neardup-scrapy
"$VENV/bin/pip" install -q --disable-pip-version-check ".[scrapy,spark,test]"
"$VENV/bin/python" -c 'import neardup, pyspark, scrapy; print("neardup", neardup.__version__, "pyspark", pyspark.__version__, "scrapy", scrapy.__version__)'
# Lints and formatting of the package's Python (settings in pyproject.toml).
"$VENV/bin/ruff" check src tests bench
"$VENV/bin/ruff" format --check src tests bench
# Run from tests/ so that `import neardup` is the installed wheel.
cd tests
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
