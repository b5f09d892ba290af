//! Stage 3, previous build: the paid files the build already in `--salida` sold.
//!
//! A purchase hands out signed links that name a download (`banca-2026.zip`) for seven days, and
//! a receipt that names each file by its sha256. Rebuilding a study that changed would put other
//! bytes under those names; so when the output folder holds an earlier build, each paid file
//! whose bytes changed gets a new name (`banca-2026.<first 12 hex of its sha256>.zip`), and the
//! earlier file stays under its old name in the new `dist/`, listed in `gate.json` with the study
//! it was a build of (`anterior_de`). The gate needs nothing new: a link names a file, and the
//! file it names never changes. Each change is reported (study, old and new sha256).
//!
//! Retention is the publisher's decision, not a clock's: earlier files are carried from build
//! to build until `generator build --descartar-anteriores` (after the links' lifetime has passed
//! since the last change), so the output stays a pure function of the content and the previous
//! output. Without a previous build (a fresh `dist/`) nothing here changes a byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use contract::manifest::{self, Download, Manifest};

use crate::output::{Output, Staging, sha256_hex};

/// Slug → download names of its JSON package and its ZIP, in this build.
pub type Names = BTreeMap<String, [String; 2]>;

/// What the previous build in the output folder published.
pub struct Previous {
    out: PathBuf,
    manifest: Option<Manifest>,
}

/// The paid files of this build, named, and the earlier ones it keeps.
#[derive(Default)]
pub struct Carried {
    pub names: Names,
    /// Download name → an earlier build's file kept for the links and receipts already issued.
    pub kept: BTreeMap<String, Download>,
    /// One line per study whose paid files changed or that is no longer sold.
    pub warnings: Vec<String>,
}

/// Reads `<out>/gate.json` when there is one (and `discard` is off).
pub fn read(out: &Path, discard: bool) -> Result<Previous> {
    let path = out.join(manifest::FILE);
    if discard || !path.is_file() {
        return Ok(Previous { out: out.to_path_buf(), manifest: None });
    }
    let text = std::fs::read(&path).with_context(|| format!("no se pudo leer {}", path.display()))?;
    let manifest: Manifest = serde_json::from_slice(&text).with_context(|| {
        format!(
            "{}: el manifiesto de la construcción anterior no se pudo leer; sin él no se sabe qué archivos ya se vendieron. Para construir sin conservarlos: --descartar-anteriores",
            path.display()
        )
    })?;
    Ok(Previous { out: out.to_path_buf(), manifest: Some(manifest) })
}

impl Previous {
    /// The previous build's free routes: URL path → ETag (none without a previous build).
    pub fn route_etags(&self) -> BTreeMap<String, String> {
        self.manifest.as_ref().map(route_etags).unwrap_or_default()
    }
}

/// A manifest's free routes: URL path → ETag; `/` takes its HTML page's too, since it answers
/// either (`Vary: Accept`).
pub fn route_etags(manifest: &Manifest) -> BTreeMap<String, String> {
    manifest
        .routes
        .iter()
        .map(|(url, route)| {
            let html = route.html.as_ref().and_then(|page| manifest.routes.get(page)).map(|page| page.etag.as_str());
            (url.clone(), format!("{}{}", route.etag, html.unwrap_or_default()))
        })
        .collect()
}

/// The public paths whose bytes differ between two builds' routes (added, changed or gone), in
/// order, and `/buscar` (a prefix: every cached search) when any did, since search answers
/// from the same studies: what to purge from a cache in front of the gate.
pub fn changed_paths(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|url| before.get(*url) != after.get(*url))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !changed.is_empty() {
        changed.push(SEARCH_PREFIX.to_owned());
    }
    changed
}

/// What a purge names for every cached search answer.
const SEARCH_PREFIX: &str = "/buscar";

