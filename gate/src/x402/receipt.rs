//! Signed offers and receipts: x402's `offer-receipt` extension
//! (`specs/extensions/extension-offer-and-receipt.md` of the x402 foundation), JWS form.
//!
//! Why it exists: a paid answer proves to its buyer that money moved (the transaction hash),
//! not what the money bought. A receipt signed with the publisher's key says which study and
//! view were sold, for how much of which asset on which network, to which payer, in which
//! transaction, when it settled, and the sha256 of the JSON package and the ZIP delivered, so a
//! buyer can keep it and anyone can check it later without asking the gate. The 402 carries the
//! matching signed offers (one per `accepts` entry), as the extension asks of a server.
//!
//! Why JWS (EdDSA over Ed25519, the key named by a `did:key`) and not the extension's EIP-712
//! form: EIP-712 signs a fixed six-field `Receipt` type (version, network, resourceUrl, payer,
//! issuedAt, transaction); anything else in its payload is unsigned, so the official
//! `verifyReceiptSignatureEIP712` would accept a receipt whose hashes, study or price were
//! changed. A JWS signs its whole payload, and the official `verifyReceiptSignatureJWS` checks
//! it all. The key is the publisher's own, not the payee wallet's (which should never sit on a
//! web server): a JWS names it in `kid`, and the official helper resolves a `did:key` with no
//! network and no registry, while EIP-712 only recovers an address for the caller to compare.
//! Ed25519 signatures are deterministic (RFC 8032), so a repeat of a paid request gets the very
//! same receipt re-signed from the sale's fields; nothing new is journaled.
//!
//! The payload carries the extension's fields (`version` 1, `network`, `resourceUrl`, `payer`,
//! `issuedAt` = the settlement's time, `transaction`) and the sale's terms under the offer's
//! names (`scheme`, `asset`, `amount`, `payTo`) plus `estudio`, `vista` and `archivos`, all
//! covered by the signature. The payload is JCS (RFC 8785), as the extension's JWS helpers write it.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use contract::x402::PaymentRequirements;

/// The extension's key in `extensions` (402 and SettlementResponse).
pub const OFFER_RECEIPT: &str = "offer-receipt";
/// Environment variable holding the publisher's receipt key (32-byte Ed25519 seed, hex).
pub const KEY_ENV: &str = "GATE_RECEIPT_KEY";
/// Environment variable listing receipt keys used before a rotation, by their public half
/// (`did:key:z6Mk…`, comma-separated): published beside the current key in the DID document,
/// so receipts they signed stay attributable to the service.
pub const PREVIOUS_KEYS_ENV: &str = "GATE_RECEIPT_KEYS_ANTERIORES";
/// File name of the development key generated in the data folder (local mode only).
pub const KEY_FILE: &str = "clave-recibos";
/// Where the gate publishes its receipt key as a `did:web` DID document.
pub const DID_DOCUMENT_PATH: &str = "/.well-known/did.json";
/// The fragment naming the receipt key in that document.
pub const KEY_FRAGMENT: &str = "recibos";
/// Offer and receipt payload version (the extension's v1).
pub const PAYLOAD_VERSION: u64 = 1;
/// The JWS algorithm: EdDSA over Ed25519.
pub const ALGORITHM: &str = "EdDSA";

/// Multicodec prefix of an Ed25519 public key (`ed-pub`, varint 0xed).
const ED25519_MULTICODEC: [u8; 2] = [0xed, 0x01];
const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The publisher's receipt key. Its `Debug` shows only the public `did:key`.
#[derive(Clone)]
pub struct ReceiptKey {
    signing: SigningKey,
    /// Keys that signed before a rotation, published but never used to sign.
    previous: Vec<PublicKey>,
}

impl std::fmt::Debug for ReceiptKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceiptKey").field("did", &self.did_key()).finish_non_exhaustive()
    }
}

impl ReceiptKey {
    pub fn from_seed(seed: [u8; 32]) -> ReceiptKey {
        ReceiptKey { signing: SigningKey::from_bytes(&seed), previous: Vec::new() }
    }

    /// The same key, publishing beside it the public halves of keys it replaced (the current
    /// key and repeats are left out).
    pub fn with_previous(mut self, previous: Vec<PublicKey>) -> ReceiptKey {
        let current = self.public();
        for key in previous {
            if key != current && !self.previous.contains(&key) {
                self.previous.push(key);
            }
        }
        self
    }

