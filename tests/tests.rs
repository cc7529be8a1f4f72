//! Integration tests: the real `neardup` binary, run in a fresh temporary
//! directory on fixtures from `testdata/` or files the tests write.
//!
//! Modules:
//! - `compare`: the compare command (graded separation, sizes) on hand-made data;
//! - `corrupt_index`: damaged index files in every command, `dedup --index` killed in a loop;
//! - `crawl`: the crawl loop and `neardup crawl --demo` against local servers;
//! - `crawl_robots`: robots.txt and request URLs vs keys in a crawl; the address guard;
//! - `crawl_manners`: robots directives, nofollow, sitemaps, proxy, status
//!   breakdown, progress lines, `--resume` with the saved config;
//! - `dedup`: outputs, warnings, determinism, config and detector flags;
//! - `eval`: the eval command on a tiny generated benchmark;
//! - `export`: `neardup export` read back with the parquet reader; errors;
//! - `extract`: text and JSON output of the extract command;
//! - `fetch`: the crawler's fetcher and robots cache against local servers;
//! - `html_oracle`: neardup's HTML parse against html5ever (scraper) on the real pages;
//! - `multiref`: the multi-reference cosine detector, train-reference, index recall;
//! - `odd_inputs`: stray NUL, binaries, gzip pages and bombs, FIFOs, --glob, stdin, --strict,
//!   clusters.tsv read back by the csv crate and Python, seeds with bad lines;
//! - `plugins`: each plugin detector finds the near copy; plugin settings;
//! - `report`: the report model, CSV, escaping, and the page in headless Chromium;
//! - `redirect_scope`: redirect hops refused by robots.txt or scope in a crawl;
//! - `redirect_stubs`: meta-refresh and one-link stubs: the library's verdict,
//!   the crawl following them as redirect hops;
//! - `robots_google`: Google's robots.txt matching cases, as a table;
//! - `pairs`: exact all-pairs Jaccard against brute force, and the pairs command;
//! - `redis`: the shared Redis index against a private redis-server;
//! - `score`: the Rust scorer against the Python reference scorer;
//! - `store`: the persistent index through the deduper and the binary, crash safety;
//! - `store_laws`: the law suite every document store obeys, on memory, redb and Redis;
//! - `serve`: the HTTP API on a real socket (`neardup_serve::run`);
//! - `serve_limits`: `serve` under hostile and faulty clients (slowloris,
//!   caps, 408/413, memory budget), readiness, logs, canonical links;
//! - `site`: the local test site (answers by path, requests recorded);
//! - `tidy`: the architecture as tests (crate layers, no I/O in the pure
//!   layers, no module cycles, no library function over 150 lines);
//! - `util`: temp dirs and running the binary.

mod bad_input;
mod cli;
mod compare;
mod corrupt_index;
mod crawl;
mod crawl_manners;
mod crawl_resume;
mod crawl_robots;
mod dedup;
mod eval;
mod export;
mod extract;
mod fetch;
mod html_oracle;
mod multiref;
mod odd_inputs;
mod pairs;
mod plugins;
mod redirect_scope;
mod redirect_stubs;
mod redis;
mod report;
mod robots_google;
mod score;
mod serve;
mod serve_limits;
mod site;
mod skip;
mod store;
mod store_laws;
mod tidy;
mod util;
mod verdict_schema;
mod verdicts;
mod warc_out;
