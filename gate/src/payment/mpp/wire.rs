//! MPP's wire forms: the `WWW-Authenticate: Payment` challenge, the `Authorization: Payment`
//! credential and the `Payment-Receipt`, each parsed and formatted, with base64url, JCS and the
//! challenge id they rest on. Written from `tempoxyz/mpp-specs` f9506cd
//! (`draft-httpauth-payment-00`) and held to the conformance vectors of `tempoxyz/mpp-tools`
//! (`tests/mpp-conformance/`, run by `tests/tests/mpp_conformance.rs`), which are newer than that
//! draft in two points followed here: a challenge may name the request header its credential
//! travels in (`header`, bound into the id before `opaque` unless it is `Authorization`), and the
//! challenge-id key is at least 32 bytes.
//!
//! Parsing is permissive where the vectors ask it (unknown parameters, extra whitespace, any
//! parameter order, a scheme name in any case, text after a closed quoted-string up to the next
//! comma) and strict where they ask that (a missing or empty `id`, a missing required parameter,
//! a repeated parameter, a `request` that is not base64url of a JSON object). It runs in one pass
//! over the header, without backtracking.

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::Sha256;

/// JSON Canonicalization Scheme (RFC 8785): the one the signed offers and receipts use.
pub use crate::x402::receipt::canonical;

/// base64url; writes without padding, reads with or without.
pub const B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_encode_padding(false).with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The shortest challenge-id key accepted.
pub const MIN_KEY_BYTES: usize = 32;
/// The largest credential decoded (mppx caps `request` at 16 KiB).
pub const MAX_CREDENTIAL_BYTES: usize = 32 * 1024;

/// Why a header could not be parsed or formatted (in Spanish: it reaches buyers in problem
/// details).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl WireError {
    fn new(text: impl Into<String>) -> WireError {
        WireError(text.into())
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WireError {}

/// One challenge, its fields as they travel (`request` as base64url of its JCS JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    pub realm: String,
    pub method: String,
    pub intent: String,
    pub request: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opaque: Option<String>,
    /// The request header the credential is to travel in, when not `Authorization`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
}

impl Challenge {
    /// A challenge from its JSON form (MCP's and the vectors'), whose `request` is the JSON
    /// object (encoded here as base64url of its JCS) or its base64url.
    pub fn from_json(value: &Value) -> Result<Challenge, WireError> {
        let mut value = value.clone();
        if let Some(request) = value.get_mut("request")
            && request.is_object()
        {
            *request = Value::String(encode(canonical(request).as_bytes()));
        }
        serde_json::from_value(value).map_err(|e| WireError::new(format!("el desafío no tiene la forma esperada: {e}")))
    }

    /// The JSON form, `request` decoded (`null` if it does not decode to a JSON object).
    pub fn to_json(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["request"] = self.request_json().unwrap_or(Value::Null);
        value
    }

    /// The decoded `request`, a JSON object.
    pub fn request_json(&self) -> Result<Value, WireError> {
        let bytes = decode(&self.request).map_err(|_| WireError::new("request no es base64url"))?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|_| WireError::new("request no es JSON"))?;
        if !value.is_object() {
            return Err(WireError::new("request no es un objeto JSON"));
        }
        Ok(value)
    }
}