    /// The keys published as previous ones.
    pub fn previous(&self) -> &[PublicKey] {
        &self.previous
    }

    /// The public development key: its seed is written right here, so anyone can sign with
    /// it and what it signs proves nothing. For gates in tests, which must all agree.
    pub fn development() -> ReceiptKey {
        ReceiptKey::from_seed(*b"estudios-ia: solo para pruebas!!")
    }

    /// A key written as 64 hexadecimal digits (a 32-byte Ed25519 seed, `openssl rand -hex 32`).
    pub fn parse(text: &str) -> Result<ReceiptKey> {
        let text = text.trim();
        let text = text.strip_prefix("0x").unwrap_or(text);
        let bytes = hex::decode(text).map_err(|_| {
            anyhow::anyhow!(
                "la clave de recibos debe ser hexadecimal: 64 dígitos (32 bytes, p. ej. openssl rand -hex 32)"
            )
        })?;
        let seed: [u8; 32] = bytes.try_into().map_err(|b: Vec<u8>| {
            anyhow::anyhow!(
                "la clave de recibos mide {} bytes; debe medir 32 (64 dígitos hexadecimales, p. ej. openssl rand -hex 32)",
                b.len()
            )
        })?;
        Ok(ReceiptKey::from_seed(seed))
    }

    /// The public half.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.signing.verifying_key())
    }

    /// `did:key:z6Mk…`: the public key, self-describing, as receipts name it.
    pub fn did_key(&self) -> String {
        self.public().did_key()
    }

    /// The JWS `kid`: the `did:key` URL of its one verification method (`did:key:z…#z…`).
    pub fn kid(&self) -> String {
        let multibase = self.public().multibase();
        format!("did:key:{multibase}#{multibase}")
    }

    /// A JWS compact serialization of `payload` (JCS), header `{"alg":"EdDSA","kid":…}`.
    fn jws(&self, payload: &Value) -> String {
        let header = json!({"alg": ALGORITHM, "kid": self.kid()});
        let signing_input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(canonical(&header)), URL_SAFE_NO_PAD.encode(canonical(payload)));
        let signature = self.signing.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }

    /// The `offer-receipt` declaration of a 402: one signed offer per `accepts` entry, in order,
    /// each with its `acceptIndex`, for `resource_url`. Offers carry no `validUntil`: the terms
    /// hold as long as the build that states them is served.
    pub fn offers_extension(&self, resource_url: &str, accepts: &[PaymentRequirements]) -> Value {
        let offers: Vec<Value> = accepts
            .iter()
            .enumerate()
            .map(|(index, accepted)| {
                let payload = OfferPayload {
                    version: PAYLOAD_VERSION,
                    resource_url: resource_url.to_owned(),
                    scheme: accepted.scheme.clone(),
                    network: accepted.network.clone(),
                    asset: accepted.asset.clone(),
                    pay_to: accepted.pay_to.clone(),
                    amount: accepted.amount.clone(),
                };
                let payload = serde_json::to_value(&payload).unwrap_or(Value::Null);
                json!({"format": "jws", "acceptIndex": index, "signature": self.jws(&payload)})
            })
            .collect();
        json!({"info": {"offers": offers}, "schema": offers_schema()})
    }

    /// The signed receipt of a sale: `{"format": "jws", "signature": "<JWS>"}`.
    pub fn sign_receipt(&self, payload: &ReceiptPayload) -> Value {
        let payload = serde_json::to_value(payload).unwrap_or(Value::Null);
        json!({"format": "jws", "signature": self.jws(&payload)})
    }

    /// The `offer-receipt` entry of a SettlementResponse's `extensions`.
    pub fn receipt_extension(&self, payload: &ReceiptPayload) -> Value {
        json!({"info": {"receipt": self.sign_receipt(payload)}, "schema": receipt_schema()})
    }

    /// The `did:web` DID document of the service at `base_url`, served at
    /// [`DID_DOCUMENT_PATH`]: it binds the receipt key to the service's domain (the extension's
    /// signer authorization), and its `publicKeyMultibase` is the receipts' `did:key` identifier.
    /// Keys replaced by a rotation ([`ReceiptKey::with_previous`]) follow the current one, as
    /// `#recibos-anterior-1`, `-2`…, so receipts they signed stay bound to the domain.
    pub fn did_document(&self, base_url: &str) -> Value {
        let did = did_web(base_url);
        let keys = std::iter::once((KEY_FRAGMENT.to_owned(), self.public())).chain(
            self.previous.iter().enumerate().map(|(i, key)| (format!("{KEY_FRAGMENT}-anterior-{}", i + 1), *key)),
        );
        let (methods, ids): (Vec<Value>, Vec<String>) = keys
            .map(|(fragment, key)| {
                let id = format!("{did}#{fragment}");
                let method =
                    json!({"id": id, "type": "Multikey", "controller": did, "publicKeyMultibase": key.multibase()});
                (method, id)
            })
            .unzip();
        json!({
            "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
            "id": did,
            "verificationMethod": methods,
            "assertionMethod": ids,
        })
    }
}

