//! The x402 `sign-in-with-x` extension (SIWX) on the wire, as the official `@x402/extensions`
//! 2.27.0 (`./sign-in-with-x`) writes and reads it, so a past buyer's wallet can prove who it is
//! and get a study again without paying.
//!
//! - The server declares `extensions["sign-in-with-x"] = {info, supportedChains, schema}` in its
//!   402 ([`declaration`]): `info` holds the challenge (domain, URI, nonce, times, statement,
//!   resources), `supportedChains` the CAIP-2 chains it verifies, `schema` the JSON Schema of a
//!   proof (exactly `buildSIWxSchema()`).
//! - The client signs the CAIP-122 message for one chain and sends the proof, the challenge's
//!   fields plus `address`, `chainId`, `type` and `signature`, as standard base64 of its JSON in
//!   the `SIGN-IN-WITH-X` request header ([`decode_header`]); over MCP the same object travels
//!   in `params._meta` ([`from_value`]).
//! - On EVM chains (`eip155:*`) the message is EIP-4361 text, byte for byte what the `siwe`
//!   library's `prepareMessage()` builds ([`siwe_message`]), signed with EIP-191
//!   `personal_sign`; [`verify_evm`] recovers the signer (an EOA: ecrecover, no RPC).
//!
//! Not supported: smart-contract wallets (EIP-1271, EIP-6492), which need an RPC call to the
//! wallet's contract, and Solana (`ed25519`) sign-in. What a gate does with a verified proof
//! (its nonce, replay and "did this wallet buy it") is `payment::reaccess`'s business.

use alloy_primitives::{Address, Signature};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The extension's key in `PaymentRequired.extensions`.
pub const SIGN_IN_WITH_X: &str = "sign-in-with-x";
/// The request header that carries a proof (base64 of its JSON).
pub const HEADER: &str = "SIGN-IN-WITH-X";
/// Largest `SIGN-IN-WITH-X` value accepted.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// The CAIP-122 version every challenge carries.
pub const VERSION: &str = "1";
/// The signature type of EVM chains (`supportedChains[].type`).
pub const EIP191: &str = "eip191";

/// A proof as the client sends it (`SIWxPayload` of the official package): the challenge's
/// fields echoed, plus the chain, the address and the signature. Unknown fields are ignored,
/// as the package's zod schema strips them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Proof {
    pub domain: String,
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    pub uri: String,
    pub version: String,
    pub chain_id: String,
    /// `eip191` (EVM) or `ed25519` (Solana).
    #[serde(rename = "type")]
    pub kind: String,
    pub nonce: String,
    pub issued_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_scheme: Option<String>,
    pub signature: String,
}

/// Why a proof is refused: the official package's code (`invalid_siwx_*`) and a Spanish reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub code: &'static str,
    pub message: String,
}

impl Invalid {
    pub fn new(code: &'static str, message: impl Into<String>) -> Invalid {
        Invalid { code, message: message.into() }
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Invalid {}

/// A malformed proof (not the official package's code: its parser throws instead).
const MALFORMED: &str = "invalid_siwx_payload";

/// Decodes a `SIGN-IN-WITH-X` value: standard base64 (alphabet `+/`, `=` padding, as
/// `parseSIWxHeader` demands) of the proof's JSON.
pub fn decode_header(raw: &[u8]) -> Result<Proof, Invalid> {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return Err(Invalid::new(MALFORMED, "el encabezado SIGN-IN-WITH-X está vacío"));
    }
    if trimmed.len() > MAX_HEADER_BYTES {
        return Err(Invalid::new(
            MALFORMED,
            format!("el encabezado SIGN-IN-WITH-X mide {} bytes; el máximo es {MAX_HEADER_BYTES}", trimmed.len()),
        ));
    }
    let bytes = STANDARD.decode(trimmed).map_err(|_| {
        Invalid::new(MALFORMED, "el encabezado SIGN-IN-WITH-X no es base64 estándar (alfabeto +/ con relleno =)")
    })?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Invalid::new(MALFORMED, format!("el encabezado SIGN-IN-WITH-X no decodifica a JSON: {e}")))?;
    from_value(value)
}

