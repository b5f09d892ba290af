//! Signed download links: `/descarga/{archivo}?vence={unix}&firma={hex}`.
//!
//! A purchase hands out links that anyone holding them can use until they expire, without a
//! session or a database: the signature is HMAC-SHA256 over the file name and the expiry with a
//! key that never enters `dist/`. It comes from `GATE_LINK_SECRET`, or, in local mode only, is
//! generated once into the data folder with mode 0600.

use std::path::Path;

use anyhow::{Context, Result, bail};
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Environment variable holding the link key (at least 32 bytes).
pub const SECRET_ENV: &str = "GATE_LINK_SECRET";
/// File name of the generated key in the data folder (local mode).
pub const SECRET_FILE: &str = "clave-enlaces";
const MIN_SECRET_BYTES: usize = 32;
/// Slack allowed past the configured lifetime, for clock differences between issuing hosts.
const SKEW_SECONDS: u64 = 300;

/// Why a link is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    Malformed(&'static str),
    Expired,
    TooFar,
    BadSignature,
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Malformed(what) => write!(f, "enlace mal formado: {what}"),
            LinkError::Expired => f.write_str(
                "el enlace venció; pida el estudio de nuevo: si ya lo compró, firme el desafío sign-in-with-x del 402 con la billetera que pagó y recibe enlaces nuevos sin cobro",
            ),
            LinkError::TooFar => f.write_str("el vencimiento del enlace está más lejos de lo que el servicio emite"),
            LinkError::BadSignature => f.write_str("la firma del enlace no corresponde a este archivo y vencimiento"),
        }
    }
}

/// Signs and checks download links.
#[derive(Clone)]
pub struct LinkSigner {
    key: Vec<u8>,
    lifetime_seconds: u64,
}

impl std::fmt::Debug for LinkSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkSigner").field("lifetime_seconds", &self.lifetime_seconds).finish_non_exhaustive()
    }
}

impl LinkSigner {
    pub fn new(key: Vec<u8>, lifetime_seconds: u64) -> Result<LinkSigner> {
        if key.len() < MIN_SECRET_BYTES {
            bail!("la clave de enlaces debe tener al menos {MIN_SECRET_BYTES} bytes");
        }
        Ok(LinkSigner { key, lifetime_seconds })
    }

    pub fn lifetime_seconds(&self) -> u64 {
        self.lifetime_seconds
    }

    fn mac(&self, file: &str, expires: u64) -> HmacSha256 {
        // new_from_slice accepts any key length for HMAC; the length was checked in new().
        let mut mac = HmacSha256::new_from_slice(&self.key).unwrap_or_else(|_| unreachable!());
        mac.update(file.as_bytes());
        mac.update(b"\n");
        mac.update(expires.to_string().as_bytes());
        mac
    }

    /// The hex signature of a file name and expiry.
    pub fn sign(&self, file: &str, expires: u64) -> String {
        hex::encode(self.mac(file, expires).finalize().into_bytes())
    }

    /// The expiry of a link issued now.
    pub fn expiry(&self, now: u64) -> u64 {
        now + self.lifetime_seconds
    }

    /// The path and query of a link for a file, valid until `expires`.
    pub fn link(&self, file: &str, expires: u64) -> String {
        format!("/descarga/{file}?vence={expires}&firma={}", self.sign(file, expires))
    }

