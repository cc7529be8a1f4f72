//! What a config builds: the detector chain, the store it opens, and the
//! identity recorded with the store.

use neardup_api::Detector;

use crate::config::Config;
use crate::content::{ANALYSIS_VERSION, EVIDENCE_SLOTS};
use crate::identity::StoreIdentity;
use crate::index::{DocStore, RedisLocation};
use crate::registry::Registry;

/// The index file at `path` (feature `redb`).
#[cfg(feature = "redb")]
pub(super) fn redb_store(
    path: &std::path::Path,
    identity: &StoreIdentity,
    cache_bytes: usize,
) -> crate::Result<Box<dyn DocStore>> {
    let store = crate::index::RedbStore::open_with(path, identity, cache_bytes)?;
    Ok(Box::new(store))
}

#[cfg(not(feature = "redb"))]
pub(super) fn redb_store(
    _: &std::path::Path,
    _: &StoreIdentity,
    _: usize,
) -> crate::Result<Box<dyn DocStore>> {
    Err(missing_backend("redb", "an index file"))
}

#[cfg(feature = "redis")]
pub(super) fn redis_store(
    location: &RedisLocation,
    identity: &StoreIdentity,
) -> crate::Result<Box<dyn DocStore>> {
    Ok(Box::new(crate::index::RedisStore::open(
        location, identity,
    )?))
}

#[cfg(not(feature = "redis"))]
pub(super) fn redis_store(
    _: &RedisLocation,
    _: &StoreIdentity,
) -> crate::Result<Box<dyn DocStore>> {
    Err(missing_backend("redis", "a Redis index"))
}

/// The error of a build without a backend, as ripgrep says of PCRE2.
#[cfg(not(all(feature = "redb", feature = "redis")))]
fn missing_backend(feature: &str, what: &str) -> crate::Error {
    crate::Error::Argument {
        name: "index".into(),
        message: format!(
            "this build has no {} support (feature `{feature}` of the neardup crate), so it cannot open {what}",
            if feature == "redb" { "redb" } else { "Redis" }
        ),
    }
}

/// The detectors of the configured chain that are enabled, in order.
pub(super) fn build_chain(
    config: &Config,
    registry: &Registry,
) -> crate::Result<Vec<Box<dyn Detector>>> {
    config.validate()?;
    config
        .detector_chain()
        .into_iter()
        .map(|name| registry.build(name, config))
        .collect()
}

/// The identity an index built with `config` records (its detector chain
/// and signature settings): what [`Deduper::open`](super::Deduper::open) and
/// [`Deduper::open_redis`](super::Deduper::open_redis) check a stored index against. Tools that read an
/// index without deciding (`neardup export`) open the store with it.
///
/// # Errors
/// If the config is invalid or names a detector the registry lacks.
pub fn store_identity(config: &Config, registry: &Registry) -> crate::Result<StoreIdentity> {
    identity_of(config, &build_chain(config, registry)?)
}

/// The identity of the built chain `detectors` under `config`: the rule
/// of what it covers (settings that change stored signatures or evidence,
/// never decision thresholds) is documented at [`StoreIdentity`].
pub(crate) fn identity_of(
    config: &Config,
    detectors: &[Box<dyn Detector>],
) -> crate::Result<StoreIdentity> {
    use crate::signature::settings_of;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert(
        "hash_seed".to_owned(),
        format!("{:#018x}", neardup_api::HASH_SEED),
    );
    settings.insert("analysis_version".to_owned(), ANALYSIS_VERSION.to_string());
    settings.extend(settings_of(
        "extract",
        &config.extract,
        &["mode", "max_body_bytes"],
    ));
    settings.extend(settings_of(
        "text",
        &config.text,
        &["stop_words", "stem", "detect_bytes", "stop_word_vote"],
    ));
    for d in detectors {
        match d.signature_settings() {
            Some(pairs) => settings.extend(pairs),
            None => {
                // The plugin does not say which of its settings are
                // thresholds: all of them count.
                let table = config
                    .plugins
                    .get(d.name())
                    .map_or_else(|| "{}".to_owned(), |t| serde_json::json!(t).to_string());
                settings.insert(format!("plugins.{}", d.name()), table);
            }
        }
    }
    Ok(StoreIdentity {
        detectors: detectors
            .iter()
            .map(|d| d.name().to_owned())
            .chain(EVIDENCE_SLOTS.iter().map(|s| (*s).to_owned()))
            .collect(),
        settings,
        legacy_fingerprint: Some(legacy_fingerprint(config)?),
    })
}

/// The fingerprint indexes recorded before their identity held settings
/// (redb formats 1 and 2, Redis log format 1): a hash of the extract, text,
/// simhash, chunks and plugins sections, thresholds included. Kept only to
/// recognise such an index built with exactly this config.
fn legacy_fingerprint(config: &Config) -> crate::Result<u64> {
    let relevant = (
        &config.extract,
        &config.text,
        &config.simhash,
        &config.chunks,
        &config.plugins,
    );
    let bytes = serde_json::to_vec(&relevant)
        .map_err(|e| crate::Error::runtime("config fingerprint", e))?;
    Ok(neardup_api::hash64(&bytes))
}
