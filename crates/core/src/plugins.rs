//! The plugin detectors (feature `plugins`): the built-ins plus the crates
//! under `plugins/`, each reading its own `[plugins.NAME]` table. The rest
//! of the core knows only the `Detector` trait; this one module, compiled
//! only with the feature, names the plugin crates, so a library user gets
//! `minhash` and the others without copying the CLI's registry.

use crate::registry::Registry;
use crate::Config;
use crate::Error;
use neardup_api::{Detector, SettingError};
use serde::de::DeserializeOwned;

/// The registry of every detector neardup ships: `exact`, `simhash`,
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
) -> crate::Result<Box<dyn Detector>>
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
pub fn settings<S: DeserializeOwned + Default>(config: &Config, name: &str) -> crate::Result<S> {
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

    /// `bsw` and `mod_n` hold their thresholds as one flattened
    /// `SetRule`: the keys stay flat in the table, a key left out takes the
    /// rule's default, a misspelt one is still refused, and a bad value is
    /// named by its key.
    #[test]
    fn set_rule_keys_stay_flat_in_a_plugin_table() {
        let c = config(
            "[plugins.bsw]\nwindow = 20\nduplicate = 0.9\ncontainment_min_features = 3\n\
             [plugins.mod_n]\nnear_duplicate = 0.5\ncontainment = 1.5\n",
        );
        let bsw: neardup_bsw::Settings = settings(&c, "bsw").unwrap();
        assert_eq!(bsw.window, 20);
        assert_eq!(
            bsw.rule,
            neardup_api::SetRule::new(0.9, 0.4, 0.8, 3),
            "{bsw:?}"
        );
        let mod_n: neardup_minhash::ModNSettings = settings(&c, "mod_n").unwrap();
        assert_eq!(mod_n.rule, neardup_api::SetRule::new(0.8, 0.5, 1.5, 10));
        assert_eq!(mod_n.n, neardup_minhash::ModNSettings::default().n);

        let empty = config("[plugins.bsw]\n[plugins.mod_n]\n");
        let bsw: neardup_bsw::Settings = settings(&empty, "bsw").unwrap();
        assert_eq!(bsw, neardup_bsw::Settings::default());
        let mod_n: neardup_minhash::ModNSettings = settings(&empty, "mod_n").unwrap();
        assert_eq!(mod_n, neardup_minhash::ModNSettings::default());

        let typo = config("[plugins.bsw]\ncontainment_min_feature = 3\n");
        let err = registry().build("bsw", &typo).err().unwrap().to_string();
        assert!(err.contains("containment_min_feature"), "{err}");
        let bad = config("[plugins.mod_n]\ncontainment_min_features = 0\n");
        let err = registry().build("mod_n", &bad).err().unwrap().to_string();
        assert!(
            err.contains("plugins.mod_n.containment_min_features"),
            "{err}"
        );
    }

    #[test]
    fn unknown_plugin_key_is_an_error() {
        let c = config("[plugins.mod_n]\nmodulus = 3\n");
        let err = registry().build("mod_n", &c).err().unwrap().to_string();
        assert!(err.contains("plugins.mod_n"), "{err}");
        assert!(err.contains("modulus"), "{err}");
    }

    /// What an index built with each plugin records: the settings that
    /// change its signatures, never its thresholds or index parameters; a
    /// plugin that does not say (multiref) counts with its whole table.
    #[test]
    fn plugin_identity_covers_signature_settings_not_thresholds() {
        let identity = |detector: &str, table: &str| {
            let mut c = config(table);
            c.decide.detectors = vec![detector.to_owned()];
            crate::deduper::store_identity(&c, &registry())
                .unwrap()
                .settings
        };
        let cases = [
            (
                "minhash",
                "duplicate = 0.9\nbands = 16\nrows = 8",
                "shingle = 4",
            ),
            ("min_n", "near_duplicate = 0.6\nmax_postings = 10", "n = 64"),
            ("mod_n", "containment = 0.7\nduplicate = 0.9", "n = 16"),
            (
                "bsw",
                "near_duplicate = 0.5\nmax_postings = 10",
                "window = 32",
            ),
            (
                "sentence",
                "allowed = 0.5\nmax_postings = 10",
                "min_words = 6",
            ),
        ];
        for (name, thresholds, signature) in cases {
            let base = identity(name, "");
            assert!(
                base.keys()
                    .any(|k| k.starts_with(&format!("plugins.{name}."))),
                "{name}: {base:?}"
            );
            let t = identity(name, &format!("[plugins.{name}]\n{thresholds}\n"));
            assert_eq!(t, base, "{name}: thresholds are not identity");
            let s = identity(name, &format!("[plugins.{name}]\n{signature}\n"));
            let key = format!("plugins.{name}.{}", signature.split(' ').next().unwrap());
            assert_ne!(s.get(&key), base.get(&key), "{name}: {key}");
        }
        let m = identity("multiref", "");
        assert_eq!(m.get("plugins.multiref").map(String::as_str), Some("{}"));
        let m2 = identity("multiref", "[plugins.multiref]\nbands = 8\nrows = 4\n");
        assert_ne!(m2.get("plugins.multiref"), m.get("plugins.multiref"));
    }
}
