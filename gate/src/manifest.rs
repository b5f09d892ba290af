//! `dist/gate.json`, the contract with the generator, loaded once at start.
//!
//! The types are [`contract::manifest`]'s, the same the generator writes. Loading checks
//! that every file the manifest names exists with the size it claims and that every study
//! offers a network, so a half-copied `dist/` fails at start, not on a buyer's request.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

pub use contract::Mode;
pub use contract::manifest::{Download, FORMAT, Manifest, Network, Route, Service, Study, ViewOffer};

/// Reads `dist/gate.json` and checks every file it names.
pub fn load(dist: &Path) -> Result<Manifest> {
    let path = dist.join(contract::manifest::FILE);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("no se pudo leer {}: ¿corrió `generator build`?", path.display()))?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let manifest: Manifest = serde_path_to_error::deserialize(&mut de)
        .with_context(|| format!("{}: el manifiesto no tiene la forma esperada", path.display()))?;
    if manifest.formato != FORMAT {
        bail!("{}: formato {:?}, esta versión del gate lee {FORMAT:?}", path.display(), manifest.formato);
    }
    check_files(&manifest, dist)?;
    check_offers(&manifest)?;
    Ok(manifest)
}

/// The absolute path of a file the manifest names, refusing anything that could leave `dist/`.
pub fn file_path(dist: &Path, relative: &str) -> Result<PathBuf> {
    let rel = Path::new(relative);
    let safe = rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !safe || relative.is_empty() {
        bail!("gate.json: la ruta {relative:?} no es relativa a dist/");
    }
    Ok(dist.join(rel))
}

fn check_files(manifest: &Manifest, dist: &Path) -> Result<()> {
    let named = manifest
        .rutas
        .values()
        .map(|r| (&r.archivo, Some(r.bytes)))
        .chain(manifest.descargas.values().map(|d| (&d.archivo, Some(d.bytes))))
        .chain(manifest.estudios.values().flat_map(|s| s.vistas.values().map(|v| (&v.archivo, None))))
        .chain(manifest.estudios.values().map(|s| (&s.pagina_402, None)));
    for (relative, bytes) in named {
        let path = file_path(dist, relative)?;
        let meta = std::fs::metadata(&path)
            .with_context(|| format!("gate.json nombra {relative}, que no está en {}", dist.display()))?;
        if let Some(expected) = bytes
            && meta.len() != expected
        {
            bail!("{relative}: mide {} bytes y gate.json dice {expected}", meta.len());
        }
    }
    for (url, route) in &manifest.rutas {
        if let Some(alternate) = &route.html
            && !manifest.rutas.contains_key(alternate)
        {
            bail!("gate.json: la ruta {url} ofrece la alternativa HTML {alternate}, que no es una ruta");
        }
    }
    for (slug, study) in &manifest.estudios {
        for name in &study.descargas {
            if !manifest.descargas.contains_key(name) {
                bail!("gate.json: el estudio {slug} lista la descarga {name}, que no está en descargas");
            }
        }
    }
    Ok(())
}

fn check_offers(manifest: &Manifest) -> Result<()> {
    for (slug, study) in &manifest.estudios {
        for (view, offer) in &study.vistas {
            if offer.pago_requerido_mcp.accepts != offer.pago_requerido.accepts {
                bail!("gate.json: estudios.{slug}.vistas.{view}: el 402 de MCP pide otros requisitos que el de HTTP");
            }
            if offer.pago_requerido.accepts.is_empty() {
                bail!("gate.json: estudios.{slug}.vistas.{view} no ofrece ninguna red de pago");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_stay_inside_dist() {
        let dist = Path::new("/srv/dist");
        assert_eq!(file_path(dist, "private/descargas/a.zip").unwrap(), Path::new("/srv/dist/private/descargas/a.zip"));
        for bad in ["../etc/passwd", "/etc/passwd", "private/../../x", "", "./a"] {
            assert!(file_path(dist, bad).is_err(), "{bad}");
        }
    }
}
