//! Raw command-line arguments, as clap parses them. Nothing here is
//! validated beyond syntax: [`super::setup::load_config`] turns them into
//! a checked [`neardup::Config`], the only thing the library sees.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use neardup::IndexLocation;

/// neardup: find and drop near-duplicate web pages.
///
/// Exit status: 0 on success, 2 on any error (bad arguments or config,
/// unreadable input, unwritable output).
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, long_about = None)]
pub struct Args {
    /// Analysis threads; 0 uses one per core.
    #[arg(long, global = true, default_value_t = 0, value_name = "N")]
    pub threads: usize,

    /// Configuration file (TOML, see configs/default.toml); missing keys
    /// take their defaults.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check every page of the inputs, in order; write verdicts.jsonl,
    /// clusters.tsv and clusters.json.
    Dedup(DedupArgs),
    /// Run dedup over a labeled benchmark (manifest.tsv, labels.tsv,
    /// order.txt) and score it like score.py.
    Eval(EvalArgs),
    /// Print the text neardup compares for each page.
    Extract(ExtractArgs),
    /// Score a predictions file against labels, exactly like score.py.
    Score(ScoreArgs),
    /// Serve the HTTP/JSON API (docs/openapi.json) over a persistent index
    /// (./neardup-index.redb unless --index or --in-memory).
    Serve(ServeArgs),
    /// Send generated pages to a running `neardup serve` from concurrent
    /// clients; print throughput and latency as JSON.
    Load(LoadArgs),
    /// Print every pair of pages whose word-shingle sets have Jaccard >= J,
    /// exactly (inverted-index join with length filtering).
    Pairs(PairsArgs),
    /// Crawl from seed URLs with dedup in the loop; write pages.jsonl,
    /// verdicts.jsonl, clusters.tsv and clusters.json. `--demo` crawls two
    /// built-in local sites and prints their duplicate report.
    Crawl(CrawlArgs),
    /// Write report.html (self-contained: overview, sites, clusters with a
    /// side-by-side diff), sites.csv and clusters.csv for a dedup or crawl
    /// output directory. `dedup` and `crawl` run it themselves.
    Report(ReportArgs),
    /// Train a multi-reference cosine reference text with the genetic
    /// algorithm (Mohammadi and Khasteh 2020) and write it to a file.
    TrainReference(TrainReferenceArgs),
    /// Print the detector comparison tables of docs/detectors.md (Markdown):
    /// signature and index bytes per page on a benchmark, and the
    /// Clough-Stevenson graded separation.
    Compare(CompareArgs),
    /// Describe the detector chain in force (config and --detector): each
    /// detector in order with what its settings imply, e.g. the minhash
    /// LSH index's candidate threshold and S-curve.
    Detectors(DetectorsArgs),
    /// Write every page of an index (its URL, site and signatures) to a
    /// Parquet file, one row per page in doc-id order, for Spark,
    /// DataFusion or DuckDB (docs/scaling.md).
    Export(ExportArgs),
    /// Print a shell completion script to standard output, e.g.
    /// `neardup completions bash > /etc/bash_completion.d/neardup` or
    /// `neardup completions zsh > "${fpath[1]}/_neardup"`.
    Completions(CompletionsArgs),
}

/// `neardup completions`.
#[derive(Debug, ClapArgs)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `neardup export`.
#[derive(Debug, ClapArgs)]
pub struct ExportArgs {
    /// The index: a redb file written by `serve`, `dedup --index` or a
    /// crawl (DIR/index.redb), or a shared Redis index
    /// `redis://HOST:PORT[/DB][?ns=NAME]`. Opened with the detector chain
    /// and signature settings of the config, like `serve`; never created.
    #[arg(long, value_name = "PATH|URL", value_parser = IndexParser)]
    pub index: IndexLocation,

    /// The Parquet file to write (replaced only once complete).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,

    /// The detector chain the index was built with.
    #[command(flatten)]
    pub detectors: DetectorArgs,
}

/// `neardup detectors`.
#[derive(Debug, ClapArgs)]
pub struct DetectorsArgs {
    /// The detector chain to describe (default: the config's).
    #[command(flatten)]
    pub detectors: DetectorArgs,
}