/// `banca-2026.zip` with the sha256 `ab12…` → `banca-2026.ab12cd34ef56.zip`.
pub fn versioned(plain: &str, sha256: &str) -> String {
    let short = &sha256[..12.min(sha256.len())];
    match plain.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{short}.{ext}"),
        None => format!("{plain}.{short}"),
    }
}

impl Previous {
    /// The download name of a file of this build: its plain name, unless the previous build sold
    /// other bytes under it.
    pub fn name_for(&self, plain: &str, sha256: &str) -> String {
        match self.manifest.as_ref().and_then(|m| m.downloads.get(plain)) {
            Some(earlier) if earlier.sha256 != sha256 => versioned(plain, sha256),
            _ => plain.to_owned(),
        }
    }

    /// Names every study's paid files, and lists the earlier files to keep and what changed.
    /// `current` is slug → `[(plain name, sha256)]` of the JSON package and the ZIP.
    pub fn carry(&self, current: &BTreeMap<String, [(String, String); 2]>, link_days: u32) -> Carried {
        let mut carried = Carried::default();
        for (slug, files) in current {
            let names = [self.name_for(&files[0].0, &files[0].1), self.name_for(&files[1].0, &files[1].1)];
            carried.names.insert(slug.clone(), names);
        }
        let Some(previous) = &self.manifest else { return carried };
        let in_use: BTreeSet<&String> = carried.names.values().flatten().collect();
        for (name, earlier) in &previous.downloads {
            if in_use.contains(name) {
                continue;
            }
            let owner = earlier.previous_of.clone().or_else(|| {
                previous.studies.iter().find(|(_, s)| s.downloads.contains(name)).map(|(slug, _)| slug.clone())
            });
            let Some(owner) = owner else { continue };
            carried.kept.insert(name.clone(), Download { previous_of: Some(owner), ..earlier.clone() });
        }
        let dist = self.out.display();
        for (slug, study) in &previous.studies {
            let Some(now) = carried.names.get(slug) else {
                carried.warnings.push(format!(
                    "el estudio {slug} ya no está en el contenido; sus archivos de la construcción anterior en {dist} ({}) se conservan para los enlaces y recibos ya emitidos",
                    study.downloads.join(", ")
                ));
                continue;
            };
            let Some(files) = current.get(slug) else { continue };
            for (old_name, (new_name, (_, new_sha))) in study.downloads.iter().zip(now.iter().zip(files)) {
                let Some(old) = previous.downloads.get(old_name) else { continue };
                if old.sha256 != *new_sha {
                    carried.warnings.push(format!(
                        "el estudio {slug} cambió desde la construcción anterior en {dist}: {old_name} (sha256 {}) → {new_name} (sha256 {new_sha}). El archivo anterior se conserva y sigue abriendo con los enlaces y recibos ya emitidos; las compras nuevas reciben el nuevo. Descarte los anteriores con --descartar-anteriores cuando hayan pasado {link_days} días (la vigencia de los enlaces) desde que publicó esta construcción.",
                        old.sha256
                    ));
                }
            }
        }
        carried
    }

    /// Copies each kept file from the previous output into the staging folder, checking that
    /// its bytes are still those `gate.json` listed, and records it in the output.
    pub fn copy_kept(&self, kept: &BTreeMap<String, Download>, staging: &Staging, output: &mut Output) -> Result<()> {
        for (name, download) in kept {
            let from = self.out.join(&download.file);
            let bytes = std::fs::read(&from).with_context(|| {
                format!(
                    "{}: gate.json de la construcción anterior lista la descarga {name}, que ya no está; sin --descartar-anteriores debe seguir ahí",
                    from.display()
                )
            })?;
            let sha256 = sha256_hex(&bytes);
            if sha256 != download.sha256 {
                bail!(
                    "{}: su sha256 es {sha256} y gate.json de la construcción anterior dice {}; alguien cambió ese archivo",
                    from.display(),
                    download.sha256
                );
            }
            let written = staging.write_hashed(&download.file, &bytes)?;
            output.add_written(download.file.clone(), &written)?;
        }
        Ok(())
    }
}