/// A proof from its JSON object (how MCP carries it), checked against the official schema:
/// every required field a string, `type` one of `eip191`/`ed25519`, `signatureScheme` (if
/// sent) one of the four the package knows.
pub fn from_value(value: Value) -> Result<Proof, Invalid> {
    if !value.is_object() {
        return Err(Invalid::new(MALFORMED, "la prueba SIGN-IN-WITH-X debe ser un objeto JSON"));
    }
    let proof: Proof = serde_json::from_value(value)
        .map_err(|e| Invalid::new(MALFORMED, format!("la prueba SIGN-IN-WITH-X no tiene la forma de x402: {e}")))?;
    if proof.kind != EIP191 && proof.kind != "ed25519" {
        return Err(Invalid::new(MALFORMED, format!("type {:?}: se espera eip191 o ed25519", proof.kind)));
    }
    if let Some(scheme) = &proof.signature_scheme
        && !["eip191", "eip1271", "eip6492", "siws"].contains(&scheme.as_str())
    {
        return Err(Invalid::new(MALFORMED, format!("signatureScheme {scheme:?} no es uno de los que define x402")));
    }
    Ok(proof)
}

/// The `SIGN-IN-WITH-X` value of a proof (what `encodeSIWxHeader` sends).
pub fn encode_header(proof: &Proof) -> String {
    STANDARD.encode(serde_json::to_vec(proof).unwrap_or_default())
}