/// `neardup compare`.
#[derive(Debug, ClapArgs)]
pub struct CompareArgs {
    /// Benchmark directory (manifest.tsv): bytes per page of each
    /// detector's signature and index.
    #[arg(long, value_name = "DIR")]
    pub bench: Option<PathBuf>,

    /// Clough-Stevenson data directory (file_information.csv, the answers
    /// and orig_task*.txt): per-grade similarity and separation.
    #[arg(long, value_name = "DIR")]
    pub clough: Option<PathBuf>,

    /// The detectors to compare, each alone (default: every registered one).
    #[command(flatten)]
    pub detectors: DetectorArgs,
}

/// `neardup crawl`.
#[derive(Debug, ClapArgs)]
pub struct CrawlArgs {
    /// Seed list: one URL per line, `#` comments, blank lines ignored.
    #[arg(long, value_name = "FILE")]
    pub seeds: Option<PathBuf>,

    /// A seed URL; repeat for more.
    #[arg(long = "seed", value_name = "URL")]
    pub seed: Vec<String>,

    /// Output directory (created if needed); `--demo` defaults to
    /// `neardup-demo`.
    #[arg(long, short, value_name = "DIR", required_unless_present_any = ["demo", "resume"])]
    pub out: Option<PathBuf>,

    /// Continue the interrupted crawl in DIR with the config it saved in
    /// DIR/config.toml (a --config or --detector given as well must match
    /// it); seeds come from its state.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["seeds", "seed", "demo", "out"])]
    pub resume: Option<PathBuf>,

    /// Also write the fetched responses to this WARC/1.1 file (gzip per
    /// record when it ends in .gz); duplicates become revisit records.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub warc_out: Option<PathBuf>,

    /// Checkpoint the crawl state after this many decided pages (or
    /// --checkpoint-secs, whichever comes first). Each checkpoint fsyncs
    /// and rewrites the whole state: every 100 pages halved the speed of
    /// a 21,000-page crawl. [default: crawl.limits.checkpoint_pages, 10000]
    #[arg(long, value_name = "N")]
    pub checkpoint_pages: Option<u64>,

    /// Checkpoint the crawl state at least this often (seconds).
    /// [default: crawl.limits.checkpoint_secs, 10]
    #[arg(long, value_name = "SECS")]
    pub checkpoint_secs: Option<f64>,

    /// Largest number of pages fetched but not yet decided (0: four per
    /// fetch worker). [default: crawl.limits.max_in_flight, 0]
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<usize>,

    /// Response bodies held in memory at once, fetched but not yet
    /// analyzed, in MiB: fetches wait for room before reading a body.
    /// [default: crawl.limits.max_body_memory_mib, 64]
    #[arg(long, value_name = "MIB")]
    pub max_body_memory: Option<usize>,

    /// Fetch private, loopback and link-local addresses too.
    #[arg(long)]
    pub allow_private: bool,

    /// Send every request through this HTTP proxy (`http://HOST:PORT`);
    /// sets `crawl.fetch.proxy`. Private targets stay refused unless
    /// --allow-private.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,

    /// When stderr is not a terminal, print a progress line this often
    /// (seconds; 0: never). On a terminal a progress bar is shown instead.
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    pub progress_secs: f64,

    /// Serve the built-in demo sites on 127.0.0.1, crawl them and print
    /// the per-site duplicate report.
    #[arg(long, conflicts_with_all = ["seeds", "seed"])]
    pub demo: bool,

    /// Largest number of URLs waiting in the frontier.
    /// [default: crawl.limits.max_frontier, 100000]
    #[arg(long, value_name = "N")]
    pub max_frontier: Option<usize>,

    /// Index: a redb file (created if missing), or a shared Redis index
    /// `redis://HOST:PORT[/DB][?ns=NAME]` that several processes use at
    /// once (docs/redis.md). Must be reopened with the same detector chain
    /// and signature settings.
    #[arg(long, value_name = "PATH|URL", value_parser = IndexParser)]
    pub index: Option<IndexLocation>,

    /// The detector chain.
    #[command(flatten)]
    pub detectors: DetectorArgs,

    /// No summary or report on stderr/stdout.
    #[arg(long, short)]
    pub quiet: bool,

    /// Do not write report.html, sites.csv and clusters.csv at the end.
    #[arg(long)]
    pub no_report: bool,
}

