//! Google's robots.txt test suite (google/robotstxt `robots_test.cc`), in
//! full, against what the crawler uses: every `IsUserAgentAllowed` case
//! against its matcher ([`RobotsRules`]); `IsValidUserAgentToObey` against
//! the product-token check of `crawl.robots_token`; the parser suites
//! (`ParseRobotsTxt` line counting, byte order marks, `Sitemap:` lines)
//! against the `robotstxt` crate's parser fed through the crawler's
//! [`robots_text`] (and the sitemaps through [`RobotsRules::sitemaps`]);
//! `GetPathParamsQuery` and `MaybeEscapePattern` against the crate's
//! functions the matcher calls.
//!
//! The table, `testdata/robots/google_cases.rs`, is generated from the C++
//! file by `scripts/robots-google-cases.py` (which stops on any statement
//! it does not understand, so an upstream change cannot be skipped
//! silently); rerun it on the current upstream file to pull a change in.
//! Prints the number of cases of each suite run; every case must pass.
//!
//! One deliberate choice is tested on top (not a divergence: Google's
//! cases all pass): percent-encoded unreserved characters are also
//! compared decoded (RFC 9309 2.2.2), and a URL is fetched only if both
//! readings allow it (see `crates/crawl/src/frontier/robots_rules.rs`).

use neardup_crawl::frontier::robots_rules::{robots_text, valid_product_token};
use neardup_crawl::frontier::RobotsRules;

include!("../testdata/robots/google_cases.rs");

/// Google's `RobotsStatsReporter`: counts directives and remembers the
/// last line number seen and the sitemap.
#[derive(Default)]
struct StatsReporter {
    last_line_seen: u32,
    valid_directives: u32,
    unknown_directives: u32,
    sitemap: String,
    /// Line numbers went backwards (Google's `ASSERT_GE` in `Digest`).
    backwards: bool,
}

impl StatsReporter {
    fn digest(&mut self, line: u32) {
        self.backwards |= line < self.last_line_seen;
        self.last_line_seen = line;
        self.valid_directives += 1;
    }
}

impl robotstxt::RobotsParseHandler for StatsReporter {
    fn handle_robots_start(&mut self) {
        *self = StatsReporter::default();
    }
    fn handle_robots_end(&mut self) {}
    fn handle_user_agent(&mut self, line: u32, _: &str) {
        self.digest(line);
    }
    fn handle_allow(&mut self, line: u32, _: &str) {
        self.digest(line);
    }
    fn handle_disallow(&mut self, line: u32, _: &str) {
        self.digest(line);
    }
    fn handle_sitemap(&mut self, line: u32, value: &str) {
        self.digest(line);
        self.sitemap.push_str(value);
    }
    fn handle_unknown_action(&mut self, line: u32, _: &str, _: &str) {
        self.last_line_seen = line;
        self.unknown_directives += 1;
    }
}

/// The failures of the `ParseRobotsTxt` cases.
fn parse_case_failures(cases: &[ParseCase]) -> Vec<String> {
    let mut failed = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut report = StatsReporter::default();
        robotstxt::parse_robotstxt(&robots_text(&case.body), &mut report);
        let mut check = |what: &str, want: Option<u32>, got: u32| {
            if want.is_some_and(|w| w != got) {
                failed.push(format!(
                    "{} #{i} {what}: want {want:?}, got {got}",
                    case.test
                ));
            }
        };
        check(
            "valid_directives",
            case.valid_directives,
            report.valid_directives,
        );
        check(
            "unknown_directives",
            case.unknown_directives,
            report.unknown_directives,
        );
        check("last_line_seen", case.last_line_seen, report.last_line_seen);
        if report.backwards {
            failed.push(format!("{} #{i}: line numbers went backwards", case.test));
        }
        if let Some(want) = &case.sitemap {
            let rules = RobotsRules::parse(&case.body, "foo");
            if report.sitemap != *want || rules.sitemaps() != [want.clone()] {
                failed.push(format!(
                    "{} #{i} sitemap: want {want:?}, got {:?} and {:?}",
                    case.test,
                    report.sitemap,
                    rules.sitemaps()
                ));
            }
        }
    }
    failed
}

#[test]
fn google_robots_test_cc_passes_in_full() {
    let mut failed = Vec::new();

    let cases = google_cases();
    for (name, robots, agent, url, want) in &cases {
        let got = RobotsRules::parse(robots.as_bytes(), agent).allowed(url);
        if got != *want {
            let short: String = url.chars().take(80).collect();
            failed.push(format!(
                "{name}: agent {agent:?} url {short:?}: want {want}, got {got}"
            ));
        }
    }
    let agents = google_valid_user_agents();
    for (name, agent, want) in &agents {
        if valid_product_token(agent) != *want {
            failed.push(format!("{name}: token {agent:?}: want valid={want}"));
        }
    }
    let parses = google_parse_cases();
    failed.extend(parse_case_failures(&parses));
    let paths = google_paths();
    for (name, url, want) in &paths {
        let got = robotstxt::get_path_params_query(url);
        if got != *want {
            failed.push(format!("{name}: {url:?}: want {want:?}, got {got:?}"));
        }
    }
    let escapes = google_escapes();
    for (name, pattern, want) in &escapes {
        let got = robotstxt::parser::escape_pattern(pattern);
        if got != *want {
            failed.push(format!("{name}: {pattern:?}: want {want:?}, got {got:?}"));
        }
    }

    let total = cases.len() + agents.len() + parses.len() + paths.len() + escapes.len();
    println!(
        "google robots_test.cc: {} of {total} cases pass ({} IsUserAgentAllowed, {} \
         IsValidUserAgentToObey, {} ParseRobotsTxt, {} GetPathParamsQuery, {} \
         MaybeEscapePattern)",
        total - failed.len(),
        cases.len(),
        agents.len(),
        parses.len(),
        paths.len(),
        escapes.len()
    );
    // The counts the generator wrote in the table's header are the table's
    // (a hand edit that drops or adds cases shows here).
    let header = include_str!("../testdata/robots/google_cases.rs")
        .lines()
        .find_map(|l| l.strip_prefix("// Counts: "))
        .expect("the generated header has a Counts line");
    let written = format!(
        "{} IsUserAgentAllowed, {} IsValidUserAgentToObey, {} ParseRobotsTxt, {} \
         GetPathParamsQuery, {} MaybeEscapePattern.",
        cases.len(),
        agents.len(),
        parses.len(),
        paths.len(),
        escapes.len()
    );
    assert_eq!(header, written);
    // The table of commit c8ac4b1 has 145 + 11 + 12 + 19 + 4 cases: a
    // regenerated table may grow, never shrink by accident.
    assert!(cases.len() >= 145, "the table lost cases: {}", cases.len());
    assert!(total >= 191, "the table lost cases: {total}");
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
}

/// The two groups forms of `ID_LineSyntax_Groups_OtherRules` with this
/// crawler's own token and a Crawl-delay, as in the issue that found them.
#[test]
fn other_lines_between_agent_lines_keep_one_group() {
    let robots = "User-agent: neardup\nCrawl-delay: 10\nUser-agent: *\nDisallow: /\n";
    let rules = RobotsRules::parse(robots.as_bytes(), "neardup");
    assert!(!rules.allowed("http://e.com/"));
    assert!(!rules.allowed("http://e.com/page.html"));
    assert_eq!(rules.crawl_delay(), Some(10.0));
}
