//! The paper's representation: word 3-grams and their hashes, TF vectors,
//! the trained [`Reference`], the [`Signer`] that turns a TF vector into a
//! signature, and the cosine estimator between signatures.

use std::collections::HashMap;

/// The trained reference shipped with neardup (see the file's header for
/// the command that produced it).
const SHIPPED: &str = include_str!("../../../configs/reference-clough.txt");

/// Seed of the 3-gram hashes (stable: signatures are stored).
const GRAM_SEED: u64 = 0x6d75_6c74_6972_6566; // "multiref"

/// Stable hash of one 3-gram's UTF-8 bytes.
pub fn gram_hash(gram: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(gram.as_bytes(), GRAM_SEED)
}

/// The character 3-grams of `words` joined by single spaces, in order.
pub fn grams<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> Vec<String> {
    let text = joined(words);
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).map(|w| w.iter().collect()).collect()
}

/// `words` joined by single spaces.
fn joined<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    let mut text = String::new();
    for (i, w) in words.into_iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(w.as_ref());
    }
    text
}

/// A sparse term-frequency vector over 3-gram hashes: sorted by hash, with
/// its Euclidean norm.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TfVector {
    /// `(gram hash, count)`, sorted by hash, counts > 0.
    pub entries: Vec<(u64, f32)>,
    /// Euclidean norm of the counts.
    pub norm: f32,
}

impl TfVector {
    /// The 3-gram tf vector of `words`.
    pub fn of_words<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> TfVector {
        let text = joined(words);
        let chars: Vec<char> = text.chars().collect();
        let mut buf = [0u8; 12];
        // Hash every 3-gram, sort, and count runs: no hash map, and the
        // entries come out sorted for the merge in `Signer::signature`.
        let mut hashes: Vec<u64> = chars
            .windows(3)
            .map(|w| {
                let mut n = 0;
                for c in w {
                    n += c.encode_utf8(&mut buf[n..]).len();
                }
                xxhash_rust::xxh3::xxh3_64_with_seed(buf.get(..n).unwrap_or(&[]), GRAM_SEED)
            })
            .collect();
        hashes.sort_unstable();
        let mut entries: Vec<(u64, f32)> = Vec::new();
        for h in hashes {
            match entries.last_mut() {
                Some(last) if last.0 == h => last.1 += 1.0,
                _ => entries.push((h, 1.0)),
            }
        }
        let norm = entries.iter().map(|e| e.1 * e.1).sum::<f32>().sqrt();
        TfVector { entries, norm }
    }

    /// The tf vector of an explicit list of 3-grams (a reference part).
    pub fn of_grams<S: AsRef<str>>(grams: &[S]) -> TfVector {
        let mut counts: HashMap<u64, f32> = HashMap::new();
        for g in grams {
            *counts.entry(gram_hash(g.as_ref())).or_insert(0.0) += 1.0;
        }
        TfVector::from_counts(counts)
    }

    fn from_counts(counts: HashMap<u64, f32>) -> TfVector {
        let mut entries: Vec<(u64, f32)> = counts.into_iter().collect();
        entries.sort_unstable_by_key(|e| e.0);
        let norm = entries.iter().map(|e| e.1 * e.1).sum::<f32>().sqrt();
        TfVector { entries, norm }
    }

    /// Cosine with another tf vector (0 when either is empty): the "true"
    /// similarity the signature estimates.
    pub fn cosine(&self, other: &TfVector) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (a, b) = (&self.entries, &other.entries);
        let (mut i, mut j, mut dot) = (0, 0, 0.0f64);
        while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
            match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += f64::from(x.1) * f64::from(y.1);
                    i += 1;
                    j += 1;
                }
            }
        }
        (dot / (f64::from(self.norm) * f64::from(other.norm))).clamp(0.0, 1.0)
    }
}

/// A reference text: a sequence of 3-grams split into `parts` contiguous
/// parts of near-equal length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    grams: Vec<String>,
    parts: usize,
}

impl Reference {
    /// A reference of `grams` split into `parts` parts.
    ///
    /// # Errors
    /// When a gram is not exactly 3 characters or contains a line break,
    /// or `parts` is not in `1..=grams.len()`.
    pub fn new(grams: Vec<String>, parts: usize) -> Result<Reference, String> {
        if parts == 0 || parts > grams.len() {
            return Err(format!(
                "parts must be in 1..={} (the number of 3-grams), got {parts}",
                grams.len()
            ));
        }
        if let Some(bad) = grams
            .iter()
            .find(|g| g.chars().count() != 3 || g.contains(['\n', '\r']))
        {
            return Err(format!("not a 3-gram without line breaks: {bad:?}"));
        }
        Ok(Reference { grams, parts })
    }

