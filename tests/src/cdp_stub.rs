//! A stand-in for Coinbase CDP's hosted facilitator: the gate's local facilitator mounted
//! under `/platform/v2/x402`, behind the JWT check CDP does on every request.
//!
//! Each request must carry `Authorization: Bearer <JWT>` signed by the configured key
//! (`ES256` or `EdDSA`), with header `alg`, `kid`, `typ: "JWT"` and a 32-hex-digit `nonce`
//! never seen before, and claims `iss: "cdp"`, `sub` = key id, `nbf <= now <= exp`,
//! `exp - nbf <= 120` and `uris == ["<METHOD> <Host header><path>"]` of that very request.
//! A refused token gets 401 JSON with the reason; the stub counts accepted and refused tokens
//! (also at `GET /prueba/cuentas`, without a token).
//!
//! Used in-process by the `tests` crate and `gate/tests/verificar.rs` (which includes this
//! file), and as the `facilitador-cdp-prueba` binary by the interop suite.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use gate::facilitator::cdp::{CdpKey, ISSUER, KeyKind, TOKEN_LIFETIME_SECONDS};
use gate::facilitator::local::LocalFacilitator;
use gate_http::response::Reply;
use gate_http::{Handler, Request};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// Where CDP serves the x402 facilitator API.
pub const PREFIX: &str = "/platform/v2/x402";
/// Counts of accepted and refused tokens, without a token.
pub const COUNTS_PATH: &str = "/prueba/cuentas";

/// The stub: the local facilitator behind CDP's JWT check.
pub struct CdpStub {
    local: LocalFacilitator,
    kid: String,
    alg: Algorithm,
    key: DecodingKey,
    nonces: Mutex<HashSet<String>>,
    accepted: AtomicUsize,
    refused: AtomicUsize,
    refusals: Mutex<Vec<String>>,
}

impl CdpStub {
    /// Accepts tokens signed by `key` (its public half) and settles with `local`.
    pub fn new(key: &CdpKey, local: LocalFacilitator) -> CdpStub {
        let (alg, decoding) = match key.kind() {
            KeyKind::Es256 => (Algorithm::ES256, DecodingKey::from_ec_der(key.public_key())),
            KeyKind::EdDsa => (Algorithm::EdDSA, DecodingKey::from_ed_der(key.public_key())),
        };
        CdpStub {
            local,
            kid: key.id().to_owned(),
            alg,
            key: decoding,
            nonces: Mutex::new(HashSet::new()),
            accepted: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
            refusals: Mutex::new(Vec::new()),
        }
    }

    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }

    /// The reasons of every refusal so far.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.lock().clone()
    }

    /// Checks the `Authorization` of a request to `host` + `path`; a nonce is used up only by
    /// a token that passes every other check.
    pub fn check(&self, method: &str, host: &str, path: &str, authorization: Option<&str>) -> Result<(), String> {
        let token = authorization.and_then(|v| v.strip_prefix("Bearer ")).ok_or("falta Authorization: Bearer <JWT>")?;
        let header = jsonwebtoken::decode_header(token).map_err(|e| format!("encabezado ilegible: {e}"))?;
        if header.alg != self.alg {
            return Err(format!("alg {:?}, se esperaba {:?}", header.alg, self.alg));
        }
        if header.typ.as_deref() != Some("JWT") {
            return Err(format!("typ {:?}, se esperaba \"JWT\"", header.typ));
        }
        if header.kid.as_deref() != Some(self.kid.as_str()) {
            return Err(format!("kid {:?} no es la clave {}", header.kid, self.kid));
        }
        let nonce = header.nonce.ok_or("el encabezado no trae nonce")?;
        if nonce.len() != 32 || !nonce.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')) {
            return Err(format!("nonce {nonce:?}: se esperan 32 dígitos hexadecimales en minúscula"));
        }
        let mut validation = Validation::new(self.alg);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        let claims = jsonwebtoken::decode::<Value>(token, &self.key, &validation)
            .map_err(|e| format!("firma inválida para la clave {}: {e}", self.kid))?
            .claims;
        if claims["iss"] != ISSUER {
            return Err(format!("iss {}, se esperaba \"{ISSUER}\"", claims["iss"]));
        }
        if claims["sub"] != self.kid.as_str() {
            return Err(format!("sub {} no es la clave {}", claims["sub"], self.kid));
        }
        let (Some(nbf), Some(exp)) = (claims["nbf"].as_u64(), claims["exp"].as_u64()) else {
            return Err("faltan nbf o exp".to_owned());
        };
        let now = gate::clock::now();
        if nbf > now {
            return Err(format!("todavía no vale (nbf {nbf}, ahora {now})"));
        }
        if exp < now {
            return Err(format!("venció (exp {exp}, ahora {now})"));
        }
        if exp.saturating_sub(nbf) > TOKEN_LIFETIME_SECONDS {
            return Err(format!("vale {} s, más que {TOKEN_LIFETIME_SECONDS}", exp.saturating_sub(nbf)));
        }
        let expected = json!([format!("{method} {host}{path}")]);
        if claims["uris"] != expected {
            return Err(format!("uris {}, este pedido es {expected}", claims["uris"]));
        }
        if !self.nonces.lock().insert(nonce.clone()) {
            return Err(format!("nonce {nonce} ya usado: el token se repitió"));
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl Handler for CdpStub {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let path = request.path();
        if path == COUNTS_PATH {
            return Reply::json(200, &json!({"aceptados": self.accepted(), "rechazados": self.refused()}));
        }
        let Some(rest) = path.strip_prefix(PREFIX) else {
            return Reply::json(404, &json!({"errorType": "not_found", "errorMessage": format!("{path} no existe")}));
        };
        let text = |name: &str| request.header(name).and_then(|v| std::str::from_utf8(v).ok());
        let method = request.method().as_str();
        if let Err(reason) = self.check(method, text("host").unwrap_or_default(), path, text("authorization")) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            self.refusals.lock().push(reason.clone());
            return Reply::json(401, &json!({"errorType": "unauthorized", "errorMessage": reason}));
        }
        self.accepted.fetch_add(1, Ordering::SeqCst);
        let (status, body) = self.local.handle_http(method, rest, &request.body).await;
        Reply::json(status, &body)
    }
}

/// 32 random bytes.
fn random_32() -> [u8; 32] {
    gate::x402::evm::random_nonce().0
}

/// A new P-256 key as Coinbase issues it: SEC1 PEM (`-----BEGIN EC PRIVATE KEY-----`).
pub fn new_ec_key() -> String {
    loop {
        if let Ok(secret) = p256::SecretKey::from_slice(&random_32())
            && let Ok(pem) = secret.to_sec1_pem(p256::pkcs8::LineEnding::LF)
        {
            return pem.to_string();
        }
    }
}

/// A new Ed25519 key as Coinbase issues it: base64 of seed ‖ public key (64 bytes).
pub fn new_ed25519_key() -> String {
    let seed = random_32();
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
    let mut bytes = seed.to_vec();
    bytes.extend_from_slice(signing.verifying_key().as_bytes());
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
