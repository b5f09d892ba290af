//! Coinbase CDP facilitator authentication: a JWT minted for each request.
//!
//! CDP's hosted facilitator (`https://api.cdp.coinbase.com/platform/v2/x402`) wants
//! `Authorization: Bearer <JWT>` on `/verify`, `/settle` and `/supported`, signed with a
//! "Secret API key": a key id (`CDP_API_KEY_ID`) and a private key (`CDP_API_KEY_SECRET`),
//! either a PEM EC P-256 key (`ES256`; Coinbase issues SEC1 `-----BEGIN EC PRIVATE KEY-----`)
//! or a base64 Ed25519 key of 64 bytes, seed then public key (`EdDSA`).
//!
//! The token matches the official generator, `generateJwt` of npm `@coinbase/cdp-sdk` 1.57.0
//! (`src/auth/utils/jwt.ts`): header `{alg, kid, typ: "JWT", nonce}` with 16 random bytes of
//! nonce in lowercase hex, claims `{sub, iss: "cdp", uris: ["<METHOD> <host><path>"], iat,
//! nbf, exp}`, valid 120 seconds, one token per request. `tests/interop/cdp-jwt.mjs` checks
//! that both decode to the same header fields and claims.
//!
//! The secret never leaves this module: [`CdpKey`]'s `Debug` shows the key id and algorithm
//! only, errors never quote the value, and tokens are not logged.

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use ed25519_dalek::pkcs8::EncodePrivateKey as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use p256::pkcs8::DecodePrivateKey as _;
use rand::RngCore as _;
use serde::{Deserialize, Serialize};

/// The environment variables Coinbase's SDKs read.
pub const KEY_ID_ENV: &str = "CDP_API_KEY_ID";
pub const KEY_SECRET_ENV: &str = "CDP_API_KEY_SECRET";
/// Coinbase's hosted x402 facilitator.
pub const CDP_FACILITATOR: &str = "https://api.cdp.coinbase.com/platform/v2/x402";
/// How long a token is valid, in seconds (CDP's maximum, and the SDK's default).
pub const TOKEN_LIFETIME_SECONDS: u64 = 120;
/// The issuer CDP expects.
pub const ISSUER: &str = "cdp";

/// What the key signs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// EC P-256 (PEM): `ES256`.
    Es256,
    /// Ed25519 (base64 of seed ‖ public key): `EdDSA`.
    EdDsa,
}

impl KeyKind {
    pub fn algorithm(self) -> Algorithm {
        match self {
            KeyKind::Es256 => Algorithm::ES256,
            KeyKind::EdDsa => Algorithm::EdDSA,
        }
    }

    /// The JOSE name (`ES256`, `EdDSA`).
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Es256 => "ES256",
            KeyKind::EdDsa => "EdDSA",
        }
    }
}

/// A CDP Secret API key, ready to sign tokens.
#[derive(Clone)]
pub struct CdpKey {
    id: String,
    kind: KeyKind,
    signing: EncodingKey,
    /// SEC1 uncompressed point (P-256) or the 32 raw bytes (Ed25519): what a verifier needs.
    public: Vec<u8>,
}

impl std::fmt::Debug for CdpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpKey")
            .field("id", &self.id)
            .field("alg", &self.kind.as_str())
            .field("secret", &"[oculto]")
            .finish()
    }
}

impl PartialEq for CdpKey {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.kind == other.kind && self.public == other.public
    }
}

/// The JWT claims, in the official generator's names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub iss: String,
    /// `["<METHOD> <host><path>"]`: the one request the token is for.
    pub uris: Vec<String>,
    pub iat: u64,
    pub nbf: u64,
    pub exp: u64,
}

