//! `dist/gate.json`, the contract with the generator, loaded once at start.
//!
//! The gate knows nothing the manifest does not say: which URLs are free files, which studies
//! are sold at what price with which 402 requirements, which files can be downloaded and the
//! search index. Loading checks that every file it names exists with the size it claims, so a
//! half-copied `dist/` fails at start, not on a buyer's request.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use generator::search::SearchIndex;
use serde::Deserialize;
use serde_json::Value;

use crate::x402::PaymentRequired;

/// The manifest format this gate reads.
pub const FORMAT: &str = "gate-manifest/1";

#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub formato: String,
    pub servicio: Service,
    pub rutas: BTreeMap<String, Route>,
    pub estudios: BTreeMap<String, Study>,
    pub descargas: BTreeMap<String, Download>,
    pub busqueda: SearchIndex,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Service {
    pub nombre: String,
    pub base_url: String,
    pub modo: String,
    pub vigencia_enlaces_dias: u64,
    pub contacto: String,
    pub redes: Vec<Network>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Network {
    pub red: String,
    pub nombre: String,
    pub caip2: String,
    pub asset: String,
    #[serde(default)]
    pub pagar_a: String,
}

/// A free file served at a URL.
#[derive(Debug, Clone, Deserialize)]
pub struct Route {
    pub archivo: String,
    pub tipo: String,
    pub etag: String,
    pub bytes: u64,
    pub cache: String,
    /// Another route answered instead when the client prefers `text/html`.
    #[serde(default)]
    pub html: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Study {
    pub nombre: String,
    pub precio_usd: String,
    pub monto: String,
    pub vistas: BTreeMap<String, View>,
    pub descargas: Vec<String>,
    /// The HTML sent with the 402 to a browser.
    #[serde(default)]
    pub pagina_402: Option<String>,
}

/// One paid view of a study: the file it delivers and what the 402 asks for it.
#[derive(Debug, Clone, Deserialize)]
pub struct View {
    pub archivo: String,
    /// Kept raw: `accepts` entries are deep-compared with what a client echoes.
    pub pago_requerido: Value,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Download {
    pub archivo: String,
    pub tipo: String,
    pub bytes: u64,
    pub sha256: String,
}

/// The mode the service runs in: the generator's own type, read from the same setting.
pub use generator::model::Mode;

impl Manifest {
    /// Reads `dist/gate.json` and checks every file it names.
    pub fn load(dist: &Path) -> Result<Manifest> {
        let path = dist.join("gate.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("no se pudo leer {}: ¿corrió `generator build`?", path.display()))?;
        let mut de = serde_json::Deserializer::from_str(&text);
        let manifest: Manifest = serde_path_to_error::deserialize(&mut de)
            .with_context(|| format!("{}: el manifiesto no tiene la forma esperada", path.display()))?;
        if manifest.formato != FORMAT {
            bail!("{}: formato {:?}, esta versión del gate lee {FORMAT:?}", path.display(), manifest.formato);
        }
        manifest.mode()?;
        manifest.check_files(dist)?;
        manifest.check_offers()?;
        Ok(manifest)
    }

    pub fn mode(&self) -> Result<Mode> {
        serde_json::from_value(Value::String(self.servicio.modo.clone())).map_err(|_| {
            anyhow::anyhow!("gate.json: servicio.modo {:?} no es local, testnet ni mainnet", self.servicio.modo)
        })
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

    fn check_files(&self, dist: &Path) -> Result<()> {
        let named = self
            .rutas
            .values()
            .map(|r| (&r.archivo, Some(r.bytes)))
            .chain(self.descargas.values().map(|d| (&d.archivo, Some(d.bytes))))
            .chain(self.estudios.values().flat_map(|s| s.vistas.values().map(|v| (&v.archivo, None))))
            .chain(self.estudios.values().filter_map(|s| s.pagina_402.as_ref().map(|p| (p, None))));
        for (relative, bytes) in named {
            let path = Self::file_path(dist, relative)?;
            let meta = std::fs::metadata(&path)
                .with_context(|| format!("gate.json nombra {relative}, que no está en {}", dist.display()))?;
            if let Some(expected) = bytes
                && meta.len() != expected
            {
                bail!("{relative}: mide {} bytes y gate.json dice {expected}", meta.len());
            }
        }
        for (url, route) in &self.rutas {
            if let Some(alternate) = &route.html
                && !self.rutas.contains_key(alternate)
            {
                bail!("gate.json: la ruta {url} ofrece la alternativa HTML {alternate}, que no es una ruta");
            }
        }
        for (slug, study) in &self.estudios {
            for name in &study.descargas {
                if !self.descargas.contains_key(name) {
                    bail!("gate.json: el estudio {slug} lista la descarga {name}, que no está en descargas");
                }
            }
        }
        Ok(())
    }

    fn check_offers(&self) -> Result<()> {
        for (slug, study) in &self.estudios {
            for (view, offer) in &study.vistas {
                let required: PaymentRequired = serde_json::from_value(offer.pago_requerido.clone())
                    .with_context(|| format!("gate.json: estudios.{slug}.vistas.{view}.pago_requerido"))?;
                if required.accepts.is_empty() {
                    bail!("gate.json: estudios.{slug}.vistas.{view} no ofrece ninguna red de pago");
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_stay_inside_dist() {
        let dist = Path::new("/srv/dist");
        assert_eq!(
            Manifest::file_path(dist, "private/descargas/a.zip").unwrap(),
            Path::new("/srv/dist/private/descargas/a.zip")
        );
        for bad in ["../etc/passwd", "/etc/passwd", "private/../../x", "", "./a"] {
            assert!(Manifest::file_path(dist, bad).is_err(), "{bad}");
        }
    }
}