/// The numeric chain id of a CAIP-2 EVM chain (`eip155:84532` → 84532).
pub fn evm_chain_id(chain: &str) -> Option<u64> {
    let digits = chain.strip_prefix("eip155:")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The address as the EIP-4361 message shows it: all-lowercase or all-uppercase hex is
/// written with its EIP-55 checksum (as the `siwe` library does); mixed case must already be a
/// valid checksum.
pub fn message_address(text: &str) -> Result<Address, Invalid> {
    let malformed = || Invalid::new("invalid_siwx_signature", format!("address {text:?} no es una dirección EVM"));
    let hex = text.strip_prefix("0x").filter(|h| h.len() == 40).ok_or_else(malformed)?;
    let address: Address = text.parse().map_err(|_| malformed())?;
    let uniform = hex == hex.to_ascii_lowercase() || hex == hex.to_ascii_uppercase();
    if !uniform && Address::parse_checksummed(text, None).is_err() {
        return Err(Invalid::new(
            "invalid_siwx_signature",
            format!("address {text:?} mezcla mayúsculas y minúsculas sin ser un checksum EIP-55 válido"),
        ));
    }
    Ok(address)
}

/// The EIP-4361 message of a proof on an EVM chain, exactly as `formatSIWEMessage` (the `siwe`
/// library's `prepareMessage`) writes it for the same fields.
pub fn siwe_message(proof: &Proof, address: &Address, chain_id: u64) -> String {
    let mut text =
        format!("{} wants you to sign in with your Ethereum account:\n{}\n\n", proof.domain, address.to_checksum(None));
    // With a statement: a blank line, the statement, a blank line; without: two blank lines.
    match &proof.statement {
        Some(statement) => {
            text.push_str(statement);
            text.push_str("\n\n");
        }
        None => text.push('\n'),
    }
    let mut lines = vec![
        format!("URI: {}", proof.uri),
        format!("Version: {}", proof.version),
        format!("Chain ID: {chain_id}"),
        format!("Nonce: {}", proof.nonce),
    ];
    // The library writes the optional times only when non-empty, a request id whenever it is
    // sent, and the resources whenever the list is sent (even empty).
    if !proof.issued_at.is_empty() {
        lines.push(format!("Issued At: {}", proof.issued_at));
    }
    if let Some(time) = proof.expiration_time.as_deref().filter(|t| !t.is_empty()) {
        lines.push(format!("Expiration Time: {time}"));
    }
    if let Some(time) = proof.not_before.as_deref().filter(|t| !t.is_empty()) {
        lines.push(format!("Not Before: {time}"));
    }
    if let Some(id) = &proof.request_id {
        lines.push(format!("Request ID: {id}"));
    }
    if let Some(resources) = &proof.resources {
        let mut block = "Resources:".to_owned();
        for resource in resources {
            block.push_str("\n- ");
            block.push_str(resource);
        }
        lines.push(block);
    }
    text.push_str(&lines.join("\n"));
    text
}

/// Verifies an EVM proof's signature: rebuilds the EIP-4361 message from the proof's own
/// fields, recovers the EIP-191 signer and requires it to be `address`. Returns the address.
/// Only EOA signatures (65 bytes, `v` 27/28 or 0/1) verify; a smart-contract wallet's does not.
pub fn verify_evm(proof: &Proof) -> Result<Address, Invalid> {
    let chain_id = evm_chain_id(&proof.chain_id).ok_or_else(|| {
        Invalid::new("invalid_siwx_chain_id", format!("chainId {:?}: se espera eip155:<número>", proof.chain_id))
    })?;
    let address = message_address(&proof.address)?;
    let bytes = proof
        .signature
        .strip_prefix("0x")
        .and_then(|h| hex::decode(h).ok())
        .filter(|b| b.len() == 65 && matches!(b[64], 0 | 1 | 27 | 28))
        .ok_or_else(|| {
            Invalid::new(
                "invalid_siwx_malformed_signature",
                "signature debe ser 0x y 65 bytes en hexadecimal (r, s, v con v 27/28): las billeteras de contrato (EIP-1271, EIP-6492) no se admiten",
            )
        })?;
    let signature = Signature::from_raw(&bytes)
        .map_err(|e| Invalid::new("invalid_siwx_malformed_signature", format!("firma ilegible: {e}")))?;
    let message = siwe_message(proof, &address, chain_id);
    match signature.recover_address_from_msg(message.as_bytes()) {
        Ok(signer) if signer == address => Ok(address),
        Ok(signer) => Err(Invalid::new(
            "invalid_siwx_signature",
            format!(
                "la firma del mensaje EIP-4361 corresponde a {}, no a {}",
                signer.to_checksum(None),
                address.to_checksum(None)
            ),
        )),
        Err(_) => Err(Invalid::new("invalid_siwx_signature", "la firma no es una firma secp256k1 válida")),
    }
}

/// The JSON Schema of a proof, exactly `buildSIWxSchema()` of the official package.
pub fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "domain": {"type": "string"},
            "address": {"type": "string"},
            "statement": {"type": "string"},
            "uri": {"type": "string", "format": "uri"},
            "version": {"type": "string"},
            "chainId": {"type": "string"},
            "type": {"type": "string"},
            "nonce": {"type": "string"},
            "issuedAt": {"type": "string", "format": "date-time"},
            "expirationTime": {"type": "string", "format": "date-time"},
            "notBefore": {"type": "string", "format": "date-time"},
            "requestId": {"type": "string"},
            "resources": {"type": "array", "items": {"type": "string", "format": "uri"}},
            "signature": {"type": "string"},
        },
        "required": ["domain", "address", "uri", "version", "chainId", "type", "nonce", "issuedAt", "signature"],
    })
}

/// The challenge a server puts in `info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info<'a> {
    pub domain: &'a str,
    pub uri: &'a str,
    pub statement: &'a str,
    pub nonce: &'a str,
    pub issued_at: &'a str,
    pub expiration_time: &'a str,
}

/// The extension a 402 declares: `info` (with `resources: [uri]`, as the official server
/// extension fills it), one `eip191` entry per EVM chain, and the schema.
pub fn declaration(info: &Info<'_>, evm_chains: &[&str]) -> Value {
    let chains: Vec<Value> = evm_chains.iter().map(|chain| json!({"chainId": chain, "type": EIP191})).collect();
    json!({
        "info": {
            "domain": info.domain,
            "uri": info.uri,
            "version": VERSION,
            "nonce": info.nonce,
            "issuedAt": info.issued_at,
            "expirationTime": info.expiration_time,
            "statement": info.statement,
            "resources": [info.uri],
        },
        "supportedChains": chains,
        "schema": schema(),
    })
}