/// A credential, as sent base64url-encoded after `Authorization: Payment`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Credential {
    pub challenge: Challenge,
    pub payload: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A receipt, as sent base64url-encoded in `Payment-Receipt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub method: String,
    pub reference: String,
    pub status: String,
    pub timestamp: String,
    /// Members a method adds.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

pub fn encode(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

pub fn decode(text: &str) -> Result<Vec<u8>, WireError> {
    B64.decode(text).map_err(|_| WireError::new("no es base64url"))
}

/// The challenge id: base64url(HMAC-SHA256(key, `realm|method|intent|request|expires|digest|`
/// `[header|]opaque`)), absent optional fields as empty slots, `header` only when it names a
/// header other than `Authorization`.
pub fn challenge_id(key: &[u8], c: &Challenge) -> Result<String, WireError> {
    if key.len() < MIN_KEY_BYTES {
        return Err(WireError::new(format!("la clave de los desafíos tiene menos de {MIN_KEY_BYTES} bytes")));
    }
    let mut slots = vec![
        c.realm.as_str(),
        c.method.as_str(),
        c.intent.as_str(),
        c.request.as_str(),
        c.expires.as_deref().unwrap_or_default(),
        c.digest.as_deref().unwrap_or_default(),
    ];
    if let Some(header) = c.header.as_deref().filter(|h| !h.eq_ignore_ascii_case("authorization")) {
        slots.push(header);
    }
    slots.push(c.opaque.as_deref().unwrap_or_default());
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|_| WireError::new("clave HMAC inválida"))?;
    mac.update(slots.join("|").as_bytes());
    Ok(encode(&mac.finalize().into_bytes()))
}

/// A `Payment` challenge as a `WWW-Authenticate` value, parameters in mppx's order. Refuses a
/// value with a control character (CR, LF: header injection).
pub fn format_challenge(c: &Challenge) -> Result<String, WireError> {
    let mut params = vec![
        ("id", c.id.as_str()),
        ("realm", c.realm.as_str()),
        ("method", c.method.as_str()),
        ("intent", c.intent.as_str()),
        ("request", c.request.as_str()),
    ];
    let optional = [
        ("description", &c.description),
        ("digest", &c.digest),
        ("expires", &c.expires),
        ("opaque", &c.opaque),
        ("header", &c.header),
    ];
    params.extend(optional.iter().filter_map(|(name, value)| value.as_deref().map(|v| (*name, v))));
    let mut parts = Vec::with_capacity(params.len());
    for (name, value) in params {
        if value.chars().any(char::is_control) {
            return Err(WireError::new(format!("{name} tiene un carácter de control")));
        }
        parts.push(format!("{name}=\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\"")));
    }
    Ok(format!("Payment {}", parts.join(", ")))
}

/// The first `Payment` challenge of a `WWW-Authenticate` value.
pub fn parse_challenge(header: &str) -> Result<Challenge, WireError> {
    parse_challenges(header)?.into_iter().next().ok_or_else(|| WireError::new("no hay un desafío Payment"))
}

/// Every `Payment` challenge of a `WWW-Authenticate` value, in order (challenges of other
/// schemes are skipped); an error if there is none or one is malformed.
pub fn parse_challenges(header: &str) -> Result<Vec<Challenge>, WireError> {
    let mut found = Vec::new();
    for (scheme, params) in auth_challenges(header)? {
        if scheme.eq_ignore_ascii_case("payment") {
            found.push(challenge_of(params)?);
        }
    }
    if found.is_empty() {
        return Err(WireError::new("no hay un desafío Payment"));
    }
    Ok(found)
}

/// An auth-param: its name (lowercased) and its value (unescaped).
type Param = (String, String);

/// A challenge of an auth header: its scheme and its auth-params, in order.
type AuthChallenge = (String, Vec<Param>);

fn challenge_of(params: Vec<Param>) -> Result<Challenge, WireError> {
    let mut fields = Map::new();
    for (name, value) in params {
        if fields.insert(name.clone(), Value::String(value)).is_some() {
            return Err(WireError::new(format!("el parámetro {name} aparece dos veces")));
        }
    }
    for required in ["id", "realm", "method", "intent", "request"] {
        if !fields.contains_key(required) {
            return Err(WireError::new(format!("falta el parámetro {required}")));
        }
    }
    let challenge: Challenge = serde_json::from_value(Value::Object(fields))
        .map_err(|e| WireError::new(format!("el desafío no tiene la forma esperada: {e}")))?;
    if challenge.id.is_empty() {
        return Err(WireError::new("el id del desafío está vacío"));
    }
    challenge.request_json()?;
    Ok(challenge)
}

/// The challenges of an auth header value (RFC 9110 §11): each scheme with its auth-params,
/// names lowercased, quoted-strings unescaped. An auth-param is a token followed by `=`; any
/// other token starts a new challenge. What follows a parameter's value up to the next comma
/// outside a quoted-string is ignored; a parameter whose quoted-string never closes is dropped.
fn auth_challenges(header: &str) -> Result<Vec<AuthChallenge>, WireError> {
    let bytes = header.as_bytes();
    let mut challenges: Vec<AuthChallenge> = Vec::new();
    let mut at = 0;
    loop {
        while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b',')) {
            at += 1;
        }
        if at >= bytes.len() {
            break;
        }
        let start = at;
        while bytes.get(at).copied().is_some_and(is_tchar) {
            at += 1;
        }
        if at == start {
            at = skip_to_comma(bytes, at);
            continue;
        }
        let token = &header[start..at];
        let mut next = at;
        while bytes.get(next).is_some_and(|b| matches!(b, b' ' | b'\t')) {
            next += 1;
        }
        if bytes.get(next) != Some(&b'=') {
            challenges.push((token.to_owned(), Vec::new()));
            at = next;
            continue;
        }
        at = next + 1;
        while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t')) {
            at += 1;
        }
        let value = if bytes.get(at) == Some(&b'"') {
            let (value, end) = quoted(bytes, at + 1);
            at = end;
            value
        } else {
            let value_start = at;
            while bytes.get(at).copied().is_some_and(is_tchar) {
                at += 1;
            }
            Some(header[value_start..at].to_owned())
        };
        at = skip_to_comma(bytes, at);
        let Some((_, params)) = challenges.last_mut() else {
            return Err(WireError::new("el encabezado empieza con un parámetro, sin esquema"));
        };
        if let Some(value) = value {
            params.push((token.to_ascii_lowercase(), value));
        }
    }
    Ok(challenges)
}

/// The unescaped quoted-string starting after its opening quote at `start`, and where it ends
/// (after its closing quote); `None` if it never closes.
fn quoted(bytes: &[u8], start: usize) -> (Option<String>, usize) {
    let mut value = Vec::new();
    let mut at = start;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return (String::from_utf8(value).ok(), at + 1),
            b'\\' => {
                if let Some(&escaped) = bytes.get(at + 1) {
                    value.push(escaped);
                }
                at += 2;
            }
            _ => {
                value.push(byte);
                at += 1;
            }
        }
    }
    (None, bytes.len())
}

/// The position of the next comma outside a quoted-string (or the end).
fn skip_to_comma(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b',' => return at,
            b'"' => at = quoted(bytes, at + 1).1,
            _ => at += 1,
        }
    }
    at
}

/// RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// The bytes after the `Payment` scheme of an `Authorization` value, if it is one.
pub fn credential_token(authorization: &[u8]) -> Option<&[u8]> {
    let text = std::str::from_utf8(authorization).ok()?.trim_start();
    let (scheme, rest) = text.split_at_checked(7)?;
    if !scheme.eq_ignore_ascii_case("payment") || !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    Some(rest.trim().as_bytes())
}

/// The credential of an `Authorization` value.
pub fn parse_credential(authorization: &str) -> Result<Credential, WireError> {
    let token = credential_token(authorization.as_bytes())
        .ok_or_else(|| WireError::new("no es una credencial del esquema Payment"))?;
    decode_credential(token)
}

/// The credential of the base64url token after `Payment `.
pub fn decode_credential(token: &[u8]) -> Result<Credential, WireError> {
    if token.len() > MAX_CREDENTIAL_BYTES {
        return Err(WireError::new("la credencial es demasiado grande"));
    }
    let bytes = B64.decode(token).map_err(|_| WireError::new("la credencial no es base64url"))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| WireError::new("la credencial no es JSON"))?;
    credential_from_json(&value)
}

/// The credential of its JSON form (MCP's `_meta["org.paymentauth/credential"]`, whose
/// challenge `request` mppx sends decoded).
pub fn credential_from_json(value: &Value) -> Result<Credential, WireError> {
    let shape =
        |what: &str| WireError::new(format!("la credencial no es el JSON {{challenge, payload}} esperado: {what}"));
    let object = value.as_object().ok_or_else(|| shape("no es un objeto"))?;
    let challenge = Challenge::from_json(object.get("challenge").ok_or_else(|| shape("falta challenge"))?)
        .map_err(|e| shape(&e.0))?;
    if challenge.id.is_empty() {
        return Err(shape("challenge.id está vacío"));
    }
    let payload = object.get("payload").filter(|p| p.is_object()).ok_or_else(|| shape("payload no es un objeto"))?;
    let source = match object.get("source") {
        None | Some(Value::Null) => None,
        Some(Value::String(source)) => Some(source.clone()),
        Some(_) => return Err(shape("source no es texto")),
    };
    Ok(Credential { challenge, payload: payload.clone(), source })
}

/// The `Authorization` value of a credential.
pub fn format_credential(credential: &Credential) -> String {
    format!("Payment {}", encode(&serde_json::to_vec(credential).unwrap_or_default()))
}

/// The `Payment-Receipt` value of a receipt: base64url of its JCS JSON.
pub fn format_receipt(receipt: &Receipt) -> String {
    encode(canonical(&serde_json::to_value(receipt).unwrap_or_default()).as_bytes())
}

/// The receipt of a `Payment-Receipt` value: `status` `success`, an RFC 3339 `timestamp`.
pub fn parse_receipt(header: &str) -> Result<Receipt, WireError> {
    let bytes = decode(header.trim()).map_err(|_| WireError::new("el recibo no es base64url"))?;
    let receipt: Receipt =
        serde_json::from_slice(&bytes).map_err(|e| WireError::new(format!("el recibo no es el JSON esperado: {e}")))?;
    if receipt.status != "success" {
        return Err(WireError::new(format!("status {:?}: un recibo solo dice success", receipt.status)));
    }
    if unix_of_rfc3339(&receipt.timestamp).is_none() {
        return Err(WireError::new(format!("timestamp {:?} no es una fecha RFC 3339", receipt.timestamp)));
    }
    Ok(receipt)
}

/// Unix seconds of an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`).
pub fn unix_of_rfc3339(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let n = |range: std::ops::Range<usize>| {
        let part = text.get(range)?;
        part.bytes().all(|d| d.is_ascii_digit()).then(|| part.parse::<i64>().ok())?
    };
    let (year, month, day) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hour, minute, second) = (n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &fraction[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let (sign, hhmm) = match rest.as_bytes().first()? {
                b'+' => (1, &rest[1..]),
                b'-' => (-1, &rest[1..]),
                _ => return None,
            };
            let hb = hhmm.as_bytes();
            if hb.len() != 5 || hb[2] != b':' || !hb.iter().enumerate().all(|(i, d)| i == 2 || d.is_ascii_digit()) {
                return None;
            }
            let (h, m) = (hhmm[0..2].parse::<i64>().ok()?, hhmm[3..5].parse::<i64>().ok()?);
            if h > 23 || m > 59 {
                return None;
            }
            sign * (h * 3600 + m * 60)
        }
    };
    // Howard Hinnant's days-from-civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hour * 3600 + minute * 60 + second - offset).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_and_drops_spaces() {
        let value = json!({"b": 1, "a": {"d": [1, "x"], "c": null}, "methodDetails": {"chainId": 84532}});
        assert_eq!(canonical(&value), r#"{"a":{"c":null,"d":[1,"x"]},"b":1,"methodDetails":{"chainId":84532}}"#);
    }

    #[test]
    fn dates_round_trip_and_offsets_count() {
        for unix in [0, 1_700_000_000, 1_709_164_800, 1_800_000_123] {
            assert_eq!(unix_of_rfc3339(&crate::clock::iso8601(unix)), Some(unix));
        }
        assert_eq!(unix_of_rfc3339("2023-11-14T22:13:20.000Z"), Some(1_700_000_000));
        assert_eq!(unix_of_rfc3339("2023-11-14T23:13:20+01:00"), Some(1_700_000_000));
        assert_eq!(unix_of_rfc3339("2023-11-14T21:13:20.5-01:00"), Some(1_700_000_000));
        assert_eq!(unix_of_rfc3339("2023-11-14 22:13:20"), None);
        assert_eq!(unix_of_rfc3339("2023-11-14T22:13:20"), None);
        assert_eq!(unix_of_rfc3339("2023-11-14T22:13:20+1:00"), None);
        assert_eq!(unix_of_rfc3339("not a date at all!!!"), None);
    }

    #[test]
    fn authorization_values_name_the_scheme() {
        assert_eq!(credential_token(b"Payment eyJh"), Some(&b"eyJh"[..]));
        assert_eq!(credential_token(b"payment   eyJh  "), Some(&b"eyJh"[..]));
        assert_eq!(credential_token(b"Bearer eyJh"), None);
        assert_eq!(credential_token(b"Paymenteyj"), None);
        assert_eq!(credential_token(b"Pay"), None);
    }

    #[test]
    fn several_challenges_and_other_schemes_in_one_header() {
        let header = r#"Basic realm="x", Payment id="a", realm="r", method="evm", intent="charge", request="e30", Bearer abc==, payment id="b", realm="r", method="evm", intent="charge", request="e30", opaque="o""#;
        let found = parse_challenges(header).expect("parses");
        assert_eq!(found.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(found[1].opaque.as_deref(), Some("o"));
    }
}
