//! The six models and their answering styles, read from `generator/synth/modelos.toml`.
//!
//! The same model ids, names and tiers in every study, so the studies are comparable; the
//! styles (how many brands, how many sources, which layouts, how sharp the preference for
//! leaders) are what makes each model's answers read and measure differently. Like the
//! industry files, the data file is compiled in and parsed when synth runs.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;

use generator::model::Tier;

const MODELS_PATH: &str = "generator/synth/modelos.toml";
const MODELS_TOML: &str = include_str!("../modelos.toml");

/// How a model tends to answer. Values are probabilities unless noted.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Style {
    /// Chance of a second argument per brand (longer answers).
    #[serde(rename = "verbosidad")]
    pub verbosity: f64,
    /// Brands per list answer (min, max).
    #[serde(rename = "marcas")]
    pub brand_range: (usize, usize),
    /// Media sources per answer (min, max).
    #[serde(rename = "fuentes")]
    pub source_range: (usize, usize),
    /// Multiplier on the study's brandless-answer rate.
    #[serde(rename = "sin_marca")]
    pub brandless_factor: f64,
    /// Chance of citing the site of a named brand.
    #[serde(rename = "cita_marca")]
    pub cite_brand: f64,
    /// Chance of citing a brand site whose brand is not named.
    #[serde(rename = "fantasma")]
    pub ghost_citation: f64,
    /// Multiplier on the chance of a caveat per brand.
    #[serde(rename = "contra")]
    pub caveat_factor: f64,
    /// Exponent on brand weights: above 1 concentrates on the leaders.
    #[serde(rename = "nitidez")]
    pub sharpness: f64,
    /// Chance of using the display name rather than an alias.
    #[serde(rename = "nombre_completo")]
    pub full_name: f64,
    /// Chance of an opening line in the provider's manner.
    #[serde(rename = "apertura")]
    pub opening: f64,
    /// Chance of a closing block of practical advice.
    pub extension: f64,
    /// Weights of the fifteen list layouts, by name (all fifteen; see [`Style::weights`]).
    #[serde(rename = "estructuras")]
    pub layouts: BTreeMap<Layout, f64>,
}

impl Style {
    /// The layout weights in the order of [`LIST_LAYOUTS`] (every layout is present: checked on
    /// load).
    pub(crate) fn weights(&self) -> [f64; 15] {
        LIST_LAYOUTS.map(|e| self.layouts.get(&e).copied().unwrap_or(0.0))
    }
}

/// One model: its identity in `estudio.toml` and its style.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Model {
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "proveedor")]
    pub provider: String,
    #[serde(rename = "nivel")]
    pub tier: Tier,
    /// Versions: the second one is used after a mid-run update.
    #[serde(rename = "versiones")]
    pub versions: [String; 2],
    /// A consumer surface's id (`google_ai_overview`); `None` for a model asked through its API.
    #[serde(default, rename = "superficie")]
    pub surface: Option<String>,
    #[serde(rename = "estilo")]
    pub style: Style,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelsFile {
    #[serde(rename = "modelos")]
    models: Vec<Model>,
    /// Consumer surfaces a study may add (`consumo` in its industry file).
    #[serde(default, rename = "consumo")]
    consumer: Vec<Model>,
}

/// The six models, in the order every `estudio.toml` declares them.
pub(crate) fn models() -> Result<Vec<Model>> {
    Ok(load(MODELS_TOML)?.models)
}

/// The consumer surfaces (`[[consumo]]`): what people see in an app or a search engine, each
/// one more model of its tier in the studies that include it.
pub(crate) fn consumer_models() -> Result<Vec<Model>> {
    Ok(load(MODELS_TOML)?.consumer)
}

fn load(text: &str) -> Result<ModelsFile> {
    let file: ModelsFile = generator::load::parse_toml(text).map_err(|(location, message)| {
        if location.is_empty() {
            anyhow!("{MODELS_PATH}: {message}")
        } else {
            anyhow!("{MODELS_PATH}: {location}: {message}")
        }
    })?;
    let mut problems = Vec::new();
    let all: Vec<(String, &Model)> = file
        .models
        .iter()
        .enumerate()
        .map(|(i, m)| (format!("modelos[{i}]"), m))
        .chain(file.consumer.iter().enumerate().map(|(i, m)| (format!("consumo[{i}]"), m)))
        .collect();
    for (k, (at, m)) in all.iter().enumerate() {
        let missing: Vec<&str> =
            LIST_LAYOUTS.iter().filter(|e| !m.style.layouts.contains_key(e)).map(|e| e.file_name()).collect();
        if !missing.is_empty() {
            problems.push(format!("{at}.estilo.estructuras: faltan {}", missing.join(", ")));
        }
        let (a, b) = m.style.brand_range;
        let (c, d) = m.style.source_range;
        if a == 0 || a > b || c > d {
            problems.push(format!("{at}.estilo: `marcas` y `fuentes` son [mínimo, máximo] y marcas empieza en 1"));
        }
        if all[..k].iter().any(|(_, x)| x.id == m.id) {
            problems.push(format!("{at}.id: `{}` repetido", m.id));
        }
        let consumer = at.starts_with("consumo");
        match &m.surface {
            None if consumer => problems.push(format!("{at}.superficie: una superficie de consumo dice cuál es")),
            Some(_) if !consumer => {
                problems.push(format!("{at}.superficie: los modelos de `modelos` se preguntan por su API"))
            }
            Some(s) if !generator::surfaces::is_well_formed(s) || s == generator::model::API_SURFACE => {
                problems.push(format!("{at}.superficie: `{s}` no es un id de superficie de consumo"))
            }
            _ => {}
        }
    }
    for tier in [Tier::Standard, Tier::Advanced] {
        if !file.models.iter().any(|m| m.tier == tier) {
            problems.push(format!("modelos: no hay ningún modelo de nivel {}", tier.as_str()));
        }
    }
    if !problems.is_empty() {
        bail!("{MODELS_PATH}:\n  {}", problems.join("\n  "));
    }
    Ok(file)
}

