//! A crawler frontier embedding the deduper with nothing but the core
//! crate: `cargo run -p neardup --example embed`. Its dependency tree is
//! what a crawler pulls in (`cargo tree -p neardup -e normal`): no HTTP,
//! no CLI, no server crates.
//!
//! Three fetched pages: an article, the same article under a print URL
//! with a date changed, and another article. The frontier keeps what the
//! deduper keeps and drops the rest, saying which page each copy matched.

use neardup::{Config, Deduper, Verdict};

fn page(title: &str, date: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/news\">News</a></nav>\
         <article><h1>{title}</h1><p class=\"date\">{date}</p><p>{body}</p></article>\
         <footer>Copyright Example News</footer></body></html>"
    )
}

fn main() -> Result<(), neardup::Error> {
    let solar = "The town council approved the solar farm on the old quarry site after \
        two years of hearings. Panels will cover forty hectares and feed the regional grid; \
        the operator promised to restore the pond and plant hedges along the footpath. \
        Residents who opposed the plan worried about traffic during construction.";
    let bridge = "Engineers closed the river bridge for three weeks of repairs to its \
        steel bearings, which inspectors found corroded last spring. Buses will detour \
        through the industrial estate, and the ferry adds evening crossings until the \
        bridge reopens before the school term begins.";
    let fetched = [
        (
            "https://news.example/solar",
            page("Solar farm approved", "3 May", solar),
        ),
        (
            "https://news.example/print/solar?ref=rss",
            page("Solar farm approved", "4 May", solar),
        ),
        (
            "https://news.example/bridge",
            page("Bridge closed for repairs", "5 May", bridge),
        ),
    ];

    let mut deduper = Deduper::new(Config::default())?;
    let mut index = Vec::new();
    for (url, html) in &fetched {
        let verdict: Verdict = deduper.check(url, html.as_bytes(), Some("text/html"))?;
        match verdict.matched.as_ref().filter(|_| verdict.kind.is_drop()) {
            Some(m) => println!(
                "drop {url}: {} of {} ({}, similarity {:.2})",
                verdict.kind.as_str(),
                m.url,
                m.basis.name(),
                m.similarity
            ),
            None => {
                println!("keep {url}");
                index.push(*url);
            }
        }
    }
    println!("{} of {} pages go to the index", index.len(), fetched.len());
    Ok(())
}
