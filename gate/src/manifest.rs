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
    if manifest.format != FORMAT {
        bail!("{}: formato {:?}, esta versión del gate lee {FORMAT:?}", path.display(), manifest.format);
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
        .routes
        .values()
        .map(|r| (&r.file, Some(r.bytes)))
        .chain(manifest.downloads.values().map(|d| (&d.file, Some(d.bytes))))
        .chain(manifest.studies.values().flat_map(|s| s.views.values().map(|v| (&v.file, None))))
        .chain(manifest.studies.values().map(|s| (&s.page_402, None)));
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
    for (url, route) in &manifest.routes {
        if let Some(alternate) = &route.html
            && !manifest.routes.contains_key(alternate)
        {
            bail!("gate.json: la ruta {url} ofrece la alternativa HTML {alternate}, que no es una ruta");
        }
    }
    for (slug, study) in &manifest.studies {
        for name in &study.downloads {
            if !manifest.downloads.contains_key(name) {
                bail!("gate.json: el estudio {slug} lista la descarga {name}, que no está en descargas");
            }
        }
    }
    Ok(())
}

fn check_offers(manifest: &Manifest) -> Result<()> {
    for (slug, study) in &manifest.studies {
        for (view, offer) in &study.views {
            if offer.payment_required_mcp.accepts != offer.payment_required.accepts {
                bail!("gate.json: estudios.{slug}.vistas.{view}: el 402 de MCP pide otros requisitos que el de HTTP");
            }
            if offer.payment_required.accepts.is_empty() {
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