impl CdpKey {
    /// The key from the two environment values; `None` when neither is set, an error naming
    /// the missing one when only one is.
    pub fn from_env_values(id: Option<&str>, secret: Option<&str>) -> Result<Option<CdpKey>> {
        let id = id.map(str::trim).filter(|v| !v.is_empty());
        let secret = secret.filter(|v| !v.trim().is_empty());
        match (id, secret) {
            (None, None) => Ok(None),
            (Some(id), Some(secret)) => CdpKey::parse(id, secret).map(Some),
            (Some(_), None) => bail!(
                "falta {KEY_SECRET_ENV}: con {KEY_ID_ENV} definida hace falta también la clave privada de la clave secreta de API de CDP"
            ),
            (None, Some(_)) => bail!(
                "falta {KEY_ID_ENV}: con {KEY_SECRET_ENV} definida hace falta también el identificador de la clave de API de CDP"
            ),
        }
    }

    /// The key from the process environment (see [`CdpKey::from_env_values`]).
    pub fn from_process_env() -> Result<Option<CdpKey>> {
        let id = std::env::var(KEY_ID_ENV).ok();
        let secret = std::env::var(KEY_SECRET_ENV).ok();
        CdpKey::from_env_values(id.as_deref(), secret.as_deref())
    }

    /// Parses a key id and secret: a PEM EC P-256 key (SEC1 or PKCS#8) or a base64 Ed25519
    /// key of 64 bytes. Newlines written as a literal `\n` (as many env files do) are accepted.
    pub fn parse(id: &str, secret: &str) -> Result<CdpKey> {
        let id = id.trim();
        if id.is_empty() {
            bail!("{KEY_ID_ENV} está vacía");
        }
        let secret = secret.trim().replace("\\n", "\n");
        let key = if secret.contains("-----BEGIN") { parse_pem(id, &secret)? } else { parse_ed25519(id, &secret)? };
        // A key that parsed but cannot sign would fail on the first sale: find out now.
        key.token_at("GET api.cdp.coinbase.com/platform/v2/x402/supported", 0)
            .with_context(|| format!("{KEY_SECRET_ENV}: la clave no firma tokens {}", key.kind.as_str()))?;
        Ok(key)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// The public half: SEC1 uncompressed point (P-256) or 32 raw bytes (Ed25519).
    pub fn public_key(&self) -> &[u8] {
        &self.public
    }

    /// A token for one request, valid from now for [`TOKEN_LIFETIME_SECONDS`].
    pub fn token(&self, method: &str, url: &url::Url) -> Result<String> {
        self.token_at(&request_uri(method, url), crate::clock::now())
    }

    /// A token for `uri` (`"<METHOD> <host><path>"`) issued at `now`.
    pub fn token_at(&self, uri: &str, now: u64) -> Result<String> {
        let mut header = Header::new(self.kind.algorithm());
        header.kid = Some(self.id.clone());
        header.nonce = Some(nonce());
        let claims = Claims {
            sub: self.id.clone(),
            iss: ISSUER.to_owned(),
            uris: vec![uri.to_owned()],
            iat: now,
            nbf: now,
            exp: now + TOKEN_LIFETIME_SECONDS,
        };
        jsonwebtoken::encode(&header, &claims, &self.signing)
            .map_err(|e| anyhow::anyhow!("no se pudo firmar el token de CDP: {e}"))
    }

    /// Adds `Authorization: Bearer <token>` for this very request.
    pub fn authorize(&self, request: &mut reqwest::Request) -> Result<()> {
        let token = self.token(request.method().as_str(), request.url())?;
        let mut value = reqwest::header::HeaderValue::try_from(format!("Bearer {token}"))
            .context("el token de CDP no cabe en un encabezado")?;
        value.set_sensitive(true);
        request.headers_mut().insert(reqwest::header::AUTHORIZATION, value);
        Ok(())
    }
}

/// `"<METHOD> <host>[:port]<path>"`: the port only when the URL names a non-default one.
pub fn request_uri(method: &str, url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{method} {host}:{port}{}", url.path()),
        None => format!("{method} {host}{}", url.path()),
    }
}

/// 16 random bytes as 32 lowercase hex digits.
fn nonce() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

