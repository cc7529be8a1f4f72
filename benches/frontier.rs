//! Frontier throughput: URL canonicalization and per-page link filtering,
//! in URLs per second. A crawl canonicalizes every extracted link (hundreds
//! per page), so this must stay far above the fetch rate.
//!
//! `cargo bench --bench frontier`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::CanonicalConfig;
use neardup_crawl::frontier::{Canonicalizer, Scope};
use neardup_crawl::{ScopeConfig, SiteScope};
use url::Url;

/// Links as pages really have them: relative and absolute, tracking
/// parameters, session ids, escapes, fragments, some junk.
fn hrefs(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 8 {
            0 => format!("/articles/{i}/some-title-here"),
            1 => format!(
                "../tag/topic-{}/?page={}&utm_source=feed&utm_medium=rss",
                i % 50,
                i % 7
            ),
            2 => format!("https://Example.COM:443/a/./b/../item%7E{i}?b=2&a=1#comments"),
            3 => format!("product;jsessionid=ABCDEF{i}?color=red&sid=99&size=m"),
            4 => format!("//cdn.example.net/img/{i}.png?v=3"),
            5 => "javascript:void(0)".to_owned(),
            6 => format!("#section-{i}"),
            _ => format!("/search?q=%e2%9c%93+item+{i}&sort=new&fbclid=xyz{i}"),
        })
        .collect()
}

fn canonical(c: &mut Criterion) {
    let canon = Canonicalizer::new(&CanonicalConfig::default());
    let base = Url::parse("https://example.com/blog/2024/post.html").unwrap();
    let links = hrefs(1000);
    let mut group = c.benchmark_group("frontier");
    group.throughput(Throughput::Elements(links.len() as u64));
    group.bench_function("join_canonicalize_1000", |b| {
        b.iter(|| {
            let mut ok = 0;
            for h in &links {
                ok += usize::from(canon.join(black_box(&base), h).is_ok());
            }
            ok
        })
    });
    let scope_config = ScopeConfig {
        sites: SiteScope::Domain,
        exclude: vec![r"/calendar/".into(), r"\.(png|jpe?g|gif|pdf)$".into()],
        ..ScopeConfig::default()
    };
    let scope = Scope::new(&scope_config, std::slice::from_ref(&base)).unwrap();
    group.bench_function("links_and_check_1000", |b| {
        b.iter(|| {
            let page = Scope::links(&canon, &base, &base, links.iter().map(String::as_str), 2000);
            page.accepted
                .iter()
                .filter(|l| scope.check(&l.key, 1).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, canonical);
criterion_main!(benches);
