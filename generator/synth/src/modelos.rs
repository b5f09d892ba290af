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

const ARCHIVO: &str = "generator/synth/modelos.toml";
const TEXTO: &str = include_str!("../modelos.toml");

/// How a model tends to answer. Values are probabilities unless noted.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Estilo {
    /// Chance of a second argument per brand (longer answers).
    pub verbosidad: f64,
    /// Brands per list answer (min, max).
    pub marcas: (usize, usize),
    /// Media sources per answer (min, max).
    pub fuentes: (usize, usize),
    /// Multiplier on the study's brandless-answer rate.
    pub sin_marca: f64,
    /// Chance of citing the site of a named brand.
    pub cita_marca: f64,
    /// Chance of citing a brand site whose brand is not named.
    pub fantasma: f64,
    /// Multiplier on the chance of a caveat per brand.
    pub contra: f64,
    /// Exponent on brand weights: above 1 concentrates on the leaders.
    pub nitidez: f64,
    /// Chance of using the display name rather than an alias.
    pub nombre_completo: f64,
    /// Chance of an opening line in the provider's manner.
    pub apertura: f64,
    /// Chance of a closing block of practical advice.
    pub extension: f64,
    /// Weights of the fifteen list layouts, by name (all fifteen; see [`Estilo::pesos`]).
    pub estructuras: BTreeMap<Estructura, f64>,
}

impl Estilo {
    /// The layout weights in the order of [`LISTAS`] (every layout is present: checked on
    /// load).
    pub(crate) fn pesos(&self) -> [f64; 15] {
        LISTAS.map(|e| self.estructuras.get(&e).copied().unwrap_or(0.0))
    }
}

/// One model: its identity in `estudio.toml` and its style.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Modelo {
    pub id: String,
    pub nombre: String,
    pub proveedor: String,
    pub nivel: Tier,
    /// Versions: the second one is used after a mid-run update.
    pub versiones: [String; 2],
    pub estilo: Estilo,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Archivo {
    modelos: Vec<Modelo>,
}

/// The six models, in the order every `estudio.toml` declares them.
pub(crate) fn modelos() -> Result<Vec<Modelo>> {
    cargar(TEXTO)
}

fn cargar(texto: &str) -> Result<Vec<Modelo>> {
    let archivo: Archivo = generator::load::parse_toml(texto).map_err(|(donde, mensaje)| {
        if donde.is_empty() { anyhow!("{ARCHIVO}: {mensaje}") } else { anyhow!("{ARCHIVO}: {donde}: {mensaje}") }
    })?;
    let mut problemas = Vec::new();
    for (i, m) in archivo.modelos.iter().enumerate() {
        let faltan: Vec<&str> =
            LISTAS.iter().filter(|e| !m.estilo.estructuras.contains_key(e)).map(|e| e.nombre()).collect();
        if !faltan.is_empty() {
            problemas.push(format!("modelos[{i}].estilo.estructuras: faltan {}", faltan.join(", ")));
        }
        let (a, b) = m.estilo.marcas;
        let (c, d) = m.estilo.fuentes;
        if a == 0 || a > b || c > d {
            problemas
                .push(format!("modelos[{i}].estilo: `marcas` y `fuentes` son [mínimo, máximo] y marcas empieza en 1"));
        }
        if archivo.modelos[..i].iter().any(|x| x.id == m.id) {
            problemas.push(format!("modelos[{i}].id: `{}` repetido", m.id));
        }
    }
    for nivel in [Tier::Standard, Tier::Advanced] {
        if !archivo.modelos.iter().any(|m| m.nivel == nivel) {
            problemas.push(format!("modelos: no hay ningún modelo de nivel {}", nivel.as_str()));
        }
    }
    if !problemas.is_empty() {
        bail!("{ARCHIVO}:\n  {}", problemas.join("\n  "));
    }
    Ok(archivo.modelos)
}

/// Which way an answer is laid out (the names are those of `modelos.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Estructura {
    Numerada,
    Guiones,
    Prosa,
    Favorita,
    PorPerfil,
    ChecklistPrimero,
    Tabla,
    Encabezados,
    Corta,
    AclaracionPrimero,
    Faq,
    Ranking,
    ProsContras,
    Resumen,
    Foros,
}

/// The list layouts, in the order of a model's `estructuras` weights.
pub(crate) const LISTAS: [Estructura; 15] = [
    Estructura::Numerada,
    Estructura::Guiones,
    Estructura::Prosa,
    Estructura::Favorita,
    Estructura::PorPerfil,
    Estructura::ChecklistPrimero,
    Estructura::Tabla,
    Estructura::Encabezados,
    Estructura::Corta,
    Estructura::AclaracionPrimero,
    Estructura::Faq,
    Estructura::Ranking,
    Estructura::ProsContras,
    Estructura::Resumen,
    Estructura::Foros,
];

impl Estructura {
    /// The layout's name in `modelos.toml`.
    pub(crate) fn nombre(self) -> &'static str {
        match self {
            Estructura::Numerada => "numerada",
            Estructura::Guiones => "guiones",
            Estructura::Prosa => "prosa",
            Estructura::Favorita => "favorita",
            Estructura::PorPerfil => "por_perfil",
            Estructura::ChecklistPrimero => "checklist_primero",
            Estructura::Tabla => "tabla",
            Estructura::Encabezados => "encabezados",
            Estructura::Corta => "corta",
            Estructura::AclaracionPrimero => "aclaracion_primero",
            Estructura::Faq => "faq",
            Estructura::Ranking => "ranking",
            Estructura::ProsContras => "pros_contras",
            Estructura::Resumen => "resumen",
            Estructura::Foros => "foros",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_models_three_per_tier_every_layout_weighted() {
        let modelos = modelos().expect("modelos.toml loads");
        assert_eq!(modelos.len(), 6);
        for nivel in [Tier::Standard, Tier::Advanced] {
            assert_eq!(modelos.iter().filter(|m| m.nivel == nivel).count(), 3);
        }
        let mini = &modelos[0];
        assert_eq!(mini.id, "gpt-5-mini");
        // The weights come back in LISTAS order: numbered first, forums last.
        let pesos = mini.estilo.pesos();
        assert_eq!(pesos[0], mini.estilo.estructuras[&Estructura::Numerada]);
        assert_eq!(pesos[14], mini.estilo.estructuras[&Estructura::Foros]);
        assert!(modelos.iter().all(|m| m.estilo.pesos().iter().sum::<f64>() > 0.0));
    }

    #[test]
    fn a_missing_layout_weight_is_named() {
        let texto = TEXTO.replacen("\nforos = 0.5\n", "\n", 1);
        let e = format!("{:#}", cargar(&texto).err().expect("incomplete weights fail"));
        assert!(e.contains("modelos[0].estilo.estructuras: faltan foros"), "{e}");
    }

    #[test]
    fn an_unknown_layout_names_the_line() {
        let texto = TEXTO.replacen("foros = 0.5", "foro = 0.5", 1);
        let e = format!("{:#}", cargar(&texto).err().expect("an unknown layout fails"));
        assert!(e.starts_with("generator/synth/modelos.toml: línea "), "{e}");
        assert!(e.contains("foro"), "{e}");
    }
}