/// Which way an answer is laid out (the names are those of `modelos.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Layout {
    #[serde(rename = "numerada")]
    Numbered,
    #[serde(rename = "guiones")]
    Bullets,
    #[serde(rename = "prosa")]
    Prose,
    #[serde(rename = "favorita")]
    Favourite,
    #[serde(rename = "por_perfil")]
    ByProfile,
    #[serde(rename = "checklist_primero")]
    ChecklistFirst,
    #[serde(rename = "tabla")]
    Table,
    #[serde(rename = "encabezados")]
    Headings,
    #[serde(rename = "corta")]
    Short,
    #[serde(rename = "aclaracion_primero")]
    ClarificationFirst,
    Faq,
    Ranking,
    #[serde(rename = "pros_contras")]
    ProsCons,
    #[serde(rename = "resumen")]
    Summary,
    #[serde(rename = "foros")]
    Forums,
}

/// The list layouts, in the order of a model's `estructuras` weights.
pub(crate) const LIST_LAYOUTS: [Layout; 15] = [
    Layout::Numbered,
    Layout::Bullets,
    Layout::Prose,
    Layout::Favourite,
    Layout::ByProfile,
    Layout::ChecklistFirst,
    Layout::Table,
    Layout::Headings,
    Layout::Short,
    Layout::ClarificationFirst,
    Layout::Faq,
    Layout::Ranking,
    Layout::ProsCons,
    Layout::Summary,
    Layout::Forums,
];

impl Layout {
    /// The layout's name in `modelos.toml`.
    pub(crate) fn file_name(self) -> &'static str {
        match self {
            Layout::Numbered => "numerada",
            Layout::Bullets => "guiones",
            Layout::Prose => "prosa",
            Layout::Favourite => "favorita",
            Layout::ByProfile => "por_perfil",
            Layout::ChecklistFirst => "checklist_primero",
            Layout::Table => "tabla",
            Layout::Headings => "encabezados",
            Layout::Short => "corta",
            Layout::ClarificationFirst => "aclaracion_primero",
            Layout::Faq => "faq",
            Layout::Ranking => "ranking",
            Layout::ProsCons => "pros_contras",
            Layout::Summary => "resumen",
            Layout::Forums => "foros",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_models_three_per_tier_every_layout_weighted() {
        let models = models().expect("modelos.toml loads");
        assert_eq!(models.len(), 6);
        for tier in [Tier::Standard, Tier::Advanced] {
            assert_eq!(models.iter().filter(|m| m.tier == tier).count(), 3);
        }
        let mini = &models[0];
        assert_eq!(mini.id, "gpt-5-mini");
        // The weights come back in LIST_LAYOUTS order: numbered first, forums last.
        let weights = mini.style.weights();
        assert_eq!(weights[0], mini.style.layouts[&Layout::Numbered]);
        assert_eq!(weights[14], mini.style.layouts[&Layout::Forums]);
        assert!(models.iter().all(|m| m.style.weights().iter().sum::<f64>() > 0.0));
    }

    #[test]
    fn a_missing_layout_weight_is_named() {
        let text = MODELS_TOML.replacen("\nforos = 0.5\n", "\n", 1);
        let e = format!("{:#}", load(&text).err().expect("incomplete weights fail"));
        assert!(e.contains("modelos[0].estilo.estructuras: faltan foros"), "{e}");
    }

    #[test]
    fn an_unknown_layout_names_the_line() {
        let text = MODELS_TOML.replacen("foros = 0.5", "foro = 0.5", 1);
        let e = format!("{:#}", load(&text).err().expect("an unknown layout fails"));
        assert!(e.starts_with("generator/synth/modelos.toml: línea "), "{e}");
        assert!(e.contains("foro"), "{e}");
    }
}
