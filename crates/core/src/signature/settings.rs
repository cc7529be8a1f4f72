//! The settings a detector's signatures depend on, as stored beside them.

/// `(SECTION.KEY, value as JSON)` for each of `keys` of the config section
/// `value`: what [`neardup_api::Detector::signature_settings`] returns for the built-in
/// detectors and the core records for extraction and text.
pub(crate) fn settings_of<T: serde::Serialize>(
    section: &str,
    value: &T,
    keys: &[&str],
) -> Vec<(String, String)> {
    // A config section always serializes; `Null` would only make every
    // value "null", which still compares equal between equal configs.
    let json = serde_json::to_value(value).unwrap_or_default();
    keys.iter()
        .map(|k| {
            let v = json
                .get(k)
                .map_or_else(|| "null".to_owned(), ToString::to_string);
            (format!("{section}.{k}"), v)
        })
        .collect()
}
