//! `neardup detectors`: the detector chain in force, in decision order,
//! with what each detector's settings imply (thresholds, index design,
//! the LSH S-curve), so a setting can be chosen before a long run.

use std::process::ExitCode;

use super::args::{Args, DetectorsArgs};

/// Prints the chain and every registered name.
pub fn run(args: &Args, a: &DetectorsArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    let registry = neardup::plugins::registry();
    print!("{}", describe_chain(&config, &registry)?);
    Ok(ExitCode::SUCCESS)
}

/// The text `run` prints: one numbered entry per detector of the chain,
/// its description lines indented, then the registered names.
fn describe_chain(
    config: &neardup::Config,
    registry: &neardup::Registry,
) -> anyhow::Result<String> {
    let mut out = String::from("detector chain (the first detector with a match decides):\n");
    for (i, name) in config.detector_chain().into_iter().enumerate() {
        let detector = registry.build(name, config)?;
        out.push_str(&format!("{}. {}\n", i + 1, detector.name()));
        for line in detector.describe() {
            out.push_str(&format!("     {line}\n"));
        }
    }
    out.push_str(&format!("registered: {}\n", registry.names().join(", ")));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(names: &[&str], toml_text: &str) -> String {
        let mut config = neardup::Config::from_toml(toml_text).unwrap();
        config.decide.detectors = names.iter().map(|n| (*n).to_owned()).collect();
        describe_chain(&config, &neardup::plugins::registry()).unwrap()
    }

    #[test]
    fn minhash_shows_its_lsh_threshold_and_s_curve_for_its_settings() {
        let text = chain(
            &["exact", "minhash"],
            "[plugins.minhash]\nbands = 20\nrows = 5\n",
        );
        assert!(text.contains("1. exact\n2. minhash\n"), "{text}");
        // (1/20)^(1/5) = 0.5493; 1 - (1 - 0.5^5)^20 = 0.4701.
        assert!(text.contains("b = 20 bands of r = 5 rows"), "{text}");
        assert!(text.contains("= 0.549"), "{text}");
        assert!(text.contains("s = 0.5  P = 0.4701"), "{text}");
    }

    #[test]
    fn built_ins_describe_their_thresholds() {
        let text = chain(&["simhash", "chunks"], "[simhash]\nmax_distance = 5\n");
        assert!(text.contains("1..=5 a near duplicate"), "{text}");
        assert!(text.contains("6 blocked tables"), "{text}");
        assert!(text.contains("average 32 B"), "{text}");
    }

    /// A built-in turned off by its own `enabled = false` is not in the
    /// chain that runs, so it is not printed either.
    #[test]
    fn a_built_in_turned_off_is_not_listed() {
        let text = chain(
            &["exact", "simhash", "chunks"],
            "[simhash]\nenabled = false\n",
        );
        assert!(text.contains("1. exact\n"), "{text}");
        assert!(text.contains("2. chunks\n"), "{text}");
        assert!(!text.contains(". simhash"), "{text}");
    }

    #[test]
    fn unknown_detector_is_an_error_naming_it() {
        let mut config = neardup::Config::default();
        config.decide.detectors = vec!["nope".to_owned()];
        let err = describe_chain(&config, &neardup::plugins::registry()).unwrap_err();
        assert!(err.to_string().contains("nope"), "{err}");
    }
}
