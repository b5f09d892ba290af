//! `GET /descarga/{archivo}?vence=&firma=`: the files a purchase paid for, behind signed links.
//!
//! The name in the URL is only ever a key into the manifest's list of downloads; no path is
//! built from what the client typed, so `../`, encoded dots, absolute paths or NUL bytes can
//! only miss. Every refusal is the same 403 JSON shape with the reason. Files are streamed.

use std::path::Path;

use crate::clock::now;
use crate::http::response::{Body, Reply};
use crate::http::server::query_param;
use crate::links::LinkSigner;
use crate::manifest::{self, Manifest};

pub fn answer(dist: &Path, manifest: &Manifest, links: &LinkSigner, name: &str, query: Option<&str>) -> Reply {
    let Some(download) = manifest.descargas.get(name) else {
        return forbidden(
            "enlace_invalido",
            "Ese archivo no se descarga por aquí; los enlaces válidos llegan con cada compra.",
        );
    };
    let vence = query_param(query, "vence");
    let firma = query_param(query, "firma");
    if let Err(e) = links.verify(name, vence.as_deref(), firma.as_deref(), now()) {
        return forbidden("enlace_invalido", e.to_string());
    }
    let Ok(path) = manifest::file_path(dist, &download.archivo) else {
        return Reply::error(500, "error_interno", "El manifiesto nombra un archivo fuera de dist/.");
    };
    Reply::new(200, &download.tipo, Body::File { path, len: download.bytes })
        .with_header("Content-Disposition", format!("attachment; filename=\"{name}\""))
        .with_header("Cache-Control", "private, no-store")
        .with_header("X-Content-SHA256", download.sha256.clone())
}

fn forbidden(code: &str, message: impl Into<String>) -> Reply {
    Reply::error(403, code, message).with_header("Cache-Control", "no-store")
}