/// `neardup report`.
#[derive(Debug, ClapArgs)]
pub struct ReportArgs {
    /// Output directory of a `dedup` or `crawl` run (holds clusters.json
    /// and verdicts.jsonl); the report files are written there.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Detector chain override, shared by the commands that detect.
#[derive(Debug, ClapArgs)]
pub struct DetectorArgs {
    /// Detector to run, in chain order; repeat for a chain
    /// (`--detector exact --detector simhash`). Replaces decide.detectors.
    /// Built-in: exact, simhash, chunks; plugins: minhash, min_n, mod_n,
    /// bsw, sentence, multiref (settings in [plugins.NAME]).
    #[arg(long = "detector", value_name = "NAME")]
    pub detectors: Vec<String>,
}

/// `neardup dedup`.
#[derive(Debug, ClapArgs)]
pub struct DedupArgs {
    /// Inputs: directories of HTML files, manifest .tsv files (doc_id, url,
    /// path), WARC/ARC files. Read in the order given. `-` reads a manifest
    /// from standard input (paths relative to the current directory).
    /// Page files compressed with gzip are decompressed.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Output directory (created if needed).
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,

    /// The detector chain.
    #[command(flatten)]
    pub detectors: DetectorArgs,

    /// Persistent index: a redb file (created if missing), or a shared
    /// Redis index `redis://HOST:PORT[/DB][?ns=NAME]` that several
    /// processes use at once (docs/redis.md). Pages of earlier runs are
    /// matched too, and kept pages are added to it. Must be reopened with
    /// the same detector chain and signature settings.
    #[arg(long, value_name = "PATH|URL", value_parser = IndexParser)]
    pub index: Option<IndexLocation>,

    /// No progress bar, summary or per-page warnings on stderr.
    #[arg(long, short)]
    pub quiet: bool,

    /// Do not write report.html, sites.csv and clusters.csv at the end.
    #[arg(long)]
    pub no_report: bool,

    /// Which files of a directory input are pages, ripgrep-style: `*`, `?`
    /// and `[...]` within a path component, `**` across; a glob without `/`
    /// matches file names, one with `/` the path under the directory; a
    /// leading `!` excludes. Repeatable. Without an including glob:
    /// HTML-ish and .txt extensions, extensionless files, and those
    /// gzipped (`page.html.gz`).
    #[arg(long = "glob", short = 'g', value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Exit with status 1 when any input record could not be read (by
    /// default the run goes on, exits 0 and the summary counts them).
    #[arg(long)]
    pub strict: bool,
}

/// `neardup eval`.
#[derive(Debug, ClapArgs)]
pub struct EvalArgs {
    /// Benchmark directory holding manifest.tsv, labels.tsv and order.txt.
    #[arg(value_name = "BENCH_DIR")]
    pub bench: PathBuf,

    /// Also keep the output files (verdicts.jsonl, clusters.*) here.
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// The detector chain.
    #[command(flatten)]
    pub detectors: DetectorArgs,

    /// No progress bar or per-page warnings on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Which text `extract` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Main content only.
    Main,
    /// All visible text.
    Full,
}

/// `neardup extract`.
#[derive(Debug, ClapArgs)]
pub struct ExtractArgs {
    /// HTML files (gzip-compressed ones are decompressed).
    #[arg(required_unless_present = "eval", value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Measure main-content quality instead: DIR holds one folder per page
    /// with `source.html` and the hand-checked `expected.html` (readability's
    /// test-pages layout). Prints token precision/recall/F1 per page and the
    /// macro averages.
    #[arg(long, value_name = "DIR", conflicts_with = "files")]
    pub eval: Option<PathBuf>,

    /// One JSON object per file: title, language, canonical, robots, link
    /// count, warnings and every block with its tag, link density, whether
    /// it is main content and its role when the page is judged: the files
    /// are taken as pages of one site, in the order given, and a block the
    /// earlier files repeat is `template` (never compared), a block outside
    /// a page's article is `chrome`, the rest is `compared` (what must be in
    /// a kept page for this page to be dropped; see `basis`); `policy` adds
    /// what else the drop policy reads: the page's name words, language,
    /// main-content words and basis.
    #[arg(long)]
    pub json: bool,

