//! Loading the industry data files: each parsed (errors name the file, line and field), its
//! references checked ([`crate::industry`]), and its question blocks expanded into questions by
//! the engine ([`crate::engine::questions`]). Apart from both, so the data types need not know
//! the engine that reads them.

use anyhow::{Result, bail};

use crate::engine::questions;
use crate::industry::{FILES, Industry, validate};
use crate::models::Model;

/// The nine industries, in slug order; `models` are the models their biases may name.
pub(crate) fn industries(models: &[Model]) -> Result<Vec<Industry>> {
    FILES.iter().map(|(name, text)| load(name, text, models)).collect()
}

/// Parses, checks and expands one data file; `name` is the file name the errors show.
pub(crate) fn load(name: &str, text: &str, models: &[Model]) -> Result<Industry> {
    let file = format!("generator/synth/industrias/{name}");
    let mut ind: Industry = generator::load::parse_toml(text).map_err(|(location, message)| {
        if location.is_empty() {
            anyhow::anyhow!("{file}: {message}")
        } else {
            anyhow::anyhow!("{file}: {location}: {message}")
        }
    })?;
    let problems = validate(&ind, models);
    if !problems.is_empty() {
        bail!("{file}:\n  {}", problems.join("\n  "));
    }
    ind.questions = questions::expand(&ind);
    Ok(ind)
}
