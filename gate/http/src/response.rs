//! What a route answers, independent of how the server writes it.
//!
//! Every route returns a [`Reply`]: a status, headers and a body that is either bytes already
//! in memory or a file to stream. The common headers (CORS with the x402 headers exposed) are
//! added here once, and every error is JSON with a stable `error` code and a Spanish `mensaje`.

use std::path::PathBuf;

use bytes::Bytes;
use http::HeaderValue;
use serde::Serialize;
use serde_json::{Value, json};

/// Headers a browser-based x402 or MPP client must be able to read (a macro, so that the
/// prepared head lines below are one literal).
macro_rules! expose_headers {
    () => {
        "PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt"
    };
}
pub const EXPOSE_HEADERS: &str = expose_headers!();
/// Request headers a browser may send cross-origin.
pub const ALLOW_HEADERS: &str = "PAYMENT-SIGNATURE, SIGN-IN-WITH-X, Authorization, Accept-Payment, Content-Type, Accept, If-None-Match, Range, If-Range, MCP-Protocol-Version, Mcp-Session-Id";
pub const JSON: &str = "application/json; charset=utf-8";

/// The CORS lines every answer ends its head with, after `Content-Length`.
const COMMON_HEAD_LINES: &str =
    concat!("Access-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: ", expose_headers!(), "\r\n");

/// Appends the `Content-Length` line and the common CORS lines.
fn push_length_and_common(head: &mut Vec<u8>, length: usize) {
    head.extend_from_slice(b"Content-Length: ");
    head.extend_from_slice(itoa::Buffer::new().format(length).as_bytes());
    head.extend_from_slice(b"\r\n");
    head.extend_from_slice(COMMON_HEAD_LINES.as_bytes());
}

/// The status and headers of answers that differ only in their body (search answers),
/// serialized once: each answer's head is this with its `Content-Length` added, and the
/// reply is what [`Reply::prepared`] would have made of it.
#[derive(Debug, Clone)]
pub struct PreparedHead {
    status: u16,
    headers: Vec<(&'static str, HeaderValue)>,
    opening: Vec<u8>,
}

impl PreparedHead {
    /// `reply`'s status and headers (its body is ignored).
    pub fn new(reply: &Reply) -> PreparedHead {
        PreparedHead { status: reply.status, headers: reply.headers.clone(), opening: reply.head_opening() }
    }