const EXPECTED_KINDS: &str = "una clave EC P-256 en PEM (-----BEGIN EC PRIVATE KEY-----, como la entrega Coinbase, o -----BEGIN PRIVATE KEY-----) o una clave Ed25519 en base64 de 64 bytes (semilla y clave pública)";

fn parse_pem(id: &str, pem: &str) -> Result<CdpKey> {
    let parsed = if pem.contains("-----BEGIN EC PRIVATE KEY-----") {
        p256::SecretKey::from_sec1_pem(pem).ok()
    } else if pem.contains("-----BEGIN PRIVATE KEY-----") {
        p256::SecretKey::from_pkcs8_pem(pem).ok()
    } else {
        None
    };
    let Some(secret) = parsed else {
        bail!(
            "{KEY_SECRET_ENV} no es una clave EC P-256 en PEM válida: se esperaba -----BEGIN EC PRIVATE KEY----- (SEC1, como la entrega Coinbase) o -----BEGIN PRIVATE KEY----- (PKCS#8) de la curva P-256"
        );
    };
    let der =
        secret.to_pkcs8_der().map_err(|_| anyhow::anyhow!("{KEY_SECRET_ENV}: no se pudo preparar la clave EC"))?;
    let public = secret.public_key().to_encoded_point(false).as_bytes().to_vec();
    Ok(CdpKey { id: id.to_owned(), kind: KeyKind::Es256, signing: EncodingKey::from_ec_der(der.as_bytes()), public })
}

fn parse_ed25519(id: &str, text: &str) -> Result<CdpKey> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(&compact) else {
        bail!("{KEY_SECRET_ENV} no es PEM ni base64: se esperaba {EXPECTED_KINDS}");
    };
    if bytes.len() != 64 {
        bail!(
            "{KEY_SECRET_ENV}: una clave Ed25519 en base64 mide 64 bytes (semilla y clave pública) y esta mide {}; se esperaba {EXPECTED_KINDS}",
            bytes.len()
        );
    }
    let (seed, public) = bytes.split_at(32);
    let seed: [u8; 32] = seed.try_into().map_err(|_| anyhow::anyhow!("{KEY_SECRET_ENV}: semilla inválida"))?;
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
    if signing.verifying_key().as_bytes() != public {
        bail!(
            "{KEY_SECRET_ENV}: la clave Ed25519 no es coherente (los últimos 32 bytes no son la clave pública de los primeros 32)"
        );
    }
    let der = signing
        .to_pkcs8_der()
        .map_err(|_| anyhow::anyhow!("{KEY_SECRET_ENV}: no se pudo preparar la clave Ed25519"))?;
    Ok(CdpKey {
        id: id.to_owned(),
        kind: KeyKind::EdDsa,
        signing: EncodingKey::from_ed_der(der.as_bytes()),
        public: public.to_vec(),
    })
}

/// Freshly generated secrets in the forms Coinbase issues them.
#[cfg(test)]
mod test_keys {
    use base64::Engine as _;
    use p256::pkcs8::LineEnding;

    /// A new P-256 key as SEC1 PEM (`-----BEGIN EC PRIVATE KEY-----`).
    pub(super) fn ec_sec1_pem() -> String {
        loop {
            let mut bytes = [0u8; 32];
            rand::RngCore::fill_bytes(&mut rand::rng(), &mut bytes);
            if let Ok(secret) = p256::SecretKey::from_slice(&bytes)
                && let Ok(pem) = secret.to_sec1_pem(LineEnding::LF)
            {
                return pem.to_string();
            }
        }
    }

