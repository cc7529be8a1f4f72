//! Google's robots.txt matching cases (google/robotstxt `robots_test.cc`,
//! `IsUserAgentAllowed`), translated into a table in
//! `testdata/robots/google_cases.rs`, run against the crawler's matcher
//! ([`neardup_crawl::frontier::RobotsRules`]). Prints the pass count; every case
//! must pass.

use neardup_crawl::frontier::RobotsRules;

include!("../testdata/robots/google_cases.rs");

#[test]
fn google_is_user_agent_allowed_cases_all_pass() {
    let cases = google_cases();
    let mut failed = Vec::new();
    for (name, robots, agent, url, want) in &cases {
        let got = RobotsRules::parse(robots.as_bytes(), agent).allowed(url);
        if got != *want {
            let short: String = url.chars().take(80).collect();
            failed.push(format!(
                "{name}: agent {agent:?} url {short:?}: want {want}, got {got}"
            ));
        }
    }
    println!(
        "google robots_test.cc IsUserAgentAllowed: {} of {} cases pass",
        cases.len() - failed.len(),
        cases.len()
    );
    assert!(cases.len() > 140, "the table lost cases: {}", cases.len());
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
}
