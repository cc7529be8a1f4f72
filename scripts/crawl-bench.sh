#!/usr/bin/env bash
# Crawl benchmark (issue 3): neardup vs wget and spider_cli on real
# documentation sites served by nginx on 127.0.0.1.
#
# Usage: scripts/crawl-bench.sh [SITE...]      SITE: py, rust (default both)
#
# What it does (idempotent; everything cached under $CRAWL_BENCH_DIR,
# default target/crawl-bench/):
#   1. installs nginx, wget and GNU time with apt-get if missing;
#   2. fetches Debian `python3.11-doc` (~530 HTML pages) and `rust-doc`
#      (~32,000 HTML pages, ~10,000 of them redirect stubs) with
#      `apt-get download` and unpacks them with `dpkg-deb -x` (once);
#   3. installs spider_cli with `cargo install spider_cli --locked --root
#      $CRAWL_BENCH_DIR/spider` if missing (slow: start it early, or set
#      SPIDER=/path/to/spider);
#   4. serves each site on 127.0.0.1 with its own generated nginx.conf
#      (ports 18081/18082, pid file in the cache dir, stopped on exit);
#   5. crawls each site with neardup (release binary, `--config
#      configs/crawl-bench.toml`: politeness off, dedup on), `wget
#      --recursive --no-parent` and `spider` (no dedup), each under
#      `/usr/bin/time -v`;
#   6. prints a markdown table: HTML pages reached, seconds, pages/s, MB/s,
#      peak RSS, and for neardup its duplicates, largest clusters and the
#      wild scores of its drops (scripts/wild-score.sh --verdicts: drop
#      precision and copy recall on ../shared/bench/wild's gold); then
#      checks that neardup reached every HTML page wget reached (wget's
#      saved files mapped back to URLs vs neardup's pages.jsonl final URLs)
#      and prints the missing ones.
#
# Environment: CRAWL_BENCH_DIR (cache), NEARDUP (binary; default: cargo
# build --release, honouring CARGO_TARGET_DIR), SPIDER (binary),
# SKIP_SPIDER=1 / SKIP_WGET=1 to leave a reference crawler out,
# CRAWL_CONFIG (neardup's config; default configs/crawl-bench.toml).
# The machine may be shared: run it several times and quote medians.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CRAWL_BENCH_DIR:-$repo/target/crawl-bench}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
sites=("$@")
[ ${#sites[@]} -eq 0 ] && sites=(py rust)

log() { printf '== %s\n' "$*" >&2; }

# --- 1. tools -----------------------------------------------------------
need_apt=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need_apt+=(nginx-light)
command -v wget >/dev/null || need_apt+=(wget)
[ -x /usr/bin/time ] || need_apt+=(time)
if [ ${#need_apt[@]} -gt 0 ]; then
    log "apt-get install ${need_apt[*]}"
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# --- 2. sites -----------------------------------------------------------
site_pkg() { case $1 in py) echo python3.11-doc ;; rust) echo rust-doc ;; *) return 1 ;; esac; }
site_root() {
    case $1 in
    py) echo "$cache/root/py/usr/share/doc/python3.11/html" ;;
    rust) echo "$cache/root/rust/usr/share/doc/rust-doc/html" ;;
    esac
}
site_port() { case $1 in py) echo 18081 ;; rust) echo 18082 ;; esac; }
for s in "${sites[@]}"; do
    pkg=$(site_pkg "$s") || { echo "unknown site $s (py, rust)" >&2; exit 2; }
    if [ ! -d "$(site_root "$s")" ]; then
        mkdir -p "$cache/debs" "$cache/root/$s"
        if ! ls "$cache/debs/${pkg}"_*.deb >/dev/null 2>&1; then
            log "apt-get download $pkg"
            (cd "$cache/debs" && apt-get download "$pkg")
        fi
        dpkg-deb -x "$(ls "$cache/debs/${pkg}"_*.deb | head -n1)" "$cache/root/$s"
    fi
done

# --- 3. crawlers --------------------------------------------------------
if [ -z "${NEARDUP:-}" ]; then
    log "cargo build --release"
    (cd "$repo" && cargo build --release --quiet --bin neardup)
    NEARDUP=${CARGO_TARGET_DIR:-$repo/target}/release/neardup