/// An Ed25519 public key that signs receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

impl PublicKey {
    /// `z…`: base58btc of the multicodec `ed25519-pub` prefix and the 32 key bytes.
    pub fn multibase(&self) -> String {
        let mut bytes = ED25519_MULTICODEC.to_vec();
        bytes.extend_from_slice(self.0.as_bytes());
        format!("z{}", bs58::encode(bytes).into_string())
    }

    /// `did:key:z…`.
    pub fn did_key(&self) -> String {
        format!("did:key:{}", self.multibase())
    }

    /// Reads a key written as a `did:key` (with or without its `#…` fragment), its bare
    /// multibase (`z6Mk…`, as the DID document's `publicKeyMultibase`), or 64 hex digits.
    pub fn parse(text: &str) -> std::result::Result<PublicKey, ReceiptError> {
        let text = text.trim();
        let did = text.split('#').next().unwrap_or_default();
        let multibase = did.strip_prefix("did:key:").unwrap_or(did);
        if let Some(base58) = multibase.strip_prefix('z') {
            let bytes = bs58::decode(base58).into_vec().map_err(|_| ReceiptError::BadKey(text.to_owned()))?;
            let key =
                bytes.strip_prefix(&ED25519_MULTICODEC[..]).ok_or_else(|| ReceiptError::BadKey(text.to_owned()))?;
            return Self::from_slice(key).ok_or_else(|| ReceiptError::BadKey(text.to_owned()));
        }
        let bytes = hex::decode(multibase.strip_prefix("0x").unwrap_or(multibase))
            .map_err(|_| ReceiptError::BadKey(text.to_owned()))?;
        Self::from_slice(&bytes).ok_or_else(|| ReceiptError::BadKey(text.to_owned()))
    }

    fn from_slice(bytes: &[u8]) -> Option<PublicKey> {
        let bytes: [u8; 32] = bytes.try_into().ok()?;
        VerifyingKey::from_bytes(&bytes).ok().map(PublicKey)
    }
}

/// A signed offer's payload (the extension's §4.2, without `validUntil`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferPayload {
    pub version: u64,
    pub resource_url: String,
    pub scheme: String,
    pub network: String,
    pub asset: String,
    pub pay_to: String,
    pub amount: String,
}

/// What a receipt says, every field signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptPayload {
    /// The extension's payload version: 1.
    pub version: u64,
    /// CAIP-2 network the payment settled on.
    pub network: String,
    /// The study view's URL (the HTTP route, whichever binding sold it).
    pub resource_url: String,
    pub payer: String,
    /// Unix time of the settlement (the `liquidado` line of the sales journal).
    pub issued_at: u64,
    /// The settlement's transaction; absent only when a recovery could not learn it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction: Option<String>,
    pub scheme: String,
    /// The asset paid (token contract or mint).
    pub asset: String,
    /// Atomic units of `asset` paid.
    pub amount: String,
    pub pay_to: String,
    /// The study's slug.
    #[serde(rename = "estudio")]
    pub study: String,
    /// `completo` or `resumen`.
    #[serde(rename = "vista")]
    pub view: String,
    /// The files the purchase delivered, by kind (`json`, `zip`).
    #[serde(rename = "archivos")]
    pub files: BTreeMap<String, ReceiptFile>,
}

/// A delivered file as a receipt names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptFile {
    /// The file's name (in `/descarga/{archivo}`, and as the buyer saves it).
    #[serde(rename = "archivo")]
    pub file: String,
    #[serde(rename = "tipo")]
    pub media_type: String,
    pub bytes: u64,
    /// Lowercase hex sha256 of the file's bytes.
    pub sha256: String,
}