    /// The reply with `body`.
    pub fn reply(&self, body: Bytes) -> Reply {
        let mut head = Vec::with_capacity(self.opening.len() + 32 + COMMON_HEAD_LINES.len());
        head.extend_from_slice(&self.opening);
        push_length_and_common(&mut head, body.len());
        Reply {
            status: self.status,
            headers: self.headers.clone(),
            body: Body::Prepared { head: Bytes::from(head), body },
        }
    }
}

/// A response body.
#[derive(Debug, Clone)]
pub enum Body {
    Empty,
    Bytes(Bytes),
    /// Bytes in memory in several pieces, sent one after the other: a paid answer around a
    /// study file held in memory, which is never copied into one buffer.
    Parts(Vec<Bytes>),
    /// Bytes in memory whose response head was serialized once, at load (a free document):
    /// `head` is the status line and every header but `Date` and `Connection`, each line
    /// ending in CRLF. A plain HTTP/1 connection gets `head`, those two and `body` in one write;
    /// any other gets the reply's `headers` through Pingora as usual.
    Prepared {
        head: Bytes,
        body: Bytes,
    },
    /// Part of a file sent from disk (never loaded whole): `len` bytes from byte `start`
    /// (the whole file is `start` 0 and its size, known from the manifest).
    File {
        path: PathBuf,
        start: u64,
        len: u64,
    },
}

impl Body {
    pub fn len(&self) -> u64 {
        match self {
            Body::Empty => 0,
            Body::Bytes(b) | Body::Prepared { body: b, .. } => b.len() as u64,
            Body::Parts(parts) => parts.iter().map(|p| p.len() as u64).sum(),
            Body::File { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A route's answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// Headers besides Content-Length and the common CORS ones, which the server adds. Values
    /// are shared bytes: a reply built once (a 402, a free file) is cloned per request without
    /// copying or re-checking its headers.
    pub headers: Vec<(&'static str, HeaderValue)>,
    pub body: Body,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: Body) -> Reply {
        Reply::typed(status, content_type.into_header_value(), body)
    }

    /// A reply whose `Content-Type` is already a header value.
    pub fn typed(status: u16, content_type: HeaderValue, body: Body) -> Reply {
        Reply { status, headers: vec![("Content-Type", content_type)], body }
    }

    /// A JSON reply from any serializable value.
    pub fn json<T: Serialize>(status: u16, value: &T) -> Reply {
        // Most answers are a few KB: start there rather than grow from nothing.
        let mut bytes = Vec::with_capacity(4096);
        match serde_json::to_writer(&mut bytes, value) {
            Ok(()) => Reply::new(status, JSON, Body::Bytes(Bytes::from(bytes))),
            Err(_) => Reply::new(500, JSON, Body::Bytes(Bytes::from_static(INTERNAL_ERROR))),
        }
    }

    /// A JSON error: `{"error": code, "mensaje": message}` plus optional fields.
    pub fn error(status: u16, code: &str, message: impl Into<String>) -> Reply {
        Reply::json(status, &json!({"error": code, "mensaje": message.into()}))
    }

    /// A JSON error with extra fields merged in.
    pub fn error_with(status: u16, code: &str, message: impl Into<String>, extra: Value) -> Reply {
        let mut body = json!({"error": code, "mensaje": message.into()});
        if let (Some(map), Value::Object(more)) = (body.as_object_mut(), extra) {
            map.extend(more);
        }
        Reply::json(status, &body)
    }

    pub fn not_found(path: &str) -> Reply {
        Reply::error_with(
            404,
            "no_encontrado",
            format!("No hay nada en {path}. El índice del servicio está en / y el catálogo en /catalogo."),
            json!({"indice": "/", "catalogo": "/catalogo"}),
        )
    }

    pub fn method_not_allowed(method: &str, allow: &'static str) -> Reply {
        Reply::error(405, "metodo_no_permitido", format!("{method} no se admite en esta ruta; use {allow}."))
            .with_header("Allow", allow)
    }

    /// The body, when it is bytes in memory.
    pub fn bytes(&self) -> Option<&Bytes> {
        match &self.body {
            Body::Bytes(bytes) | Body::Prepared { body: bytes, .. } => Some(bytes),
            _ => None,
        }
    }

    /// The same reply with its head serialized now (see [`Body::Prepared`]): for answers built
    /// once and sent many times (free documents, the unpaid 402s) or whose head is cheaper to
    /// write as bytes than through Pingora's header map (search answers). Files and answers in
    /// parts are left alone.
    pub fn prepared(mut self) -> Reply {
        let body = match std::mem::replace(&mut self.body, Body::Empty) {
            Body::Empty => Bytes::new(),
            Body::Bytes(bytes) | Body::Prepared { body: bytes, .. } => bytes,
            unprepared @ (Body::File { .. } | Body::Parts(_)) => {
                self.body = unprepared;
                return self;
            }
        };
        let head = self.serialize_head(body.len());
        self.body = Body::Prepared { head, body };
        self
    }

    /// The head the server writes for this reply (see `write_reply` in [`crate::writing`]),
    /// without `Date` and `Connection`: status line, the reply's headers, `Content-Length` and
    /// the CORS headers, each line ending in CRLF.
    fn serialize_head(&self, length: usize) -> Bytes {
        let mut head = self.head_opening();
        push_length_and_common(&mut head, length);
        Bytes::from(head)
    }

    /// The head up to `Content-Length`: the status line and the reply's own headers.
    fn head_opening(&self) -> Vec<u8> {
        let status = http::StatusCode::from_u16(self.status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
        let mut head = Vec::with_capacity(256 + self.headers.iter().map(|(_, v)| v.len() + 32).sum::<usize>());
        head.extend_from_slice(b"HTTP/1.1 ");
        head.extend_from_slice(status.as_str().as_bytes());
        head.push(b' ');
        head.extend_from_slice(status.canonical_reason().unwrap_or("").as_bytes());
        head.extend_from_slice(b"\r\n");
        for (name, value) in &self.headers {
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(value.as_bytes());
            head.extend_from_slice(b"\r\n");
        }
        head
    }

    pub fn with_header(mut self, name: &'static str, value: impl IntoHeaderValue) -> Reply {
        self.headers.push((name, value.into_header_value()));
        // A head serialized earlier must say it too.
        if matches!(self.body, Body::Prepared { .. }) { self.prepared() } else { self }
    }
}

/// Text that becomes a header value. The gate's values are its own (codes, numbers, base64,
/// ETags); should one ever hold a byte no header may carry (a control character), that byte
/// becomes `?` rather than the whole reply failing.
pub trait IntoHeaderValue {
    fn into_header_value(self) -> HeaderValue;
}

impl IntoHeaderValue for HeaderValue {
    fn into_header_value(self) -> HeaderValue {
        self
    }
}

impl IntoHeaderValue for String {
    fn into_header_value(self) -> HeaderValue {
        header_value(Bytes::from(self))
    }
}

impl IntoHeaderValue for &str {
    fn into_header_value(self) -> HeaderValue {
        header_value(Bytes::copy_from_slice(self.as_bytes()))
    }
}

fn header_value(bytes: Bytes) -> HeaderValue {
    match HeaderValue::from_maybe_shared(bytes.clone()) {
        Ok(value) => value,
        Err(_) => {
            let cleaned: Vec<u8> =
                bytes.iter().map(|&b| if b == b'\t' || (b >= 0x20 && b != 0x7f) { b } else { b'?' }).collect();
            HeaderValue::from_maybe_shared(Bytes::from(cleaned)).unwrap_or(HeaderValue::from_static(""))
        }
    }
}

const INTERNAL_ERROR: &[u8] =
    br#"{"error":"error_interno","mensaje":"Error interno del servidor al armar la respuesta."}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_json_with_code_and_message() {
        let reply = Reply::error_with(400, "x", "y", json!({"z": 1}));
        let Body::Bytes(bytes) = &reply.body else { panic!("bytes") };
        let v: Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(v, json!({"error": "x", "mensaje": "y", "z": 1}));
        assert_eq!(reply.headers[0], ("Content-Type", HeaderValue::from_static(JSON)));
    }

    #[test]
    fn header_values_keep_text_and_replace_control_characters() {
        assert_eq!("W/\"a b\"\tñ".into_header_value().as_bytes(), "W/\"a b\"\tñ".as_bytes());
        assert_eq!(String::from("a\r\nSet-Cookie: x\u{7f}").into_header_value(), "a??Set-Cookie: x?");
        let shared = "x".repeat(5000).into_header_value();
        assert_eq!(shared.clone().as_bytes().as_ptr(), shared.as_bytes().as_ptr(), "clones share the bytes");
    }

    fn prepared_parts(reply: &Reply) -> (&Bytes, &Bytes) {
        let Body::Prepared { head, body } = &reply.body else { panic!("prepared") };
        (head, body)
    }

    #[test]
    fn a_prepared_head_gives_what_preparing_the_reply_gives() {
        let template = Reply::new(200, JSON, Body::Empty).with_header("Cache-Control", "public, max-age=60");
        let head = PreparedHead::new(&template);
        for body in [Bytes::new(), Bytes::from_static(b"{\"a\":1}"), Bytes::from(vec![b'x'; 123_456])] {
            let mut plain = template.clone();
            plain.body = Body::Bytes(body.clone());
            let (expected, reply) = (plain.prepared(), head.reply(body.clone()));
            assert_eq!(reply.status, expected.status);
            assert_eq!(reply.headers, expected.headers);
            assert_eq!(prepared_parts(&reply), prepared_parts(&expected));
        }
        let five = head.reply(Bytes::from_static(b"12345"));
        let (head_bytes, _) = prepared_parts(&five);
        let text = std::str::from_utf8(head_bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"), "{text}");
        assert!(text.contains("\r\nContent-Length: 5\r\n"), "{text}");
        assert!(text.ends_with(&format!("Access-Control-Expose-Headers: {EXPOSE_HEADERS}\r\n")), "{text}");
    }
}
