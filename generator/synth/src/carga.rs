//! Loading the industry data files: each parsed (errors name the file, line and field), its
//! references checked ([`crate::industria`]), and its question blocks expanded into questions by
//! the engine ([`crate::engine::preguntas`]). Apart from both, so the data types need not know
//! the engine that reads them.

use anyhow::{Result, bail};

use crate::engine::preguntas;
use crate::industria::{ARCHIVOS, Industria, validar};
use crate::modelos::Modelo;

/// The nine industries, in slug order; `modelos` are the models their biases may name.
pub(crate) fn industrias(modelos: &[Modelo]) -> Result<Vec<Industria>> {
    ARCHIVOS.iter().map(|(nombre, texto)| cargar(nombre, texto, modelos)).collect()
}

/// Parses, checks and expands one data file; `nombre` is the file name the errors show.
pub(crate) fn cargar(nombre: &str, texto: &str, modelos: &[Modelo]) -> Result<Industria> {
    let archivo = format!("generator/synth/industrias/{nombre}");
    let mut ind: Industria = generator::load::parse_toml(texto).map_err(|(donde, mensaje)| {
        if donde.is_empty() {
            anyhow::anyhow!("{archivo}: {mensaje}")
        } else {
            anyhow::anyhow!("{archivo}: {donde}: {mensaje}")
        }
    })?;
    let problemas = validar(&ind, modelos);
    if !problemas.is_empty() {
        bail!("{archivo}:\n  {}", problemas.join("\n  "));
    }
    ind.preguntas = preguntas::expandir(&ind);
    Ok(ind)
}