/// Why a receipt does not verify. Messages are for the buyer, in Spanish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptError {
    /// Not a signed receipt object (`{"format": "jws", "signature": "…"}`).
    NotAReceipt(String),
    /// A format other than JWS (the gate signs JWS only).
    Format(String),
    /// The JWS does not have three base64url parts, or they do not decode to JSON.
    Malformed(String),
    /// An algorithm other than EdDSA.
    Algorithm(String),
    /// A `kid` that is not an Ed25519 `did:key`.
    BadKey(String),
    /// The signature does not match the header and payload.
    Signature,
    /// Signed by a valid key, but not the one expected.
    OtherSigner { signer: String, expected: String },
    /// A payload version or shape this verifier does not know.
    Payload(String),
}

impl std::fmt::Display for ReceiptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReceiptError::NotAReceipt(what) => write!(f, "no es un recibo firmado: {what}"),
            ReceiptError::Format(format) => {
                write!(f, "formato de recibo {format:?} no admitido: este servicio firma recibos JWS")
            }
            ReceiptError::Malformed(what) => write!(f, "recibo mal formado: {what}"),
            ReceiptError::Algorithm(alg) => {
                write!(f, "algoritmo {alg:?} no admitido: se esperaba {ALGORITHM} (Ed25519)")
            }
            ReceiptError::BadKey(key) => {
                write!(f, "{key:?} no es una clave pública Ed25519 (did:key:z6Mk…, z6Mk… o 64 dígitos hexadecimales)")
            }
            ReceiptError::Signature => {
                f.write_str("la firma no corresponde al contenido del recibo: fue alterado o no lo firmó esa clave")
            }
            ReceiptError::OtherSigner { signer, expected } => {
                write!(f, "el recibo está firmado por {signer}, no por la clave esperada {expected}")
            }
            ReceiptError::Payload(what) => write!(f, "contenido del recibo no reconocido: {what}"),
        }
    }
}

impl std::error::Error for ReceiptError {}

/// A receipt whose signature checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The key that signed it.
    pub signer: PublicKey,
    pub payload: ReceiptPayload,
}

/// Checks a signed receipt: its JWS signature under the key its `kid` names and, when
/// `expected` is given, that this is the expected key. Says nothing about the files: see
/// [`ReceiptPayload::files`].
pub fn verify(receipt: &Value, expected: Option<&PublicKey>) -> std::result::Result<Verified, ReceiptError> {
    let format = receipt
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| ReceiptError::NotAReceipt("falta \"format\"".into()))?;
    if format != "jws" {
        return Err(ReceiptError::Format(format.to_owned()));
    }
    let jws = receipt
        .get("signature")
        .and_then(Value::as_str)
        .ok_or_else(|| ReceiptError::NotAReceipt("falta \"signature\"".into()))?;
    let parts: Vec<&str> = jws.split('.').collect();
    let [header, payload, signature] = parts[..] else {
        return Err(ReceiptError::Malformed("un JWS tiene tres partes separadas por puntos".into()));
    };
    let header: Value = decode_part(header, "encabezado")?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or_default();
    if alg != ALGORITHM {
        return Err(ReceiptError::Algorithm(alg.to_owned()));
    }
    let kid = header.get("kid").and_then(Value::as_str).unwrap_or_default();
    if !kid.starts_with("did:key:") {
        return Err(ReceiptError::BadKey(kid.to_owned()));
    }
    let signer = PublicKey::parse(kid)?;
    let signature_bytes =
        URL_SAFE_NO_PAD.decode(signature).map_err(|_| ReceiptError::Malformed("la firma no es base64url".into()))?;
    let signature = Signature::from_slice(&signature_bytes).map_err(|_| ReceiptError::Signature)?;
    let signing_input = &jws[..jws.len() - parts[2].len() - 1];
    signer.0.verify_strict(signing_input.as_bytes(), &signature).map_err(|_| ReceiptError::Signature)?;
    if let Some(expected) = expected
        && *expected != signer
    {
        return Err(ReceiptError::OtherSigner { signer: signer.did_key(), expected: expected.did_key() });
    }
    let payload: Value = decode_part(payload, "contenido")?;
    let version = payload.get("version").and_then(Value::as_u64);
    if version != Some(PAYLOAD_VERSION) {
        return Err(ReceiptError::Payload(format!("versión {version:?}, se esperaba {PAYLOAD_VERSION}")));
    }
    let payload = serde_json::from_value(payload).map_err(|e| ReceiptError::Payload(e.to_string()))?;
    Ok(Verified { signer, payload })
}

