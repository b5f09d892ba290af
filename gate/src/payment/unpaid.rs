//! The unpaid 402 replies: prepared once at load, sent with a fresh sign-in challenge.
//!
//! Every 402 carries a `sign-in-with-x` nonce of its own ([`super::signin`]), yet its bytes
//! (the JSON body, the base64 `PAYMENT-REQUIRED` value, the serialized head) are worth building
//! once: the unpaid 402 is the gate's most frequent paid-route answer. So each is built with
//! [`Challenge::placeholder`], whose three values have the lengths of real ones, and a request
//! copies the bytes and writes its challenge over the placeholders: in place in the body and
//! the head, and in the base64 value by re-encoding only the groups of 3 bytes that hold them.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::HeaderValue;

use super::signin::Challenge;
use gate_http::response::{Body, Reply};

/// The header whose base64 value holds the challenge.
const HEADER: &str = "PAYMENT-REQUIRED";

/// A placeholder at a byte offset: which of the challenge's fields goes there.
#[derive(Debug, Clone, Copy)]
struct Spot {
    at: usize,
    field: usize,
}

/// A span of the `PaymentRequired` JSON, aligned to base64's groups of 3 bytes, holding some
/// placeholders whole.
#[derive(Debug, Clone)]
struct Window {
    start: usize,
    end: usize,
    spots: Vec<Spot>,
}

/// A prepared 402 whose challenge is filled per request.
#[derive(Debug, Clone)]
pub struct Fillable {
    /// The reply with the placeholder challenge, head serialized.
    reply: Reply,
    /// The `PaymentRequired` JSON its header encodes.
    json: Vec<u8>,
    /// Its base64 (the header value).
    encoded: Vec<u8>,
    windows: Vec<Window>,
    body_spots: Vec<Spot>,
    /// Where the header value starts in the prepared head.
    head_at: usize,
    /// Which of the reply's headers is `PAYMENT-REQUIRED`.
    header_index: usize,
    /// Where the reply's own headers end in the prepared head (`Content-Length` follows): a
    /// header added per request goes there.
    opening_end: usize,
    /// The placeholders' lengths, which a challenge's values must have.
    lengths: [usize; 3],
}

/// Every offset of `needle` in `haystack`.
fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return Vec::new();
    }
    (0..=haystack.len() - needle.len()).filter(|&i| haystack[i..].starts_with(needle)).collect()
}

/// The placeholders of each field in `bytes`, if each appears exactly `times` times.
fn spots(bytes: &[u8], times: usize) -> Option<Vec<Spot>> {
    let mut found = Vec::new();
    for (field, placeholder) in Challenge::placeholder().fields().iter().enumerate() {
        let at = find_all(bytes, placeholder.as_bytes());
        if at.len() != times {
            return None;
        }
        found.extend(at.into_iter().map(|at| Spot { at, field }));
    }
    found.sort_by_key(|s| s.at);
    Some(found)
}

fn field_len(field: usize) -> usize {
    Challenge::placeholder().fields()[field].len()
}

impl Fillable {
    /// Prepares `reply`, a 402 built with the placeholder challenge whose `PAYMENT-REQUIRED` is
    /// the base64 of `json`. `in_header` says whether the object carries a challenge at all (an
    /// offer without sign-in has none), `in_body` whether the body carries it too (the JSON 402)
    /// or not (the browser's HTML page). `None` if the placeholders are not where they should
    /// be (then the caller builds each 402 whole).
    pub fn new(reply: Reply, json: Vec<u8>, in_header: bool, in_body: bool) -> Option<Fillable> {
        let reply = reply.prepared();
        let Body::Prepared { head, body } = &reply.body else { return None };
        let header_index = reply.headers.iter().position(|(name, _)| name.eq_ignore_ascii_case(HEADER))?;
        let encoded = STANDARD.encode(&json).into_bytes();
        if reply.headers[header_index].1.as_bytes() != encoded.as_slice() {
            return None;
        }
        let head_at = match find_all(head, &encoded).as_slice() {
            [one] => *one,
            _ => return None,
        };
        let opening_end = find_all(head, b"\r\nContent-Length: ").first()? + 2;
        let body_spots = spots(body, usize::from(in_header && in_body))?;
        let mut windows: Vec<Window> = Vec::new();
        for spot in spots(&json, usize::from(in_header))? {
            let start = spot.at / 3 * 3;
            let end = (spot.at + field_len(spot.field)).div_ceil(3).saturating_mul(3).min(json.len());
            match windows.last_mut() {
                Some(last) if start < last.end => {
                    last.end = last.end.max(end);
                    last.spots.push(spot);
                }
                _ => windows.push(Window { start, end, spots: vec![spot] }),
            }
        }
        let lengths = Challenge::placeholder().fields().map(str::len);
        Some(Fillable { reply, json, encoded, windows, body_spots, head_at, header_index, opening_end, lengths })
    }

