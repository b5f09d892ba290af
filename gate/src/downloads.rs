//! `GET /descarga/{archivo}?vence=&firma=`: the files a purchase paid for, behind signed links.
//!
//! The name in the URL is only ever a key into the manifest's list of downloads; no path is
//! built from what the client typed, so `../`, encoded dots, absolute paths or NUL bytes can
//! only miss. Every refusal is the same 403 JSON shape with the reason. Files are streamed, whole
//! or one byte range of them (206, so an interrupted download resumes); the link is checked
//! before any range is read, so a range never reaches a file its link does not open.

use std::path::Path;

use crate::links::LinkSigner;
use crate::manifest::{self, Manifest};
use gate_http::query_param;
use gate_http::range::{self, Wanted};
use gate_http::response::{Body, Reply};

/// What the client sent besides the path: the link's query and its `Range` / `If-Range`.
pub struct Asked<'a> {
    pub query: Option<&'a str>,
    pub range: Option<&'a [u8]>,
    pub if_range: Option<&'a [u8]>,
}

/// The file behind a link, checked at `now` (the gate's clock).
pub fn answer(dist: &Path, manifest: &Manifest, links: &LinkSigner, name: &str, asked: Asked<'_>, now: u64) -> Reply {
    let Asked { query, range, if_range } = asked;
    let Some(download) = manifest.downloads.get(name) else {
        return forbidden(
            "enlace_invalido",
            "Ese archivo no se descarga por aquí; los enlaces válidos llegan con cada compra.",
        );
    };
    let expires = query_param(query, "vence");
    let signature = query_param(query, "firma");
    if let Err(e) = links.verify(name, expires.as_deref(), signature.as_deref(), now) {
        return forbidden("enlace_invalido", e.to_string());
    }
    let Ok(path) = manifest::file_path(dist, &download.file) else {
        return Reply::error(500, "error_interno", "El manifiesto nombra un archivo fuera de dist/.");
    };
    let total = download.bytes;
    // The file's sha256 is its strong validator: another build of the file, another ETag.
    let etag = format!("\"{}\"", download.sha256);
    let (status, start, len) = match range::wanted(range, if_range, &etag, total) {
        Wanted::Whole => (200, 0, total),
        Wanted::Part { start, len } => (206, start, len),
        Wanted::Unsatisfiable => {
            return Reply::error(
                416,
                "rango_no_satisfacible",
                format!("El archivo mide {total} bytes; el rango pedido empieza después del final."),
            )
            .with_header("Content-Range", format!("bytes */{total}"))
            .with_header("Accept-Ranges", "bytes")
            .with_header("Cache-Control", "no-store");
        }
    };
    let reply = Reply::new(status, &download.media_type, Body::File { path, start, len })
        .with_header("Content-Disposition", format!("attachment; filename=\"{name}\""))
        .with_header("Cache-Control", "private, no-store")
        .with_header("X-Content-SHA256", download.sha256.clone())
        .with_header("ETag", etag)
        .with_header("Accept-Ranges", "bytes");
    if status == 206 {
        reply.with_header("Content-Range", format!("bytes {start}-{}/{total}", start + len - 1))
    } else {
        reply
    }
}

fn forbidden(code: &str, message: impl Into<String>) -> Reply {
    Reply::error(403, code, message).with_header("Cache-Control", "no-store")
}