fn decode_part(part: &str, what: &str) -> std::result::Result<Value, ReceiptError> {
    let bytes =
        URL_SAFE_NO_PAD.decode(part).map_err(|_| ReceiptError::Malformed(format!("el {what} no es base64url")))?;
    serde_json::from_slice(&bytes).map_err(|_| ReceiptError::Malformed(format!("el {what} no es JSON")))
}

/// The signed receipt inside whatever holds it: the receipt itself, the `offer-receipt`
/// extension, a SettlementResponse (`PAYMENT-RESPONSE`, MCP `_meta["x402/payment-response"]`),
/// an MCP result's `_meta`, or a paid study's answer (`liquidacion.recibo`).
pub fn find(value: &Value) -> Option<&Value> {
    if value.get("format").is_some() && value.get("signature").is_some() {
        return Some(value);
    }
    [
        "/info/receipt",
        "/extensions/offer-receipt/info/receipt",
        "/x402~1payment-response/extensions/offer-receipt/info/receipt",
        "/_meta/x402~1payment-response/extensions/offer-receipt/info/receipt",
        "/liquidacion/recibo",
    ]
    .into_iter()
    .find_map(|pointer| value.pointer(pointer))
}

/// `did:web` of a base URL's host (and port): `http://127.0.0.1:8080` → `did:web:127.0.0.1%3A8080`.
pub fn did_web(base_url: &str) -> String {
    let authority = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    format!("did:web:{}", authority.replace(':', "%3A"))
}

/// The receipt key: from [`KEY_ENV`], or (local mode only) from [`KEY_FILE`] in the data
/// folder, created with a random seed and mode 0600 the first time: a development key for a
/// machine where no real money moves.
pub fn load_key(env_value: Option<String>, data_dir: &Path, local_mode: bool) -> Result<ReceiptKey> {
    if let Some(value) = env_value.filter(|v| !v.trim().is_empty()) {
        return ReceiptKey::parse(&value).with_context(|| format!("{KEY_ENV} no es válida"));
    }
    if !local_mode {
        bail!(
            "falta {KEY_ENV}: fuera del modo local los recibos se firman con la clave del editor, 32 bytes en hexadecimal (p. ej. openssl rand -hex 32), la misma en cada gate"
        );
    }
    let path = data_dir.join(KEY_FILE);
    let text = crate::dev_secret::read_or_create(data_dir, &path, 32)?;
    ReceiptKey::parse(&text).with_context(|| format!("{} no es una clave de recibos", path.display()))
}

/// The keys of [`PREVIOUS_KEYS_ENV`]: public keys separated by commas or spaces, each as
/// [`PublicKey::parse`] reads it (`did:key:z6Mk…`, `z6Mk…`). Empty or unset: none.
pub fn parse_previous(env_value: Option<&str>) -> Result<Vec<PublicKey>> {
    env_value
        .unwrap_or_default()
        .split([',', ' ', '\n', '\t'])
        .filter(|item| !item.trim().is_empty())
        .map(|item| PublicKey::parse(item).map_err(|e| anyhow::anyhow!("{PREVIOUS_KEYS_ENV}: {item}: {e}")))
        .collect()
}

/// JSON Canonicalization Scheme (RFC 8785) for the values receipts and offers hold: object
/// keys sorted by UTF-16 code units, no whitespace, ES6 string escaping (what serde_json
/// writes), integers as digits.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        // Strings, integers, booleans and null serialize as JCS writes them; receipts hold no
        // fractions.
        other => out.push_str(&other.to_string()),
    }
}

/// The JSON Schema of a JWS offers declaration (the extension's §6.3).
fn offers_schema() -> Value {
    json!({
        "$schema": SCHEMA_DIALECT,
        "type": "object",
        "properties": {
            "offers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "format": {"type": "string", "const": "jws"},
                        "acceptIndex": {"type": "integer"},
                        "signature": {"type": "string", "description": "JWS compact serialization containing the offer payload"},
                    },
                    "required": ["format", "signature"],
                },
            },
        },
        "required": ["offers"],
    })
}

