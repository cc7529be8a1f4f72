//! The plugin detectors compiled into the binary: the built-ins plus the
//! crates under `plugins/`, each reading its own `[plugins.NAME]` table.
//! Only the binary names plugin types; the library core never does.

use neardup::signature::Registry;
use neardup::{Config, Error};
use neardup_api::{Detector, SettingError};
use serde::de::DeserializeOwned;

/// The registry of every detector this binary knows: `exact`, `simhash`,
/// `chunks`, and the plugins `minhash`, `min_n`, `mod_n`, `bsw`,
/// `sentence`, `multiref`.
pub fn registry() -> Registry {
    let mut r = Registry::default();
    r.register("minhash", |c| {
        build(c, "minhash", neardup_minhash::MinhashDetector::new)
    });
    r.register("min_n", |c| {
        build(c, "min_n", neardup_minhash::MinNDetector::new)
    });
    r.register("mod_n", |c| {
        build(c, "mod_n", neardup_minhash::ModNDetector::new)
    });
    r.register("bsw", |c| build(c, "bsw", neardup_bsw::BswDetector::new));
    r.register("sentence", |c| {
        build(c, "sentence", neardup_sentence::SentenceDetector::new)
    });
    r.register("multiref", |c| {
        build(c, "multiref", neardup_multiref::MultirefDetector::new)
    });
    r
}

/// Reads `[plugins.<name>]` (defaults if absent) into the plugin's settings
/// and builds the detector, turning every rejection into a config error
/// naming `plugins.<name>.<key>`.
fn build<S, D>(
    config: &Config,
    name: &str,
    new: fn(S) -> Result<D, SettingError>,
) -> neardup::Result<Box<dyn Detector>>
where
    S: DeserializeOwned + Default,
    D: Detector + 'static,
{
    let settings = settings::<S>(config, name)?;
    let detector = new(settings).map_err(|e| Error::Config {
        key: format!("plugins.{name}.{}", e.key),
        value: e.value,
        allowed: e.allowed,
    })?;
    Ok(Box::new(detector))
}

/// The plugin's settings table, deserialized (unknown keys and wrong types
/// are errors naming the table).
pub fn settings<S: DeserializeOwned + Default>(config: &Config, name: &str) -> neardup::Result<S> {
    match config.plugins.get(name) {
        None => Ok(S::default()),
        Some(table) => toml::Value::Table(table.clone())
            .try_into::<S>()
            .map_err(|e| Error::Config {
                key: format!("plugins.{name}"),
                value: table.to_string().trim().replace('\n', ", "),
                allowed: e.to_string().trim().to_owned(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml_text: &str) -> Config {
        Config::from_toml(toml_text).unwrap()
    }

    #[test]
    fn every_plugin_builds_with_defaults() {
        let r = registry();
        for name in ["minhash", "min_n", "mod_n", "bsw", "sentence", "multiref"] {
            let d = r.build(name, &Config::default()).unwrap();
            assert_eq!(d.name(), name);
        }
    }

    #[test]
    fn bad_plugin_setting_names_the_key() {
        let c = config("[plugins.minhash]\nnum_perm = 0\n");
        let err = registry().build("minhash", &c).err().unwrap().to_string();
        assert!(err.contains("plugins.minhash.num_perm"), "{err}");
        assert!(err.contains("1..=4096"), "{err}");
    }

    #[test]
    fn unknown_plugin_key_is_an_error() {
        let c = config("[plugins.mod_n]\nmodulus = 3\n");
        let err = registry().build("mod_n", &c).err().unwrap().to_string();
        assert!(err.contains("plugins.mod_n"), "{err}");
        assert!(err.contains("modulus"), "{err}");
    }
}
