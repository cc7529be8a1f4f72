//! Bad input: every page gets a verdict, problems get a warning on that
//! page's line and on stderr, and the run exits 0.

use crate::util::{read_clusters, read_verdicts, verdict, Dir};

fn warnings_of(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

const ZH: &str = "北京市政府今天宣布，将在未来三年内投资建设新的城市公园和自行车道，以改善市民的生活质量并减少交通拥堵。\
专家表示，这一计划将有助于降低空气污染，提高城市的宜居程度。市民对此普遍表示欢迎，但也有人担心施工期间的交通问题。";

#[test]
fn hostile_pages_get_warnings_and_the_run_goes_on() {
    let dir = Dir::new();
    // A 50 MB page: analyzed up to extract.max_body_bytes, then a warning.
    let para = "<p>Harbour records show the tide rising faster than forecast near the pier.</p>\n";
    let mut huge = String::from("<html><body><article>");
    while huge.len() < 50 * 1024 * 1024 {
        huge.push_str(para);
    }
    huge.push_str("</article></body></html>");
    dir.write("pages/a-huge.html", &huge);
    drop(huge);
    // 100,000 nested elements around real text.
    let nested = format!(
        "<html><body>{}<p>{}</p>{}</body></html>",
        "<div>".repeat(100_000),
        "Deeply nested text survives the parser without recursion. ".repeat(10),
        "</div>".repeat(100_000)
    );
    dir.write("pages/b-nested.html", nested);
    // Declared UTF-8, written in windows-1252.
    let french = "Le café crème était très apprécié à la brasserie près de la gare, où les \
        voyageurs pressés s'arrêtaient chaque matin pour lire le journal. "
        .repeat(5);
    let mut wrong = b"<html><head><meta charset=\"utf-8\"></head><body><article><p>".to_vec();
    wrong.extend(
        french
            .chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
    );
    wrong.extend_from_slice(b"</p></article></body></html>");
    dir.write("pages/c-wrong-charset.html", wrong);
    // Nothing but navigation and a footer.
    let nav: String = (0..30)
        .map(|i| format!("<li><a href=\"/s{i}\">Section {i}</a></li>"))
        .collect();
    dir.write(
        "pages/d-boilerplate.html",
        format!(
            "<html><body><header><a href=\"/\">Home</a></header><nav><ul>{nav}</ul></nav>\
             <footer><a href=\"/about\">About us</a> <a href=\"/privacy\">Privacy</a></footer></body></html>"
        ),
    );
    // Chinese without spaces, and a near copy with one phrase changed.
    let cjk = |text: &str| {
        format!("<html><head><meta charset=\"utf-8\"></head><body><article><p>{text}</p><p>{text}</p></article></body></html>")
    };
    dir.write("pages/e-cjk.html", cjk(ZH));
    dir.write("pages/f-cjk-near.html", cjk(&ZH.replace("三年", "五年")));

    let run = dir
        .run(&["dedup", "pages", "--out", "out", "--threads", "2"])
        .expect_code(0);
    let stderr = run.stderr();
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), 6, "every page has a verdict line");
    assert_eq!(read_clusters(&dir.read("out/clusters.tsv")).len(), 6);

    let huge = verdict(&verdicts, "a-huge");
    assert!(
        warnings_of(huge).iter().any(|w| w.contains("truncated")),
        "{huge}"
    );
    assert!(stderr.contains("a-huge"), "{stderr}");

    let nested = verdict(&verdicts, "b-nested");
    assert_eq!(nested["verdict"], "unique");
    assert!(warnings_of(nested).is_empty(), "{nested}");

    let wrong = verdict(&verdicts, "c-wrong-charset");
    assert!(
        warnings_of(wrong)
            .iter()
            .any(|w| w.contains("windows-1252")),
        "{wrong}"
    );
    assert!(stderr.contains("c-wrong-charset"), "{stderr}");

    let boiler = verdict(&verdicts, "d-boilerplate");
    assert!(
        warnings_of(boiler)
            .iter()
            .any(|w| w.contains("boilerplate")),
        "{boiler}"
    );

    assert_eq!(verdict(&verdicts, "e-cjk")["verdict"], "unique");
    let near = verdict(&verdicts, "f-cjk-near");
    assert!(
        near["verdict"] == "near_duplicate" || near["verdict"] == "duplicate",
        "CJK text without spaces still yields features: {near}"
    );
    assert_eq!(near["of"], "e-cjk");
}

#[test]
fn decoded_text_of_wrong_charset_page_is_right() {
    let dir = Dir::new();
    let mut wrong = b"<html><head><meta charset=\"utf-8\"></head><body><p>".to_vec();
    wrong.extend_from_slice(b"Le caf\xe9 cr\xe8me \xe9tait tr\xe8s appr\xe9ci\xe9 \xe0 la brasserie pr\xe8s de la gare.");
    wrong.extend_from_slice(b"</p></body></html>");
    dir.write("w.html", wrong);
    let run = dir.run(&["extract", "w.html"]).expect_code(0);
    assert!(
        run.stdout().contains("café crème était très apprécié"),
        "{}",
        run.stdout()
    );
}

#[test]
fn every_shared_warc_sample_is_read_without_failing_the_run() {
    let Some(samples) = crate::skip::shared("datasets/warc-samples") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![samples];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if name.contains(".warc") || name.contains(".arc") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "found {} samples", files.len());
    let dir = Dir::new();
    let mut args: Vec<String> = vec!["dedup".into()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    args.extend(["--out".into(), "out".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = dir.run(&args).expect_code(0);
    assert!(
        run.stderr().contains("unreadable records"),
        "{}",
        run.stderr()
    );
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    // The deliberately truncated sample has an error line naming it.
    assert!(
        verdicts.iter().any(|v| v["verdict"] == "error"
            && v["location"]
                .as_str()
                .is_some_and(|l| l.contains("clipped.warc.gz"))),
        "no error line for clipped.warc.gz"
    );
    let pages = verdicts.iter().filter(|v| v["verdict"] != "error").count();
    // Independent count: HTML 2xx responses listed in the input module's
    // sample table (iana 16, warcfile x3 48, clueweb-quirk 29, ...): at least 300.
    assert!(pages >= 300, "{pages} pages");
    // pywb's iana.warc.gz holds the same pages as revisits and repeated
    // captures: some exact duplicates must be found.
    assert!(verdicts.iter().any(|v| v["verdict"] == "duplicate"));
}
