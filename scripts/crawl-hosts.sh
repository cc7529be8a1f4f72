#!/usr/bin/env bash
# Several polite hosts (issue 3, per-host frontier queues): Debian's
# python3.11-doc served by one nginx on 127.0.0.1, 127.0.0.2, ... (one
# port; each address is a host to the crawler, whose politeness is per
# host name), crawled by neardup with the DEFAULT politeness (one request
# in flight and 1 s between requests per host, robots.txt obeyed) and a
# page budget per host (`crawl.scope.max_pages_per_site`: each host has
# as many pages to fetch; a total budget is spent as links are queued,
# mostly on the first host's home page). Prints pages, seconds, pages/s.
#
# Usage: scripts/crawl-hosts.sh [HOSTS] [PAGES_PER_HOST]     (default 3 50)
#
# Needs the site unpacked by `scripts/crawl-bench.sh py` (same
# $CRAWL_BENCH_DIR, default target/crawl-bench/) and nginx. NEARDUP picks
# the binary (default: cargo build --release, honouring CARGO_TARGET_DIR).
# With per-host queues the crawl runs at about HOSTS pages/s (one request
# per second per host); with one global FIFO it fell behind once the first
# host's queued links outnumbered the fetch workers (docs/results.md, "Per-host frontier").
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CRAWL_BENCH_DIR:-$repo/target/crawl-bench}
hosts=${1:-3}
per_host=${2:-50}
port=18091
root="$cache/root/py/usr/share/doc/python3.11/html"
[ -d "$root" ] || { echo "no $root: run scripts/crawl-bench.sh py first" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ -z "${NEARDUP:-}" ]; then
    (cd "$repo" && cargo build --release --quiet --bin neardup)
    NEARDUP=${CARGO_TARGET_DIR:-$repo/target}/release/neardup
fi

work=$(mktemp -d)
dir="$work/nginx"
mkdir -p "$dir/tmp"
listen=""
seeds=()
for i in $(seq "$hosts"); do
    listen+="        listen 127.0.0.$i:$port;"$'\n'
    seeds+=(--seed "http://127.0.0.$i:$port/index.html")
done
cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
$listen        root $root;
        index index.html;
    }
}
EOF
"$NGINX" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf"
cleanup() {
    [ -s "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 50); do wget -q -O /dev/null "http://127.0.0.1:$port/index.html" && break; sleep 0.1; done

# Default politeness; loopback allowed; the page budget per host.
# The hosts serve the same site: each host past the first is a mirror, and
# a duplicate's links are followed for at most `duplicate_hops` in a row,
# so without raising it the mirrors stop after a level or two.
printf '[crawl]\nallow_private = true\n\n[crawl.scope]\nmax_pages_per_site = %d\nduplicate_hops = 100\n' \
    "$per_host" >"$work/hosts.toml"
start=$(date +%s.%N)
"$NEARDUP" --config "$work/hosts.toml" crawl "${seeds[@]}" --out "$work/out" --quiet --no-report \
    >"$work/stdout" 2>"$work/stderr" || { tail "$work/stderr" >&2; exit 1; }
end=$(date +%s.%N)
python3 - "$work/out/pages.jsonl" "$start" "$end" "$hosts" <<'EOF'
import json, sys, urllib.parse
pages, start, end, hosts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
per_host = {}
n = 0
for line in open(pages):
    p = json.loads(line)
    n += 1
    h = urllib.parse.urlsplit(p["url"]).hostname
    per_host[h] = per_host.get(h, 0) + 1
s = end - start
split = ", ".join(f"{h}: {c}" for h, c in sorted(per_host.items()))
print(f"{hosts} hosts: {n} pages.jsonl lines in {s:.1f} s = {n / s:.2f} pages/s ({split})")
EOF