    /// A new Ed25519 key as base64 of seed ‖ public key.
    pub(super) fn ed25519_base64() -> String {
        let mut seed = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut seed);
        let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
        let mut bytes = seed.to_vec();
        bytes.extend_from_slice(signing.verifying_key().as_bytes());
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_part(token: &str, index: usize) -> serde_json::Value {
        let part = token.split('.').nth(index).unwrap();
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    fn verify(key: &CdpKey, token: &str) -> Claims {
        let decoding = match key.kind() {
            KeyKind::Es256 => jsonwebtoken::DecodingKey::from_ec_der(key.public_key()),
            KeyKind::EdDsa => jsonwebtoken::DecodingKey::from_ed_der(key.public_key()),
        };
        let mut validation = jsonwebtoken::Validation::new(key.kind().algorithm());
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        jsonwebtoken::decode::<Claims>(token, &decoding, &validation).unwrap().claims
    }

    #[test]
    fn sec1_pkcs8_and_escaped_newlines_parse_as_es256() {
        let sec1 = test_keys::ec_sec1_pem();
        let key = CdpKey::parse("organizations/o/apiKeys/k", &sec1).unwrap();
        assert_eq!(key.kind(), KeyKind::Es256);
        assert_eq!(key.public_key().len(), 65);
        let escaped = sec1.trim_end().replace('\n', "\\n");
        assert!(!escaped.contains('\n'));
        assert_eq!(CdpKey::parse("organizations/o/apiKeys/k", &escaped).unwrap(), key);
        let secret = p256::SecretKey::from_sec1_pem(&sec1).unwrap();
        let pkcs8 = secret.to_pkcs8_pem(p256::pkcs8::LineEnding::LF).unwrap();
        assert_eq!(CdpKey::parse("organizations/o/apiKeys/k", &pkcs8).unwrap(), key);
    }

    #[test]
    fn ed25519_base64_parses_as_eddsa_and_its_halves_must_agree() {
        let text = test_keys::ed25519_base64();
        let key = CdpKey::parse("kid", &text).unwrap();
        assert_eq!(key.kind(), KeyKind::EdDsa);
        assert_eq!(key.public_key().len(), 32);
        let mut bytes = base64::engine::general_purpose::STANDARD.decode(&text).unwrap();
        bytes[63] ^= 1;
        let wrong = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let error = CdpKey::parse("kid", &wrong).unwrap_err().to_string();
        assert!(error.contains("no es coherente"), "{error}");
    }

    #[test]
    fn wrong_kinds_are_refused_saying_what_was_expected() {
        let ed_pkcs8 = ed25519_dalek::SigningKey::from_bytes(&[7; 32])
            .to_pkcs8_pem(p256::pkcs8::LineEnding::LF)
            .unwrap()
            .to_string();
        let garbage_sec1 = "-----BEGIN EC PRIVATE KEY-----\nMHQCAQEEIA==\n-----END EC PRIVATE KEY-----\n";
        let rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK==\n-----END RSA PRIVATE KEY-----\n";
        for (secret, expected) in [
            (ed_pkcs8.as_str(), "EC P-256"),
            (garbage_sec1, "EC P-256"),
            (rsa, "EC P-256"),
            ("c2hvcnQ=", "64 bytes"),
            ("no es base64 ni PEM!", "no es PEM ni base64"),
        ] {
            let error = format!("{:#}", CdpKey::parse("kid", secret).unwrap_err());
            assert!(error.contains(expected), "{secret:?}: {error}");
            assert!(error.contains(KEY_SECRET_ENV), "{error}");
        }
        assert!(CdpKey::parse(" ", &test_keys::ed25519_base64()).is_err());
    }

    #[test]
    fn only_one_of_the_two_variables_names_the_missing_one() {
        let secret = test_keys::ed25519_base64();
        assert_eq!(CdpKey::from_env_values(None, None).unwrap(), None);
        assert_eq!(CdpKey::from_env_values(Some(""), Some(" ")).unwrap(), None);
        let missing_secret = CdpKey::from_env_values(Some("kid"), None).unwrap_err().to_string();
        assert!(missing_secret.starts_with(&format!("falta {KEY_SECRET_ENV}")), "{missing_secret}");
        let missing_id = CdpKey::from_env_values(None, Some(&secret)).unwrap_err().to_string();
        assert!(missing_id.starts_with(&format!("falta {KEY_ID_ENV}")), "{missing_id}");
        assert!(CdpKey::from_env_values(Some("kid"), Some(&secret)).unwrap().is_some());
    }

    #[test]
    fn debug_and_errors_never_show_the_secret() {
        let secret = test_keys::ec_sec1_pem();
        let key = CdpKey::parse("kid-1", &secret).unwrap();
        let shown = format!("{key:?}");
        assert!(shown.contains("kid-1") && shown.contains("ES256") && shown.contains("[oculto]"), "{shown}");
        let body: String = secret.lines().nth(1).unwrap().chars().take(20).collect();
        assert!(!shown.contains(&body));
        let broken = secret.replace("-----END EC PRIVATE KEY-----", "");
        assert!(!format!("{:#}", CdpKey::parse("kid", &broken).unwrap_err()).contains(&body));
    }

    #[test]
    fn tokens_carry_the_official_header_and_claims_for_one_request() {
        for secret in [test_keys::ec_sec1_pem(), test_keys::ed25519_base64()] {
            let key = CdpKey::parse("organizations/o/apiKeys/k", &secret).unwrap();
            let url = url::Url::parse("https://api.cdp.coinbase.com/platform/v2/x402/settle").unwrap();
            let token = key.token("POST", &url).unwrap();
            let header = decode_part(&token, 0);
            let names: Vec<&str> = header.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(names, ["alg", "kid", "nonce", "typ"]);
            assert_eq!(header["alg"], key.kind().as_str());
            assert_eq!(header["kid"], "organizations/o/apiKeys/k");
            assert_eq!(header["typ"], "JWT");
            let nonce = header["nonce"].as_str().unwrap();
            assert!(nonce.len() == 32 && nonce.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')), "{nonce}");
            let claims = verify(&key, &token);
            assert_eq!(claims.sub, "organizations/o/apiKeys/k");
            assert_eq!(claims.iss, "cdp");
            assert_eq!(claims.uris, ["POST api.cdp.coinbase.com/platform/v2/x402/settle"]);
            assert_eq!((claims.iat, claims.exp - claims.nbf), (claims.nbf, 120));
            assert!(claims.nbf.abs_diff(crate::clock::now()) <= 2);
            let again = key.token("POST", &url).unwrap();
            assert_ne!(decode_part(&again, 0)["nonce"], header["nonce"], "a fresh nonce per token");
        }
    }

    #[test]
    fn the_uri_names_a_port_only_when_it_is_not_the_default() {
        let uri = |u: &str| request_uri("GET", &url::Url::parse(u).unwrap());
        assert_eq!(
            uri("https://api.cdp.coinbase.com/platform/v2/x402/supported"),
            "GET api.cdp.coinbase.com/platform/v2/x402/supported"
        );
        assert_eq!(uri("https://api.cdp.coinbase.com:443/p"), "GET api.cdp.coinbase.com/p");
        assert_eq!(uri("http://127.0.0.1:8402/platform/v2/x402/verify"), "GET 127.0.0.1:8402/platform/v2/x402/verify");
        assert_eq!(uri("http://proxy.internal/x402/settle?a=b"), "GET proxy.internal/x402/settle");
    }

    #[test]
    fn authorize_adds_a_sensitive_bearer_header() {
        let key = CdpKey::parse("kid", &test_keys::ed25519_base64()).unwrap();
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let client = reqwest::Client::new();
        let mut request = client.get("http://127.0.0.1:9/platform/v2/x402/supported").build().unwrap();
        key.authorize(&mut request).unwrap();
        let value = request.headers().get(reqwest::header::AUTHORIZATION).unwrap();
        assert!(value.is_sensitive());
        let token = value.to_str().unwrap().strip_prefix("Bearer ").unwrap();
        assert_eq!(verify(&key, token).uris, ["GET 127.0.0.1:9/platform/v2/x402/supported"]);
    }
}