    /// The reference shipped with neardup (`configs/reference-clough.txt`).
    ///
    /// # Errors
    /// Never in a correct build; the file is checked by tests.
    pub fn shipped() -> Result<Reference, String> {
        Reference::parse(SHIPPED)
    }

    /// Reads the text format written by [`Reference::to_text`]: `#` comment
    /// lines, a `parts N` line, then one 3-gram per line (spaces inside a
    /// gram are significant, so lines are not trimmed).
    ///
    /// # Errors
    /// A missing or malformed `parts` line or a malformed gram.
    pub fn parse(text: &str) -> Result<Reference, String> {
        let mut parts = None;
        let mut grams = Vec::new();
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.starts_with('#') || (line.is_empty() && parts.is_none()) {
                continue;
            }
            if parts.is_none() {
                let n = line
                    .strip_prefix("parts ")
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .ok_or_else(|| format!("expected `parts N`, found {line:?}"))?;
                parts = Some(n);
            } else if !line.is_empty() {
                grams.push(line.to_owned());
            }
        }
        let parts = parts.ok_or("no `parts N` line")?;
        Reference::new(grams, parts)
    }

    /// The text format: `header` lines as `#` comments, `parts N`, grams.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("parts {}\n", self.parts));
        for g in &self.grams {
            out.push_str(g);
            out.push('\n');
        }
        out
    }

    /// The 3-grams in order.
    pub fn grams(&self) -> &[String] {
        &self.grams
    }

    /// Number of parts (the signature length).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The grams of part `i` (`0..parts`): `[i*L/P, (i+1)*L/P)`.
    pub fn part(&self, i: usize) -> &[String] {
        let l = self.grams.len();
        let (lo, hi) = (i * l / self.parts, (i + 1) * l / self.parts);
        self.grams.get(lo..hi).unwrap_or(&[])
    }
}

/// Computes signatures against one reference: `(3-gram hash, part,
/// count)` sorted by hash, so a signature is one merge of two sorted lists
/// instead of one pass per part.
#[derive(Clone, Debug)]
pub struct Signer {
    postings: Vec<(u64, u32, f32)>,
    part_norms: Vec<f32>,
}

impl Signer {
    /// The signer of `reference`.
    pub fn new(reference: &Reference) -> Signer {
        let mut postings = Vec::new();
        let mut part_norms = Vec::with_capacity(reference.parts());
        for p in 0..reference.parts() {
            let tf = TfVector::of_grams(reference.part(p));
            part_norms.push(tf.norm);
            postings.extend(tf.entries.into_iter().map(|(h, c)| (h, p as u32, c)));
        }
        postings.sort_unstable_by_key(|e| (e.0, e.1));
        Signer {
            postings,
            part_norms,
        }
    }

    /// The signature vector of a tf vector: cosine with each part, each in
    /// `0..=1` (0 for an empty document).
    pub fn signature(&self, doc: &TfVector) -> Vec<f32> {
        let mut dots = vec![0.0f32; self.part_norms.len()];
        if doc.norm == 0.0 {
            return dots;
        }
        let (a, b) = (&doc.entries, &self.postings);
        let (mut i, mut j) = (0, 0);
        while let (Some(&(h, c)), Some(&(g, p, w))) = (a.get(i), b.get(j)) {
            match h.cmp(&g) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    // Several postings (parts) may share the hash: advance
                    // only the reference side.
                    if let Some(d) = dots.get_mut(p as usize) {
                        *d += c * w;
                    }
                    j += 1;
                }
            }
        }
        for (d, n) in dots.iter_mut().zip(&self.part_norms) {
            *d = if *n > 0.0 {
                (*d / (doc.norm * n)).clamp(0.0, 1.0)
            } else {
                0.0
            };
        }
        dots
    }
}

/// The paper's estimator (section 3.5): the cosine between two signature
/// vectors, in `0..=1` because every component is non-negative. 0 when
/// either vector is all zeros or the lengths differ.
pub fn signature_cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    (dot / (na.sqrt() * nb.sqrt())).clamp(0.0, 1.0)
}