    /// The prepared reply with `challenge` in place of the placeholders and `extra` (the MPP
    /// challenges' `WWW-Authenticate`) after its own headers: what building it whole would send.
    /// Head and body are written into one buffer, once, and the `PAYMENT-REQUIRED` value is a
    /// slice of that head: the unpaid 402 is the gate's most frequent paid-route answer.
    pub fn fill(&self, challenge: &Challenge, extra: Option<(&'static str, HeaderValue)>) -> Reply {
        let values = challenge.fields();
        let lengths_match = values.iter().zip(self.lengths).all(|(value, length)| value.len() == length);
        let Body::Prepared { head, body } = &self.reply.body else { return self.unfilled(extra) };
        if !lengths_match || (self.windows.is_empty() && self.body_spots.is_empty()) {
            return self.unfilled(extra);
        }
        let extra_line = extra.as_ref().map(|(name, value)| (name.len() + 4 + value.len(), name, value));
        let head_len = head.len() + extra_line.map_or(0, |(length, ..)| length);
        let mut wire = Vec::with_capacity(head_len + body.len());
        wire.extend_from_slice(&head[..self.opening_end]);
        if let Some((_, name, value)) = extra_line {
            wire.extend_from_slice(name.as_bytes());
            wire.extend_from_slice(b": ");
            wire.extend_from_slice(value.as_bytes());
            wire.extend_from_slice(b"\r\n");
        }
        wire.extend_from_slice(&head[self.opening_end..]);
        wire.extend_from_slice(body);
        // The header value, re-encoded where the challenge changed it, in place in the head.
        let encoded = &mut wire[self.head_at..self.head_at + self.encoded.len()];
        for window in &self.windows {
            let mut chunk = self.json[window.start..window.end].to_vec();
            for spot in &window.spots {
                let at = spot.at - window.start;
                chunk[at..at + self.lengths[spot.field]].copy_from_slice(values[spot.field].as_bytes());
            }
            let from = window.start / 3 * 4;
            let to = from + base64::encoded_len(chunk.len(), true).unwrap_or(0);
            if STANDARD.encode_slice(&chunk, &mut encoded[from..to]).is_err() {
                return self.unfilled(extra);
            }
        }
        for spot in &self.body_spots {
            let at = head_len + spot.at;
            wire[at..at + self.lengths[spot.field]].copy_from_slice(values[spot.field].as_bytes());
        }
        let wire = Bytes::from(wire);
        let mut headers = self.reply.headers.clone();
        headers[self.header_index].1 = base64_header_value(wire.slice(self.head_at..self.head_at + self.encoded.len()));
        headers.extend(extra);
        Reply {
            status: self.reply.status,
            headers,
            body: Body::Prepared { head: wire.slice(..head_len), body: wire.slice(head_len..) },
        }
    }

    /// The prepared reply as it is (its placeholder challenge), with `extra`.
    fn unfilled(&self, extra: Option<(&'static str, HeaderValue)>) -> Reply {
        match extra {
            Some((name, value)) => self.reply.clone().with_header(name, value),
            None => self.reply.clone(),
        }
    }
}

/// A header value from base64 text, without checking it byte by byte as `HeaderValue` would
/// (3 KB per unpaid 402, a tenth of its cost): the base64 alphabet is all visible ASCII.
#[allow(unsafe_code)]
fn base64_header_value(encoded: Bytes) -> HeaderValue {
    debug_assert!(encoded.iter().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(b)));
    // SAFETY: `encoded` is the output of the standard base64 engine (letters, digits, `+`, `/`
    // and `=`), all of which `HeaderValue` accepts.
    unsafe { HeaderValue::from_maybe_shared_unchecked(encoded) }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use gate_http::response::JSON;

    fn reply_for(challenge: &Challenge) -> (Reply, Vec<u8>) {
        let required = json!({"x402Version": 2, "accepts": [], "extensions": {"sign-in-with-x": {"info": {
            "nonce": challenge.nonce, "issuedAt": challenge.issued_at, "expirationTime": challenge.expiration_time}}}});
        let json = serde_json::to_vec(&required).unwrap();
        let body = json!({"error": "pago_requerido", "x402": required});
        let reply = Reply::json(402, &body).with_header(HEADER, STANDARD.encode(&json)).with_header("Vary", "Accept");
        (reply, json)
    }

    #[test]
    fn a_filled_402_is_the_402_built_with_that_challenge_and_that_header() {
        let (template, json) = reply_for(&Challenge::placeholder());
        let fillable = Fillable::new(template, json, true, true).expect("placeholders found");
        let cases = [
            (0u64, "0123456789abcdef0123456789abcdef", None),
            (59, "ffffffffffffffffffffffffffffff00", Some("Payment id=\"abc\", method=\"evm\"")),
        ];
        for (seconds, nonce, mpp) in cases {
            let challenge = Challenge {
                nonce: nonce.into(),
                issued_at: format!("2026-01-15T10:30:{seconds:02}.000Z"),
                expiration_time: format!("2026-01-15T10:35:{seconds:02}.000Z"),
            };
            let (expected, _) = reply_for(&challenge);
            let mut expected = expected.prepared();
            if let Some(value) = mpp {
                expected = expected.with_header("WWW-Authenticate", value);
            }
            let extra = mpp.map(|value| ("WWW-Authenticate", HeaderValue::from_static(value)));
            let filled = fillable.fill(&challenge, extra);
            let (Body::Prepared { head, body }, Body::Prepared { head: want_head, body: want_body }) =
                (&filled.body, &expected.body)
            else {
                panic!("prepared")
            };
            assert_eq!(body, want_body);
            assert_eq!(head, want_head);
            assert_eq!(filled.headers, expected.headers);
            let decoded: Value =
                serde_json::from_slice(&STANDARD.decode(filled.headers[1].1.as_bytes()).unwrap()).unwrap();
            assert_eq!(decoded["extensions"]["sign-in-with-x"]["info"]["nonce"], nonce);
        }
    }

    #[test]
    fn a_402_without_its_placeholders_is_not_fillable() {
        let (template, json) = reply_for(&Challenge::placeholder());
        let other = Reply::new(402, JSON, Body::Bytes(Bytes::from_static(b"{}")));
        assert!(Fillable::new(other, json.clone(), true, true).is_none(), "no PAYMENT-REQUIRED");
        assert!(Fillable::new(template.clone(), json.clone(), true, false).is_none(), "the body holds them, once");
        assert!(Fillable::new(template, json, false, false).is_none(), "the object holds them");
    }
}