    /// Text to print; defaults to extract.mode of the config.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
}

/// `neardup score`.
#[derive(Debug, ClapArgs)]
pub struct ScoreArgs {
    /// Gold labels.tsv (columns doc_id, cluster_id, optional kind).
    #[arg(value_name = "LABELS")]
    pub labels: PathBuf,

    /// Predictions: TSV `doc_id<TAB>cluster_id` (header optional) or JSON lines.
    #[arg(value_name = "PRED")]
    pub pred: PathBuf,

    /// Crawl order file; default order.txt beside the labels.
    #[arg(long, value_name = "FILE")]
    pub order: Option<PathBuf>,
}

/// `neardup serve`.
#[derive(Debug, ClapArgs)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the bound address is
    /// printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8686", value_name = "ADDR")]
    pub listen: String,

    /// Bearer token required on every endpoint but /healthz.
    #[arg(long, env = "NEARDUP_TOKEN", hide_env_values = true, value_name = "T")]
    pub token: Option<String>,

    /// Largest request body in bytes (413 above).
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    pub max_body: usize,

    /// Per-request time limit in milliseconds, counted once the body has
    /// arrived (504 after).
    #[arg(long, default_value_t = 30_000, value_name = "N")]
    pub timeout_ms: u64,

    /// Time allowed for uploading a request body, in milliseconds from the
    /// end of its headers (408 after).
    #[arg(long, default_value_t = 30_000, value_name = "N")]
    pub body_timeout_ms: u64,

    /// Bytes of request bodies held in memory at once, over all requests
    /// (503 with Retry-After above; raised to --max-body if smaller).
    #[arg(long, default_value_t = 256 << 20, value_name = "BYTES")]
    pub max_body_memory: usize,

    /// Time allowed for a request's headers once its first byte arrived, in
    /// milliseconds (the connection is closed after).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub header_timeout_ms: u64,

    /// Time a connection may stay open with no request in progress
    /// (keep-alive included), in milliseconds (closed after).
    #[arg(long, default_value_t = 60_000, value_name = "N")]
    pub idle_timeout_ms: u64,

    /// Open connections allowed per client IP address (one more is
    /// answered 503 and closed).
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_connections_per_address: usize,

    /// Requests in flight before new ones get 503.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_concurrency: usize,

    /// Most pages in one batch request.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_batch: usize,

    /// Index: a redb file (created if missing; reopening continues where
    /// the last server stopped), or a shared Redis index
    /// `redis://HOST:PORT[/DB][?ns=NAME]` that several processes use at
    /// once (docs/redis.md). Must be reopened with the same detector chain
    /// and signature settings.
    #[arg(
        long,
        value_name = "PATH|URL",
        value_parser = IndexParser,
        default_value = DEFAULT_SERVE_INDEX,
        conflicts_with = "in_memory"
    )]
    pub index: IndexLocation,

    /// Keep the index in memory only: nothing is written to disk and
    /// everything is forgotten when the server stops.
    #[arg(long)]
    pub in_memory: bool,

    /// The detector chain.
    #[command(flatten)]
    pub detectors: DetectorArgs,
}

/// Parses `--index` into an [`IndexLocation`] (one parser for every
/// command): a `scheme://` value must be a Redis URL, anything else is a
/// file path. Its errors do not echo the value as clap's own do: a Redis
/// URL may carry a password, which [`IndexLocation::parse`] hides.
#[derive(Clone, Copy, Debug)]
pub struct IndexParser;

impl clap::builder::TypedValueParser for IndexParser {
    type Value = IndexLocation;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<IndexLocation, clap::Error> {
        // Not UTF-8: not a URL, so a file path (kept byte for byte).
        let Some(text) = value.to_str() else {
            return Ok(IndexLocation::File(PathBuf::from(value)));
        };
        IndexLocation::parse(text).map_err(|e| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid {e} (--index)\n"),
            )
            .with_cmd(cmd)
        })
    }
}

/// Where `neardup serve` keeps its index unless told otherwise: a redb file
/// in the working directory, so a restarted server continues.
pub const DEFAULT_SERVE_INDEX: &str = "neardup-index.redb";

/// `neardup load`.
#[derive(Debug, ClapArgs)]
pub struct LoadArgs {
    /// Base URL of the server.
    #[arg(long, default_value = "http://127.0.0.1:8686", value_name = "URL")]
    pub target: String,