/// What a client does with a 402's declaration (`createSIWxPayload` for an EVM wallet): picks
/// `chain` (or the first `eip191` chain), copies `info`, signs the EIP-4361 message and returns
/// the proof. `extension` is `extensions["sign-in-with-x"]` as the 402 sent it.
pub fn sign(extension: &Value, chain: Option<&str>, signer: &PrivateKeySigner) -> Result<Proof, Invalid> {
    let refuse = |what: &str| Invalid::new(MALFORMED, format!("la declaración sign-in-with-x del 402 {what}"));
    let info = extension.get("info").filter(|i| i.is_object()).ok_or_else(|| refuse("no trae info"))?;
    let chains =
        extension.get("supportedChains").and_then(Value::as_array).ok_or_else(|| refuse("no trae supportedChains"))?;
    let chosen = chains
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some(EIP191))
        .filter_map(|c| c.get("chainId").and_then(Value::as_str))
        .find(|c| chain.is_none_or(|wanted| wanted == *c))
        .ok_or_else(|| refuse("no admite esa cadena EVM"))?;
    let text = |key: &str| info.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut proof = Proof {
        domain: text("domain").ok_or_else(|| refuse("no trae domain"))?,
        address: signer.address().to_checksum(None),
        statement: text("statement"),
        uri: text("uri").ok_or_else(|| refuse("no trae uri"))?,
        version: text("version").unwrap_or_else(|| VERSION.to_owned()),
        chain_id: chosen.to_owned(),
        kind: EIP191.to_owned(),
        nonce: text("nonce").ok_or_else(|| refuse("no trae nonce"))?,
        issued_at: text("issuedAt").ok_or_else(|| refuse("no trae issuedAt"))?,
        expiration_time: text("expirationTime"),
        not_before: text("notBefore"),
        request_id: text("requestId"),
        resources: info
            .get("resources")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        signature_scheme: None,
        signature: String::new(),
    };
    let chain_id = evm_chain_id(chosen).ok_or_else(|| refuse("nombra una cadena que no es eip155:<número>"))?;
    let message = siwe_message(&proof, &signer.address(), chain_id);
    let signature = signer
        .sign_message_sync(message.as_bytes())
        .map_err(|e| Invalid::new("invalid_siwx_signature", format!("no se pudo firmar: {e}")))?;
    proof.signature = format!("0x{}", hex::encode(signature.as_bytes()));
    Ok(proof)
}