    /// A key for another use of the gate's secret (HMAC-SHA256 of `label` under the link key):
    /// every gate that shares the link key derives the same one, and no MAC made with it is ever
    /// a valid link signature.
    pub fn derived_key(&self, label: &str) -> [u8; 32] {
        // new_from_slice accepts any key length for HMAC; the length was checked in new().
        let mut mac = HmacSha256::new_from_slice(&self.key).unwrap_or_else(|_| unreachable!());
        mac.update(b"derived-key\n");
        mac.update(label.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Checks `vence` and `firma` (as they came in the query) for a file name at `now`.
    pub fn verify(
        &self,
        file: &str,
        expires: Option<&str>,
        signature: Option<&str>,
        now: u64,
    ) -> Result<(), LinkError> {
        let expires = expires.ok_or(LinkError::Malformed("falta vence"))?;
        let signature = signature.ok_or(LinkError::Malformed("falta firma"))?;
        if expires.is_empty() || expires.len() > 20 || !expires.bytes().all(|b| b.is_ascii_digit()) {
            return Err(LinkError::Malformed("vence debe ser un entero positivo (segundos unix)"));
        }
        let expires: u64 = expires.parse().map_err(|_| LinkError::Malformed("vence fuera de rango"))?;
        let signature = hex::decode(signature).map_err(|_| LinkError::Malformed("firma debe ser hexadecimal"))?;
        // Signature first, in constant time, so a forged link learns nothing about expiry rules.
        self.mac(file, expires).verify_slice(&signature).map_err(|_| LinkError::BadSignature)?;
        if expires <= now {
            return Err(LinkError::Expired);
        }
        if expires > now + self.lifetime_seconds + SKEW_SECONDS {
            return Err(LinkError::TooFar);
        }
        Ok(())
    }
}

/// The link key: from the environment, or (local mode only) from a file in the data folder,
/// created with 32 random bytes and mode 0600 the first time.
pub fn load_secret(env_value: Option<String>, data_dir: &Path, local_mode: bool) -> Result<Vec<u8>> {
    if let Some(value) = env_value.filter(|v| !v.is_empty()) {
        if value.len() < MIN_SECRET_BYTES {
            bail!("{SECRET_ENV} debe tener al menos {MIN_SECRET_BYTES} caracteres");
        }
        return Ok(value.into_bytes());
    }
    if !local_mode {
        bail!(
            "falta {SECRET_ENV}: fuera del modo local la clave de los enlaces debe venir del entorno (al menos {MIN_SECRET_BYTES} caracteres)"
        );
    }
    let path = data_dir.join(SECRET_FILE);
    let text = crate::dev_secret::read_or_create(data_dir, &path, MIN_SECRET_BYTES)?;
    hex::decode(&text).with_context(|| format!("{} no es hexadecimal", path.display()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn signer() -> LinkSigner {
        LinkSigner::new(vec![7u8; 32], 7 * 86_400).unwrap()
    }

    #[test]
    fn a_signed_link_verifies_until_it_expires() {
        let s = signer();
        let now = 1_800_000_000;
        let exp = s.expiry(now);
        let signature = s.sign("a.zip", exp);
        assert_eq!(signature.len(), 64);
        assert_eq!(s.verify("a.zip", Some(&exp.to_string()), Some(&signature), now), Ok(()));
        assert_eq!(s.verify("a.zip", Some(&exp.to_string()), Some(&signature), exp), Err(LinkError::Expired));
        assert_eq!(s.link("a.zip", exp), format!("/descarga/a.zip?vence={exp}&firma={signature}"));
    }

    #[test]
    fn tampering_is_refused() {
        let s = signer();
        let now = 1_800_000_000;
        let exp = s.expiry(now);
        let signature = s.sign("a.zip", exp);
        let e = exp.to_string();
        assert_eq!(s.verify("b.zip", Some(&e), Some(&signature), now), Err(LinkError::BadSignature));
        assert_eq!(
            s.verify("a.zip", Some(&(exp + 1).to_string()), Some(&signature), now),
            Err(LinkError::BadSignature)
        );
        for bad in ["-1", "", "12a", "999999999999999999999999"] {
            assert!(
                matches!(s.verify("a.zip", Some(bad), Some(&signature), now), Err(LinkError::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(s.verify("a.zip", Some(&e), Some("zz"), now), Err(LinkError::Malformed(_))));
        assert!(matches!(s.verify("a.zip", None, Some(&signature), now), Err(LinkError::Malformed(_))));
        // Far future with a correct signature from a leaked key is still bounded.
        let far = now + 365 * 86_400;
        assert_eq!(s.verify("a.zip", Some(&far.to_string()), Some(&s.sign("a.zip", far)), now), Err(LinkError::TooFar));
        // Another key's signature fails.
        let other = LinkSigner::new(vec![8u8; 32], 7 * 86_400).unwrap();
        assert_eq!(s.verify("a.zip", Some(&e), Some(&other.sign("a.zip", exp)), now), Err(LinkError::BadSignature));
    }

    #[test]
    fn derived_keys_depend_on_the_secret_and_the_label() {
        let s = signer();
        assert_eq!(s.derived_key("a"), signer().derived_key("a"), "every gate with the secret derives it");
        assert_ne!(s.derived_key("a"), s.derived_key("b"));
        assert_ne!(s.derived_key("a"), LinkSigner::new(vec![8u8; 32], 1).unwrap().derived_key("a"));
    }

    #[test]
    fn local_key_is_created_once_with_mode_600() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_secret(None, dir.path(), true).unwrap();
        let b = load_secret(None, dir.path(), true).unwrap();
        assert_eq!(a, b);
        let mode = std::fs::metadata(dir.path().join(SECRET_FILE)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(load_secret(None, dir.path(), false).is_err(), "testnet/mainnet need the env key");
        assert!(load_secret(Some("short".into()), dir.path(), false).is_err());
        assert_eq!(load_secret(Some("k".repeat(40)), dir.path(), false).unwrap(), vec![b'k'; 40]);
    }

    proptest::proptest! {
        /// Arbitrary names, expiries and signatures never panic, and only the signature made for
        /// that exact name and expiry, inside the time window, is accepted.
        #[test]
        fn only_the_exact_signature_verifies(
            file in "\\PC{0,80}",
            expires in proptest::option::of("\\PC{0,30}"),
            signature in proptest::option::of("[0-9a-fA-F]{0,70}|\\PC{0,70}"),
            now in 0u64..4_000_000_000,
        ) {
            let s = signer();
            let result = s.verify(&file, expires.as_deref(), signature.as_deref(), now);
            if result.is_ok() {
                let (expires, signature) = (expires.unwrap(), signature.unwrap());
                let expires: u64 = expires.parse().unwrap();
                proptest::prop_assert_eq!(signature.to_ascii_lowercase(), s.sign(&file, expires));
                proptest::prop_assert!(expires > now && expires <= now + s.lifetime_seconds() + SKEW_SECONDS);
            }
        }

        /// A link signed for one file never opens another.
        #[test]
        fn a_link_opens_only_its_own_file(a in "[a-z0-9._-]{1,40}", b in "[a-z0-9._-]{1,40}", now in 1u64..4_000_000_000) {
            let s = signer();
            let expires = s.expiry(now);
            let signature = s.sign(&a, expires);
            proptest::prop_assert_eq!(s.verify(&a, Some(&expires.to_string()), Some(&signature), now), Ok(()));
            if a != b {
                proptest::prop_assert_eq!(s.verify(&b, Some(&expires.to_string()), Some(&signature), now), Err(LinkError::BadSignature));
            }
        }
    }
}
