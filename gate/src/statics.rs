//! The free documents of `dist/public`, held in memory with their headers worked out at start.
//!
//! `dist/` is immutable while the gate runs, so reading files per request would only add
//! latency (measured on Pingora: per-request reads cost a third to two thirds of the
//! throughput). Each route from the manifest becomes bytes plus the headers a CDN would send:
//! content type, strong ETag, Cache-Control; `If-None-Match` answers 304.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use bytes::Bytes;

use http::HeaderValue;

use crate::manifest::{self, Manifest};
use gate_http::response::{Body, IntoHeaderValue, Reply};

/// One free document.
#[derive(Debug, Clone)]
pub struct StaticFile {
    pub content_type: HeaderValue,
    pub etag: HeaderValue,
    pub cache_control: HeaderValue,
    pub bytes: Bytes,
    /// The route answered instead to a client that prefers HTML (the home page, on `/`).
    pub html: Option<String>,
    /// Its replies, heads serialized once: [200, 304] × [without, with `Vary: Accept`].
    replies: [[Reply; 2]; 2],
}

/// The pages' policy, checked as a header value when the gate is compiled.
const CSP: HeaderValue = HeaderValue::from_static(contract::CONTENT_SECURITY_POLICY);

/// Every free route, by URL path.
#[derive(Debug, Default)]
pub struct Statics {
    files: BTreeMap<String, StaticFile>,
}

impl Statics {
    /// Loads every route the manifest lists, checking sizes.
    pub fn load(dist: &Path, manifest: &Manifest) -> Result<Statics> {
        let mut files = BTreeMap::new();
        for (url, route) in &manifest.routes {
            let path = manifest::file_path(dist, &route.file)?;
            let bytes = std::fs::read(&path).with_context(|| format!("no se pudo leer {}", path.display()))?;
            if bytes.len() as u64 != route.bytes {
                bail!("{}: {} bytes, gate.json dice {}", route.file, bytes.len(), route.bytes);
            }
            let file = StaticFile::new(
                route.media_type.as_str().into_header_value(),
                route.etag.as_str().into_header_value(),
                route.cache.as_str().into_header_value(),
                Bytes::from(bytes),
                route.html.clone(),
            );
            files.insert(url.clone(), file);
        }
        Ok(Statics { files })
    }

    /// Adds (or replaces) a document the gate makes itself rather than reads from `dist/`.
    pub fn insert(&mut self, path: &str, file: StaticFile) {
        self.files.insert(path.to_owned(), file);
    }

    pub fn get(&self, path: &str) -> Option<&StaticFile> {
        self.files.get(path).or_else(|| {
            // "/catalogo/" and "/catalogo" are the same document.
            let trimmed = path.strip_suffix('/').filter(|p| !p.is_empty())?;
            self.files.get(trimmed)
        })
    }

    /// The reply for a GET or HEAD of a free route, choosing HTML or JSON by `Accept` where the
    /// route has both (`Vary: Accept` then).
    pub fn answer(&self, path: &str, accept: Option<&[u8]>, if_none_match: Option<&[u8]>) -> Option<Reply> {
        let file = self.get(path)?;
        let Some(alternate) = &file.html else { return Some(file.answer(if_none_match, false)) };
        let chosen = match self.files.get(alternate) {
            Some(page) if gate_http::pages::prefers_html(accept) => page,
            _ => file,
        };
        Some(chosen.answer(if_none_match, true))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Total bytes held in memory.
    pub fn bytes(&self) -> usize {
        self.files.values().map(|f| f.bytes.len()).sum()
    }
}

impl StaticFile {
    pub fn new(
        content_type: HeaderValue,
        etag: HeaderValue,
        cache_control: HeaderValue,
        bytes: Bytes,
        html: Option<String>,
    ) -> StaticFile {
        let reply =
            |status, vary| document_reply(&content_type, &etag, &cache_control, &bytes, status, vary).prepared();
        let replies = [[reply(200, false), reply(200, true)], [reply(304, false), reply(304, true)]];
        StaticFile { content_type, etag, cache_control, bytes, html, replies }
    }

    /// The reply for a GET or HEAD, honouring `If-None-Match` (without `Vary`).
    pub fn reply_to(&self, if_none_match: Option<&[u8]>) -> Reply {
        self.answer(if_none_match, false)
    }

    /// The reply for a GET or HEAD, honouring `If-None-Match`: one made at load.
    fn answer(&self, if_none_match: Option<&[u8]>, vary: bool) -> Reply {
        let etag = self.etag.to_str().unwrap_or_default();
        let not_modified = if_none_match.is_some_and(|v| etag_matches(v, etag));
        self.replies[usize::from(not_modified)][usize::from(vary)].clone()
    }
}

/// A free document's reply for `status` (200 or 304), with `Vary: Accept` where the route also
/// has an HTML page.
fn document_reply(
    content_type: &HeaderValue,
    etag: &HeaderValue,
    cache_control: &HeaderValue,
    bytes: &Bytes,
    status: u16,
    vary: bool,
) -> Reply {
    let body = if status == 304 { Body::Empty } else { Body::Bytes(bytes.clone()) };
    let mut reply = Reply::typed(status, content_type.clone(), body);
    reply.headers.push(("ETag", etag.clone()));
    reply.headers.push(("Cache-Control", cache_control.clone()));
    if content_type.as_bytes().starts_with(b"text/html") {
        reply.headers.push(("Content-Security-Policy", CSP));
    }
    if vary {
        reply.headers.push(("Vary", HeaderValue::from_static("Accept")));
    }
    reply
}

/// Whether an `If-None-Match` value names this ETag (a list, weak forms, or `*`).
fn etag_matches(header: &[u8], etag: &str) -> bool {
    let Ok(header) = std::str::from_utf8(header) else { return false };
    header
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate == etag || candidate.strip_prefix("W/") == Some(etag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_match_lists_weak_forms_and_star() {
        let e = "\"abc\"";
        assert!(etag_matches(b"\"abc\"", e));
        assert!(etag_matches(b"\"x\", W/\"abc\"", e));
        assert!(etag_matches(b"*", e));
        assert!(!etag_matches(b"\"abd\"", e));
        assert!(!etag_matches(b"abc", e));
    }

    #[test]
    fn not_modified_has_no_body_but_keeps_the_etag() {
        let f = StaticFile::new(
            HeaderValue::from_static("application/json"),
            HeaderValue::from_static("\"abc\""),
            HeaderValue::from_static("public, max-age=300"),
            Bytes::from_static(b"{}"),
            None,
        );
        let r = f.reply_to(Some(b"\"abc\""));
        assert_eq!(r.status, 304);
        assert!(r.body.is_empty());
        assert!(r.headers.iter().any(|(n, v)| *n == "ETag" && v == "\"abc\""));
        assert_eq!(f.reply_to(None).status, 200);
    }
}