/// Unix seconds of an RFC 3339 date-time (`2026-01-15T10:30:00.000Z`, or with a `±HH:MM`
/// offset), the forms `new Date()` reads in a SIWX proof; `None` for anything else.
pub fn parse_time(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if b.len() < 20 || separators.iter().any(|(i, c)| b[*i] != *c) || !matches!(b[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &b[19..];
    if rest.first() == Some(&b'.') {
        let fraction = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if fraction == 0 {
            return None;
        }
        rest = &rest[1 + fraction..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let field = |a: u8, c: u8| -> Option<i64> {
                (a.is_ascii_digit() && c.is_ascii_digit()).then(|| i64::from(a - b'0') * 10 + i64::from(c - b'0'))
            };
            let seconds = field(*h1, *h2)? * 3600 + field(*m1, *m2)? * 60;
            if *sign == b'+' { seconds } else { -seconds }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The public Anvil/Hardhat development key #0.
    const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

    fn extension() -> Value {
        let info = Info {
            domain: "api.example.com",
            uri: "https://api.example.com/premium-data",
            statement: "Sign in to access premium data",
            nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890",
            issued_at: "2024-01-15T10:30:00.000Z",
            expiration_time: "2024-01-15T10:35:00.000Z",
        };
        declaration(&info, &["eip155:8453"])
    }

    #[test]
    fn the_message_is_the_specs_example_text() {
        // specs/extensions/sign-in-with-x.md, "Message Format", EVM.
        let signer: PrivateKeySigner = DEV_KEY.parse().unwrap();
        let mut proof = sign(&extension(), None, &signer).unwrap();
        proof.address = "0x857b06519E91e3A54538791bDbb0E22373e36b66".into();
        let address = message_address(&proof.address).unwrap();
        let expected = "api.example.com wants you to sign in with your Ethereum account:
0x857b06519E91e3A54538791bDbb0E22373e36b66

Sign in to access premium data

URI: https://api.example.com/premium-data
Version: 1
Chain ID: 8453
Nonce: a1b2c3d4e5f67890a1b2c3d4e5f67890
Issued At: 2024-01-15T10:30:00.000Z
Expiration Time: 2024-01-15T10:35:00.000Z
Resources:
- https://api.example.com/premium-data";
        assert_eq!(siwe_message(&proof, &address, 8453), expected);
        // Without a statement the library leaves two blank lines.
        proof.statement = None;
        proof.resources = None;
        assert!(siwe_message(&proof, &address, 8453).contains("0x857b06519E91e3A54538791bDbb0E22373e36b66\n\n\nURI: "));
    }

    /// `encodeSIWxHeader(await createSIWxPayload(info, privateKeyToAccount(DEV_KEY), url))` of
    /// `@x402/extensions` 2.27.0 with viem 2.57.20: the official client's bytes verify here, and
    /// this module signs the very same signature (RFC 6979).
    const OFFICIAL_HEADER: &str = "eyJkb21haW4iOiIxMjcuMC4wLjE6ODA4MCIsImFkZHJlc3MiOiIweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYiLCJzdGF0ZW1lbnQiOiJBY2NlZGVyIGRlIG51ZXZvIGFsIGVzdHVkaW8gY29tcHJhZG8gY29uIGVzdGEgYmlsbGV0ZXJhLCBzaW4gcGFnYXIgb3RyYSB2ZXouIiwidXJpIjoiaHR0cDovLzEyNy4wLjAuMTo4MDgwL2VzdHVkaW8vYmFuY2EtMjAyNj92aXN0YT1yZXN1bWVuIiwidmVyc2lvbiI6IjEiLCJjaGFpbklkIjoiZWlwMTU1Ojg0NTMyIiwidHlwZSI6ImVpcDE5MSIsIm5vbmNlIjoiNmEwYjFjMmQwMTAyMDMwNDExMjIzMzQ0NTU2Njc3ZmYiLCJpc3N1ZWRBdCI6IjIwMjYtMDEtMTVUMTA6MzA6MDAuMDAwWiIsImV4cGlyYXRpb25UaW1lIjoiMjAyNi0wMS0xNVQxMDozNTowMC4wMDBaIiwicmVzb3VyY2VzIjpbImh0dHA6Ly8xMjcuMC4wLjE6ODA4MC9lc3R1ZGlvL2JhbmNhLTIwMjY/dmlzdGE9cmVzdW1lbiJdLCJzaWduYXR1cmUiOiIweGQ2ZjEwNzg1ZDdiNTQ1MjMzYTQ4ZDllNzExYmMxYTg4ZTU5NDg1ODc0ZGJiOTg1YjEzNTQwNTFjZTQ2ZWU0MTQyMmY5NzMwYzA1ZTlkNjc1M2ZiNWY2YWU0MWNkOTczODg5ODdiMjMwMjI4ZGJmMDdiZTE4MTU1MDIzNTFhMGFhMWMifQ==";

    #[test]
    fn the_official_clients_proof_verifies_and_is_what_this_module_signs() {
        let official = decode_header(OFFICIAL_HEADER.as_bytes()).unwrap();
        let signer: PrivateKeySigner = DEV_KEY.parse().unwrap();
        assert_eq!(verify_evm(&official), Ok(signer.address()));
        let uri = "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen";
        let info = Info {
            domain: "127.0.0.1:8080",
            uri,
            statement: "Acceder de nuevo al estudio comprado con esta billetera, sin pagar otra vez.",
            nonce: "6a0b1c2d0102030411223344556677ff",
            issued_at: "2026-01-15T10:30:00.000Z",
            expiration_time: "2026-01-15T10:35:00.000Z",
        };
        let ours = sign(&declaration(&info, &["eip155:84532"]), None, &signer).unwrap();
        assert_eq!(ours, official);
        assert_eq!(encode_header(&ours), OFFICIAL_HEADER, "the same JSON, field for field");
    }

    #[test]
    fn a_signed_proof_verifies_and_any_change_breaks_it() {
        let signer: PrivateKeySigner = DEV_KEY.parse().unwrap();
        let proof = sign(&extension(), Some("eip155:8453"), &signer).unwrap();
        assert_eq!(proof.chain_id, "eip155:8453");
        assert_eq!(verify_evm(&proof), Ok(signer.address()));
        let decoded = decode_header(encode_header(&proof).as_bytes()).unwrap();
        assert_eq!(decoded, proof);
        // A lowercase address is the same signer: the message shows its checksum.
        let lower = Proof { address: proof.address.to_lowercase(), ..proof.clone() };
        assert_eq!(verify_evm(&lower), Ok(signer.address()));
        for tampered in [
            Proof { domain: "evil.example".into(), ..proof.clone() },
            Proof { uri: "https://api.example.com/other".into(), ..proof.clone() },
            Proof { nonce: "00000000000000000000000000000000".into(), ..proof.clone() },
            Proof { chain_id: "eip155:84532".into(), ..proof.clone() },
            Proof { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(), ..proof.clone() },
        ] {
            assert_eq!(verify_evm(&tampered).unwrap_err().code, "invalid_siwx_signature", "{tampered:?}");
        }
        let bad_case = Proof { address: proof.address.replacen('F', "f", 1), ..proof.clone() };
        assert_eq!(verify_evm(&bad_case).unwrap_err().code, "invalid_siwx_signature");
        let short = Proof { signature: "0x1234".into(), ..proof.clone() };
        assert_eq!(verify_evm(&short).unwrap_err().code, "invalid_siwx_malformed_signature");
        let solana = Proof { chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp".into(), ..proof };
        assert_eq!(verify_evm(&solana).unwrap_err().code, "invalid_siwx_chain_id");
    }

    #[test]
    fn malformed_headers_are_refused_with_a_reason() {
        for raw in [&b""[..], b"%%%", b"eyJ4-_8=", STANDARD.encode("[]").as_bytes(), STANDARD.encode("{}").as_bytes()] {
            assert_eq!(decode_header(raw).unwrap_err().code, MALFORMED, "{raw:?}");
        }
        let signer: PrivateKeySigner = DEV_KEY.parse().unwrap();
        let mut value = serde_json::to_value(sign(&extension(), None, &signer).unwrap()).unwrap();
        value["type"] = json!("rsa");
        assert_eq!(from_value(value).unwrap_err().code, MALFORMED);
        assert_eq!(decode_header(&vec![b'A'; MAX_HEADER_BYTES + 1]).unwrap_err().code, MALFORMED);
    }

    #[test]
    fn times_parse_as_new_date_reads_them() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_time("2024-01-15T10:30:00.000Z"), Some(1_705_314_600));
        assert_eq!(parse_time("2024-01-15T07:30:00-03:00"), Some(1_705_314_600));
        assert_eq!(parse_time("2024-02-29T00:00:00.5Z"), Some(1_709_164_800));
        for bad in ["", "2024-01-15", "2024-13-01T00:00:00Z", "2024-01-15T10:30:00", "2024-01-15T10:30:00.Z", "x"] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn chain_ids_are_caip2_eip155() {
        assert_eq!(evm_chain_id("eip155:84532"), Some(84_532));
        assert_eq!(evm_chain_id("eip155:"), None);
        assert_eq!(evm_chain_id("eip155:8x"), None);
        assert_eq!(evm_chain_id("solana:abc"), None);
    }
}
