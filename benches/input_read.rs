//! Throughput of the batch input readers on a synthetic WARC (one gzip
//! member per record, like crawler output) and its uncompressed twin.

use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// ~2,000 HTML responses of ~20 KB each, with request records between them.
fn synthetic_warc() -> Vec<Vec<u8>> {
    let mut recs = Vec::new();
    for i in 0..2000 {
        let body = format!(
            "<html><head><title>page {i}</title></head><body>{}</body></html>",
            format!("<p>paragraph {i} with some words that vary {}</p>", i * 7).repeat(300)
        );
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let req = "GET / HTTP/1.1\r\nHost: bench.example\r\n\r\n";
        for (t, block) in [("request", req.to_string()), ("response", http)] {
            recs.push(
                format!(
                    "WARC/1.0\r\nWARC-Type: {t}\r\nWARC-Record-ID: <urn:uuid:{t}-{i}>\r\nWARC-Target-URI: http://bench.example/{i}\r\nContent-Type: application/http\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
                    block.len()
                )
                .into_bytes(),
            );
        }
    }
    recs
}

fn bench(c: &mut Criterion) {
    let recs = synthetic_warc();
    let plain: Vec<u8> = recs.concat();
    let gz: Vec<u8> = recs
        .iter()
        .flat_map(|r| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(r).ok();
            e.finish().unwrap_or_default()
        })
        .collect();
    let Ok(dir) = tempfile::tempdir() else { return };
    let p_plain = dir.path().join("bench.warc");
    let p_gz = dir.path().join("bench.warc.gz");
    if std::fs::write(&p_plain, &plain).is_err() || std::fs::write(&p_gz, &gz).is_err() {
        return;
    }
    let mut g = c.benchmark_group("input_warc");
    g.sample_size(10);
    // Throughput in uncompressed bytes for both, so the numbers compare.
    g.throughput(Throughput::Bytes(plain.len() as u64));
    for (name, path) in [("plain", &p_plain), ("gzip_per_record", &p_gz)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                neardup_batch::input::open(path)
                    .map(|it| {
                        it.filter(|i| matches!(i, neardup_batch::input::Item::Page(_)))
                            .count()
                    })
                    .unwrap_or(0)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