fi
SPIDER=${SPIDER:-$cache/spider/bin/spider}
if [ "${SKIP_SPIDER:-0}" != 1 ] && [ ! -x "$SPIDER" ]; then
    log "cargo install spider_cli (slow)"
    cargo install spider_cli --locked --root "$cache/spider" >"$cache/spider-install.log" 2>&1
fi

# --- 4. nginx -----------------------------------------------------------
serve() { # site -> starts nginx, prints its base URL
    local s=$1 dir="$cache/nginx-$1" port
    port=$(site_port "$s")
    mkdir -p "$dir/tmp"
    cat >"$dir/nginx.conf" <<EOF
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    keepalive_requests 100000;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $(site_root "$s");
        index index.html;
    }
}
EOF
    stop_nginx "$s"
    "$NGINX" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf"
}
stop_nginx() {
    local pid="$cache/nginx-$1/nginx.pid"
    if [ -s "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null; then
        kill "$(cat "$pid")"
        for _ in $(seq 50); do kill -0 "$(cat "$pid" 2>/dev/null || echo 0)" 2>/dev/null || break; sleep 0.1; done
    fi
    return 0
}
cleanup() { for s in "${sites[@]}"; do stop_nginx "$s"; done; }
trap cleanup EXIT

# --- 5. crawls ----------------------------------------------------------
# time_of FILE KEY: a field of /usr/bin/time -v output.
time_field() { sed -n "s/^[[:space:]]*$2: //p" "$1" | head -n1; }
secs() { # "Elapsed (wall clock) time (h:mm:ss or m:ss)" -> seconds
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<<"$1"
}
rows=()
row() { # name site pages bytes timefile extra
    local wall rss
    wall=$(secs "$(time_field "$5" 'Elapsed (wall clock) time (h:mm:ss or m:ss)')")
    rss=$(time_field "$5" 'Maximum resident set size (kbytes)')
    rows+=("$(awk -v n="$1" -v s="$2" -v p="$3" -v b="$4" -v w="$wall" -v r="$rss" -v x="$6" \
        'BEGIN { printf "| %s | %s | %d | %.1f | %.0f | %.1f | %.0f | %s |", s, n, p, w, p / w, b / 1e6 / w, r / 1024, x }')")
}

# neardup_stats RUN: "pages bytes" of 2xx HTML answers in pages.jsonl, the
# duplicate summary in RUN/neardup.dups, final URLs in RUN/neardup.urls.
neardup_stats() {
    python3 - "$1" <<'EOF'
import json, sys
run = sys.argv[1]
pages = total = 0
urls = []
for line in open(f"{run}/neardup/pages.jsonl"):
    p = json.loads(line)
    total += p.get("bytes") or 0
    ct = (p.get("content_type") or "").split(";")[0].strip().lower()
    if p.get("status") and 200 <= p["status"] < 300 and ct in ("text/html", "application/xhtml+xml"):
        pages += 1
        urls.append(p["final_url"])
open(f"{run}/neardup.urls", "w").write("".join(u + "\n" for u in urls))
dups = near = 0
for line in open(f"{run}/neardup/verdicts.jsonl"):
    v = json.loads(line)
    dups += v.get("verdict") == "duplicate"
    near += v.get("verdict") == "near_duplicate"
report = json.load(open(f"{run}/neardup/clusters.json"))
clusters = [c for site in report.get("sites", {}).values() for c in site.get("clusters", [])]
clusters += report.get("cross_site", [])
clusters.sort(key=lambda c: -c["size"])
with open(f"{run}/neardup.clusters", "w") as f:
    for c in clusters[:10]:
        f.write(f"  cluster of {c['size']}: kept {c['representative_url']}\n")
        for m in c["members"][1:4]:
            f.write(f"    {m['url']} {m['verdict']} by {m['detector']} ({m['similarity']:.2f})\n")
top = "/".join(str(c["size"]) for c in clusters[:3])
open(f"{run}/neardup.dups", "w").write(f"{dups} dup + {near} near dup; {len(clusters)} clusters, largest {top}")
print(pages, total)
EOF
}

# coverage RUN PORT: wget's saved HTML files mapped back to URL paths vs
# neardup's final URLs; prints the count and the first missing ones.
coverage() {
    python3 - "$1" "$2" <<'EOF'
import os, sys, urllib.parse
run, port = sys.argv[1], sys.argv[2]
root = f"{run}/wget/127.0.0.1:{port}"
def norm(path):
    path = urllib.parse.unquote(path)
    return path + "index.html" if path.endswith("/") else path
wget = set()
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith((".html", ".htm")):
            wget.add(norm("/" + os.path.relpath(os.path.join(d, f), root)))
ours = {norm(urllib.parse.urlsplit(u.strip()).path) for u in open(f"{run}/neardup.urls") if u.strip()}
missing = sorted(wget - ours)
print(f"wget HTML pages: {len(wget)}, neardup: {len(ours)}, reached by wget but not neardup: {len(missing)}")
for m in missing[:20]:
    print("  missing:", m)
open(f"{run}/missing.txt", "w").write("".join(m + "\n" for m in missing))
EOF
}

# wild SITE RUN: the crawl's drops scored against ../shared/bench/wild
# (scripts/wild-score.sh --verdicts: a drop is right when the dropped
# page's own content is in the page it matched), as one line for the table.
wild() {
    if [ ! -d "$repo/../shared/bench/wild" ]; then
        echo "wild: not scored (../shared/bench/wild missing)"
        return
    fi
    WILD_MIN_PRECISION=0 "$repo/scripts/wild-score.sh" --verdicts "$2/neardup/verdicts.jsonl" "$1" \
        >"$2/wild.txt" 2>"$2/wild.stderr" || { tail "$2/wild.stderr" >&2; exit 1; }
    tail -n 1 "$2/wild.txt" | awk '{ print "wild " $0 }'
}

for s in "${sites[@]}"; do
    port=$(site_port "$s")
    seed="http://127.0.0.1:$port/index.html"
    serve "$s"
    for _ in $(seq 50); do wget -q -O /dev/null "$seed" && break; sleep 0.1; done
    run="$cache/run-$s"
    rm -rf "$run"
    mkdir -p "$run"

    log "$s: neardup"
    /usr/bin/time -v -o "$run/neardup.time" "$NEARDUP" crawl --seed "$seed" --out "$run/neardup" \
        --config "${CRAWL_CONFIG:-$repo/configs/crawl-bench.toml}" --allow-private --max-frontier 1000000 \
        >"$run/neardup.stdout" 2>"$run/neardup.stderr" || { tail "$run/neardup.stderr" >&2; exit 1; }
    read -r pages bytes < <(neardup_stats "$run")
    row neardup "$s" "$pages" "$bytes" "$run/neardup.time" "$(cat "$run/neardup.dups"); $(wild "$s" "$run")"

    if [ "${SKIP_WGET:-0}" != 1 ]; then
        log "$s: wget"
        # wget exits 8 when some link answered 404: not a failure here.
        /usr/bin/time -v -o "$run/wget.time" wget --recursive --no-parent -q -P "$run/wget" "$seed" || true
        pages=$(find "$run/wget" -type f \( -name '*.html' -o -name '*.htm' \) | wc -l)
        bytes=$(du -sb "$run/wget" | cut -f1)
        row wget "$s" "$pages" "$bytes" "$run/wget.time" "no dedup; MB/s counts all files saved"
    fi

    if [ "${SKIP_SPIDER:-0}" != 1 ]; then
        log "$s: spider"
        (cd "$run" && /usr/bin/time -v -o "$run/spider.time" "$SPIDER" --url "$seed" crawl --output-links \
            >"$run/spider.links" 2>"$run/spider.stderr") || true
        pages=$(grep -c '\.html\?\b\|/$' "$run/spider.links" || true)
        row spider "$s" "$pages" 0 "$run/spider.time" "no dedup; links listed (bytes not reported)"
    fi
    stop_nginx "$s"

    if [ "${SKIP_WGET:-0}" != 1 ]; then
        coverage "$run" "$port" >"$run/coverage.txt"
    fi
done

# --- 6. report ----------------------------------------------------------
echo
echo "| site | crawler | HTML pages | s | pages/s | MB/s | peak RSS MB | notes |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
for s in "${sites[@]}"; do
    run="$cache/run-$s"
    echo
    echo "$s: neardup largest duplicate clusters"
    cat "$run/neardup.clusters"
    # Only with wget's run (SKIP_WGET=1 has none); an `[ ] && cat` here
    # made a successful benchmark exit 1.
    if [ -f "$run/coverage.txt" ]; then cat "$run/coverage.txt"; fi
done