/// The JSON Schema of a JWS receipt (the extension's §6.7).
fn receipt_schema() -> Value {
    json!({
        "$schema": SCHEMA_DIALECT,
        "type": "object",
        "properties": {
            "receipt": {
                "type": "object",
                "properties": {
                    "format": {"type": "string", "const": "jws"},
                    "signature": {"type": "string", "description": "JWS compact serialization containing the receipt payload"},
                },
                "required": ["format", "signature"],
            },
        },
        "required": ["receipt"],
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn key() -> ReceiptKey {
        ReceiptKey::from_seed([7u8; 32])
    }

    fn payload() -> ReceiptPayload {
        let file = |name: &str, media_type: &str, sha: char| ReceiptFile {
            file: name.into(),
            media_type: media_type.into(),
            bytes: 1234,
            sha256: sha.to_string().repeat(64),
        };
        ReceiptPayload {
            version: 1,
            network: "eip155:84532".into(),
            resource_url: "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen".into(),
            payer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266".into(),
            issued_at: 1_800_000_000,
            transaction: Some(format!("0x{}", "ab".repeat(32))),
            scheme: "exact".into(),
            asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
            amount: "990000".into(),
            pay_to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
            study: "banca-2026".into(),
            view: "resumen".into(),
            files: BTreeMap::from([
                ("json".into(), file("banca-2026.json", "application/json", 'a')),
                ("zip".into(), file("banca-2026.zip", "application/zip", 'b')),
            ]),
        }
    }

    #[test]
    fn did_key_round_trips_and_has_the_ed25519_prefix() {
        let key = key();
        let did = key.did_key();
        assert!(did.starts_with("did:key:z6Mk"), "{did}");
        assert_eq!(key.kid(), format!("{did}#{}", did.trim_start_matches("did:key:")));
        for written in [
            did.clone(),
            key.kid(),
            did.trim_start_matches("did:key:").to_owned(),
            hex::encode(key.public().0.as_bytes()),
        ] {
            assert_eq!(PublicKey::parse(&written), Ok(key.public()), "{written}");
        }
        assert!(
            PublicKey::parse("did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme").is_err(),
            "secp256k1 is not ours"
        );
        assert!(PublicKey::parse("nada").is_err());
    }

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let value = json!({"b": 1, "a": {"z": "é\n\"", "y": [true, null]}, "A": 2});
        assert_eq!(canonical(&value), r#"{"A":2,"a":{"y":[true,null],"z":"é\n\""},"b":1}"#);
    }

    #[test]
    fn a_receipt_verifies_is_deterministic_and_fails_after_any_change() {
        let key = key();
        let receipt = key.sign_receipt(&payload());
        assert_eq!(receipt, key.sign_receipt(&payload()), "Ed25519 signs deterministically");
        let verified = verify(&receipt, Some(&key.public())).expect("verifies");
        assert_eq!(verified.payload, payload());
        assert_eq!(verify(&receipt, None).expect("verifies by its kid").signer, key.public());

        let jws = receipt["signature"].as_str().expect("jws").to_owned();
        let header_len = jws.find('.').expect("dot");
        // One character changed in each part: the header, the payload, the signature.
        for at in [1, header_len + 5, jws.len() - 3] {
            let mut bytes = jws.clone().into_bytes();
            bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
            let tampered = json!({"format": "jws", "signature": String::from_utf8(bytes).expect("ascii")});
            assert!(verify(&tampered, None).is_err(), "changed at {at}");
        }
        // A payload changed and re-encoded under the same signature.
        let mut parts: Vec<String> = jws.split('.').map(str::to_owned).collect();
        let mut changed = payload();
        changed.files.get_mut("zip").expect("zip").sha256 = "c".repeat(64);
        parts[1] = URL_SAFE_NO_PAD.encode(canonical(&serde_json::to_value(&changed).expect("json")));
        let forged = json!({"format": "jws", "signature": parts.join(".")});
        assert_eq!(verify(&forged, None), Err(ReceiptError::Signature));

        let other = ReceiptKey::from_seed([8u8; 32]);
        assert!(matches!(verify(&receipt, Some(&other.public())), Err(ReceiptError::OtherSigner { .. })));
        let eip712 = json!({"format": "eip712", "payload": {}, "signature": "0x00"});
        assert!(matches!(verify(&eip712, None), Err(ReceiptError::Format(_))));
    }

    #[test]
    fn the_receipt_is_found_wherever_it_travels() {
        let key = key();
        let extension = key.receipt_extension(&payload());
        let receipt = extension["info"]["receipt"].clone();
        let settlement = json!({"success": true, "extensions": {OFFER_RECEIPT: extension}});
        let body = json!({"liquidacion": {"recibo": receipt}});
        for holder in [&receipt, &extension, &settlement, &body] {
            assert_eq!(find(holder), Some(&receipt), "{holder}");
        }
        assert_eq!(find(&json!({"x": 1})), None);
    }

    #[test]
    fn offers_are_signed_one_per_requirement_with_their_terms() {
        let key = key();
        let raw = json!({"scheme": "exact", "network": "eip155:84532", "amount": "990000",
            "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "maxTimeoutSeconds": 300, "extra": {"name": "USDC", "version": "2"}});
        let accepts: Vec<PaymentRequirements> = vec![serde_json::from_value(raw).expect("requirements")];
        let extension = key.offers_extension("http://x/estudio/a?vista=resumen", &accepts);
        let offer = &extension["info"]["offers"][0];
        assert_eq!(offer["acceptIndex"], 0);
        let jws = offer["signature"].as_str().expect("jws");
        let payload: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(jws.split('.').nth(1).expect("payload")).expect("b64"))
                .expect("json");
        assert_eq!(
            payload,
            json!({"version": 1, "resourceUrl": "http://x/estudio/a?vista=resumen", "scheme": "exact",
                "network": "eip155:84532", "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
                "payTo": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "amount": "990000"})
        );
    }

    #[test]
    fn the_did_document_names_the_key_under_the_services_domain() {
        let key = key();
        assert_eq!(did_web("http://127.0.0.1:8080"), "did:web:127.0.0.1%3A8080");
        assert_eq!(did_web("https://estudios.example.com/"), "did:web:estudios.example.com");
        let document = key.did_document("https://estudios.example.com");
        assert_eq!(document["id"], "did:web:estudios.example.com");
        assert_eq!(document["verificationMethod"][0]["id"], "did:web:estudios.example.com#recibos");
        assert_eq!(document["assertionMethod"][0], "did:web:estudios.example.com#recibos");
        let multibase = document["verificationMethod"][0]["publicKeyMultibase"].as_str().expect("multibase");
        assert_eq!(format!("did:key:{multibase}"), key.did_key());
    }

    #[test]
    fn previous_keys_are_published_after_the_current_one_and_never_sign() {
        let old = ReceiptKey::from_seed([3u8; 32]);
        let older = ReceiptKey::from_seed([4u8; 32]);
        let listed = format!("{}, {}", old.did_key(), older.public().multibase());
        let previous = parse_previous(Some(&listed)).expect("two keys");
        let key = key().with_previous([previous.clone(), vec![key().public()]].concat());
        assert_eq!(key.previous(), &previous[..], "the current key is not its own previous key");
        let document = key.did_document("https://estudios.example.com");
        let ids: Vec<&str> =
            document["assertionMethod"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "did:web:estudios.example.com#recibos",
                "did:web:estudios.example.com#recibos-anterior-1",
                "did:web:estudios.example.com#recibos-anterior-2"
            ]
        );
        assert_eq!(document["verificationMethod"][1]["publicKeyMultibase"], old.public().multibase());
        assert_eq!(document["verificationMethod"][0]["publicKeyMultibase"], key.public().multibase());
        assert!(parse_previous(None).expect("none").is_empty());
        assert!(parse_previous(Some("did:key:zNoEsUnaClave")).is_err());
    }

    #[test]
    fn the_local_key_is_created_once_with_mode_600_and_the_env_key_is_checked() {
        let dir = tempfile::tempdir().expect("dir");
        let a = load_key(None, dir.path(), true).expect("generated");
        let b = load_key(None, dir.path(), true).expect("read back");
        assert_eq!(a.did_key(), b.did_key());
        let mode = std::fs::metadata(dir.path().join(KEY_FILE)).expect("file").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(load_key(None, dir.path(), false).is_err(), "outside local mode the key comes from the environment");
        assert!(load_key(Some("corta".into()), dir.path(), false).is_err());
        let seed = "07".repeat(32);
        assert_eq!(load_key(Some(seed), dir.path(), false).expect("env key").did_key(), key().did_key());
        assert!(!format!("{:?}", key()).contains(&"07".repeat(32)), "Debug never shows the seed");
    }
}