    /// Concurrent clients.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub clients: usize,

    /// Requests in all.
    #[arg(long, default_value_t = 10_000, value_name = "M")]
    pub requests: usize,

    /// Approximate HTML bytes per page.
    #[arg(long, default_value_t = 10_000, value_name = "BYTES")]
    pub page_bytes: usize,

    /// Share of each page's bytes that is article text (the rest is
    /// navigation links and an inline script); real pages are ~0.1.
    #[arg(long, default_value_t = 1.0, value_name = "P")]
    pub text_share: f64,

    /// Share of requests repeating an earlier page (exact or near copy).
    #[arg(long, default_value_t = 0.3, value_name = "P")]
    pub duplicate_share: f64,

    /// Stop after this many seconds even if requests remain.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub max_seconds: u64,

    /// Seed of the page generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Bearer token for the server.
    #[arg(long, env = "NEARDUP_TOKEN", hide_env_values = true, value_name = "T")]
    pub token: Option<String>,

    /// Words of the generated article text.
    #[arg(long, value_enum, default_value_t = neardup_cli::load::LoadWords::English)]
    pub words: neardup_cli::load::LoadWords,

    /// Send each page as its HTML bytes to `POST /v1/check/raw` (the URL
    /// in the query, `Content-Type: text/html; charset=utf-8`) instead of
    /// as JSON to `POST /v1/check`.
    #[arg(long)]
    pub raw: bool,
}

/// `neardup pairs`.
#[derive(Debug, ClapArgs)]
pub struct PairsArgs {
    /// Inputs: directories of HTML files, manifest .tsv files, WARC/ARC
    /// files; with `--text`, plain-text files or directories of them.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Jaccard threshold J in (0, 1].
    #[arg(long, short = 'j', default_value_t = 0.9, value_name = "J")]
    pub threshold: f64,

    /// Shingle size in terms (main-text terms after normalization).
    #[arg(long, short = 'k', default_value_t = 5, value_name = "K")]
    pub shingle: usize,

    /// Add the repetition-weighted length bound of Azgomi et al. (a
    /// heuristic: it may lose pairs; the counters say how many).
    #[arg(long)]
    pub weighted_length: bool,

    /// No length filter at all: score every pair sharing a shingle.
    #[arg(long, conflicts_with = "weighted_length")]
    pub no_length_filter: bool,

    /// Use the paper's length-sorted scan (sorted-merge comparisons, no
    /// index) instead of the inverted-index join.
    #[arg(long)]
    pub scan: bool,

    /// Stop walking posting lists at the length window: faster, but the
    /// unfiltered counters are not known.
    #[arg(long)]
    pub no_unfiltered_count: bool,

    /// Inputs are plain-text files (UTF-8; invalid bytes replaced), not
    /// pages: no decoding or main-content extraction, only normalization.
    #[arg(long)]
    pub text: bool,

    /// One JSON object per pair on stdout, and the counters as one JSON
    /// object on stderr.
    #[arg(long)]
    pub json: bool,
}

/// `neardup train-reference`.
#[derive(Debug, ClapArgs)]
pub struct TrainReferenceArgs {
    /// Corpus: directories of HTML files, manifest .tsv files, WARC/ARC
    /// files; with `--text`, plain-text files or directories of them.
    #[arg(required = true, value_name = "CORPUS")]
    pub inputs: Vec<PathBuf>,

    /// Where to write the reference.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,

    /// Seed of every random draw (same seed and corpus: same file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Generations.
    #[arg(long, default_value_t = 50)]
    pub generations: usize,

    /// Reference texts per generation.
    #[arg(long, default_value_t = 20)]
    pub population: usize,

    /// Parts of the reference (signature length).
    #[arg(long, default_value_t = 150)]
    pub parts: usize,

    /// 3-grams in the reference.
    #[arg(long, default_value_t = 1000)]
    pub length: usize,

    /// Documents sampled from each split for the fitness (all pairs).
    #[arg(long, default_value_t = 80)]
    pub sample: usize,

    /// Inputs are plain-text files (UTF-8; invalid bytes replaced), not
    /// pages: no decoding or main-content extraction, only normalization.
    #[arg(long)]
    pub text: bool,
}
