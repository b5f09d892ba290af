//! The `sign-in-with-x` challenge a 402 declares and the check of a signed answer to it: a
//! leaf of the payment module (it needs only the clock, the link secret and the SIWX codec), so
//! the offers that carry challenges and the re-access that checks them both stand on it.
//!
//! The challenge's nonce is stateless: 4 bytes of issue time, 4 random bytes and 8 bytes of an
//! HMAC over them and the study's URI, under a key derived from the link secret. So any gate
//! that shares the link secret accepts a nonce another issued, nothing is stored per 402, and
//! every 402 carries a nonce of its own (the unpaid answers prepared at load are filled per
//! request: `payment::unpaid`). A nonce is good for [`CHALLENGE_SECONDS`]; a used proof (wallet
//! and nonce) is refused until then, through the sales record, which journals it (a restart
//! does not reopen the window) and, on several gates, would share it.
//!

use std::sync::Arc;

use alloy_primitives::Address;
use hmac::{Hmac, Mac};
use rand::RngCore as _;
use serde_json::Value;
use sha2::Sha256;

use crate::clock::Clock;
use crate::links::LinkSigner;
use crate::x402::siwx::{self, Info, Invalid, Proof};

/// How long a challenge's nonce is good for after the 402 that issued it (the official
/// server's default message age, five minutes).
pub const CHALLENGE_SECONDS: u64 = 300;
/// How far in the future another gate's clock may have put a nonce's issue time.
const SKEW_SECONDS: u64 = 60;
/// The label of the nonce key derived from the link secret.
const NONCE_KEY_LABEL: &str = "sign-in-with-x/nonce/v1";
/// The statement the wallet shows when signing. EIP-4361 allows only URI characters and
/// spaces in it (no accents), or the official client refuses to sign.
pub const STATEMENT: &str = "Acceder de nuevo al estudio comprado con esta billetera, sin pagar otra vez.";

type HmacSha256 = Hmac<Sha256>;

/// The values a challenge fills into a 402: fixed lengths (32, 24, 24 characters), so a 402
/// prepared with [`Challenge::placeholder`] is filled in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub nonce: String,
    pub issued_at: String,
    pub expiration_time: String,
}

impl Challenge {
    /// Stand-ins of the same lengths, found and replaced in a prepared 402.
    pub fn placeholder() -> Challenge {
        Challenge {
            nonce: "~~~~~~~~~~~~~~~~~~~~~~~~~~~nonce".to_owned(),
            issued_at: "~~~~~~~~~~~~~~~~~~issued".to_owned(),
            expiration_time: "~~~~~~~~~~~~~~~~~~expiry".to_owned(),
        }
    }

    /// The three values, in the order of [`Challenge::placeholder`]'s.
    pub fn fields(&self) -> [&str; 3] {
        [&self.nonce, &self.issued_at, &self.expiration_time]
    }
}

/// `2026-01-15T10:30:00.000Z`: a time as `Date.toISOString()` writes it (24 characters).
fn iso_millis(unix: u64) -> String {
    let mut out = String::with_capacity(24);
    crate::clock::push_date_time(&mut out, unix);
    out.push_str(".000Z");
    out
}

/// Issues and checks the gate's sign-in nonces, on the gate's clock.
#[derive(Clone)]
pub struct Challenger {
    /// HMAC-SHA256 already keyed (its inner and outer pads hashed once): each nonce clones it.
    keyed: Arc<HmacSha256>,
    clock: Clock,
}

impl std::fmt::Debug for Challenger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Challenger").finish_non_exhaustive()
    }
}

impl Challenger {
    /// Nonces under a key derived from the link secret (shared by every gate that shares it).
    pub fn new(links: &LinkSigner, clock: Clock) -> Challenger {
        let key = links.derived_key(NONCE_KEY_LABEL);
        // new_from_slice accepts any key length for HMAC.
        let keyed = HmacSha256::new_from_slice(&key).unwrap_or_else(|_| unreachable!());
        Challenger { keyed: Arc::new(keyed), clock }
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// A fresh challenge for `uri`, issued now.
    pub fn issue(&self, uri: &str) -> Challenge {
        let mut random = [0u8; 4];
        rand::rng().fill_bytes(&mut random);
        self.issue_at(uri, self.clock.now(), random)
    }

    fn issue_at(&self, uri: &str, now: u64, random: [u8; 4]) -> Challenge {
        let mut raw = [0u8; 16];
        raw[..4].copy_from_slice(&u32::try_from(now).unwrap_or(u32::MAX).to_be_bytes());
        raw[4..8].copy_from_slice(&random);
        let tag = self.mac(uri, &raw[..8]).finalize().into_bytes();
        raw[8..].copy_from_slice(&tag[..8]);
        let issued = u64::from(u32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]]));
        Challenge {
            nonce: hex::encode(raw),
            issued_at: iso_millis(issued),
            expiration_time: iso_millis(issued + CHALLENGE_SECONDS),
        }
    }

    fn mac(&self, uri: &str, head: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::clone(&self.keyed);
        mac.update(head);
        mac.update(uri.as_bytes());
        mac
    }

    /// The issue time of a nonce a gate with this key issued for `uri` (constant-time check);
    /// `None` for any other string.
    pub fn issued(&self, nonce: &str, uri: &str) -> Option<u64> {
        if nonce.len() != 32 || !nonce.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        let raw = hex::decode(nonce).ok()?;
        self.mac(uri, &raw[..8]).verify_truncated_left(&raw[8..]).ok()?;
        Some(u64::from(u32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]])))
    }
}

/// One offer's sign-in: what its 402 declares (domain, URI, EVM chains) and how a proof for
/// it is checked.
#[derive(Debug, Clone)]
pub struct SignIn {
    challenger: Challenger,
    /// The host (and port) of the gate's public `base_url`, as `URL.host` writes it.
    domain: String,
    /// The offer's HTTP resource URL, on both transports (an MCP client signs it too).
    uri: String,
    /// The offer's EVM networks, in `accepts` order.
    chains: Vec<String>,
}

/// A proof that passed every check: who signed, on which chain, with which nonce, and until
/// when it must be refused as a replay.
#[derive(Debug, Clone)]
pub struct Verified {
    pub address: Address,
    pub chain: String,
    pub nonce: String,
    pub until: u64,
}

impl SignIn {
    /// The sign-in of an offer sold at `resource_url` (under `base_url`) on `networks`; `None`
    /// when the offer has no EVM network (Solana sign-in is not supported) or `base_url` has
    /// no host.
    pub fn new(challenger: Challenger, base_url: &str, resource_url: &str, networks: &[&str]) -> Option<SignIn> {
        let base = url::Url::parse(base_url).ok()?;
        let host = base.host_str()?;
        let domain = match base.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        };
        let chains: Vec<String> =
            networks.iter().filter(|n| siwx::evm_chain_id(n).is_some()).map(|n| (*n).to_owned()).collect();
        if chains.is_empty() {
            return None;
        }
        Some(SignIn { challenger, domain, uri: resource_url.to_owned(), chains })
    }

    /// A fresh challenge for this offer.
    pub fn challenge(&self) -> Challenge {
        self.challenger.issue(&self.uri)
    }

    /// `extensions["sign-in-with-x"]` of this offer's 402 with `challenge`.
    pub fn declaration(&self, challenge: &Challenge) -> Value {
        let info = Info {
            domain: &self.domain,
            uri: &self.uri,
            statement: STATEMENT,
            nonce: &challenge.nonce,
            issued_at: &challenge.issued_at,
            expiration_time: &challenge.expiration_time,
        };
        let chains: Vec<&str> = self.chains.iter().map(String::as_str).collect();
        siwx::declaration(&info, &chains)
    }

    /// Checks a proof as the official `validateSIWxMessage` and `verifySIWxSignature` do, and
    /// more strictly where the gate issued the values: the domain and the URI are this offer's,
    /// the chain one it offers, the nonce one a gate issued for this URI less than
    /// [`CHALLENGE_SECONDS`] ago with the very `issuedAt` it declared, the times current, and
    /// the EIP-4361 message signed by `address` (an EOA).
    pub fn check(&self, proof: &Proof, now: u64) -> Result<Verified, Invalid> {
        if proof.version != siwx::VERSION {
            return Err(Invalid::new("invalid_siwx_payload", format!("version {:?}: debe ser \"1\"", proof.version)));
        }
        if proof.domain != self.domain {
            return Err(Invalid::new(
                "invalid_siwx_domain_mismatch",
                format!("domain {:?} no es el de este servicio ({:?})", proof.domain, self.domain),
            ));
        }
        if proof.uri != self.uri {
            return Err(Invalid::new(
                "invalid_siwx_uri_mismatch",
                format!("uri {:?} no es la de este estudio y vista ({:?})", proof.uri, self.uri),
            ));
        }
        if proof.kind != siwx::EIP191 || !self.chains.contains(&proof.chain_id) {
            return Err(Invalid::new(
                "invalid_siwx_unsupported_chain",
                format!(
                    "chainId {:?} (type {:?}) no está entre las cadenas de supportedChains: {} (type eip191)",
                    proof.chain_id,
                    proof.kind,
                    self.chains.join(", ")
                ),
            ));
        }
        let issued = self.challenger.issued(&proof.nonce, &self.uri).ok_or_else(|| {
            Invalid::new(
                "invalid_siwx_nonce",
                "el nonce no lo emitió este servicio para este estudio: use el de extensions[\"sign-in-with-x\"] de un 402 reciente",
            )
        })?;
        if siwx::parse_time(&proof.issued_at) != i64::try_from(issued).ok() {
            return Err(Invalid::new(
                "invalid_siwx_issued_at",
                format!("issuedAt {:?} no es el que el servicio emitió con este nonce", proof.issued_at),
            ));
        }
        let expired = || {
            Invalid::new(
                "invalid_siwx_expired",
                format!(
                    "el desafío venció ({} s después de emitido): pida el estudio de nuevo para recibir un 402 con un nonce nuevo y firme ese",
                    CHALLENGE_SECONDS
                ),
            )
        };
        if now > issued + CHALLENGE_SECONDS {
            return Err(expired());
        }
        if issued > now + SKEW_SECONDS {
            return Err(Invalid::new("invalid_siwx_issued_at_in_future", "issuedAt está en el futuro"));
        }
        let now_signed = i64::try_from(now).unwrap_or(i64::MAX);
        if let Some(text) = &proof.expiration_time {
            let time = siwx::parse_time(text).ok_or_else(|| {
                Invalid::new(
                    "invalid_siwx_expiration_time",
                    format!("expirationTime {text:?} no es una fecha ISO 8601"),
                )
            })?;
            if time <= now_signed {
                return Err(expired());
            }
        }
        if let Some(text) = &proof.not_before {
            let time = siwx::parse_time(text).ok_or_else(|| {
                Invalid::new("invalid_siwx_not_before", format!("notBefore {text:?} no es una fecha ISO 8601"))
            })?;
            if now_signed < time {
                return Err(Invalid::new("invalid_siwx_not_yet_valid", "notBefore todavía no llegó"));
            }
        }
        let address = siwx::verify_evm(proof)?;
        Ok(Verified {
            address,
            chain: proof.chain_id.clone(),
            nonce: proof.nonce.clone(),
            until: issued + CHALLENGE_SECONDS,
        })
    }
}

#[cfg(test)]
mod tests {
    use alloy_signer_local::PrivateKeySigner;

    use super::*;

    const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const URI: &str = "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen";

    fn challenger() -> Challenger {
        let links = LinkSigner::new(vec![7u8; 32], 7 * 86_400).unwrap();
        Challenger::new(&links, Clock::system())
    }

    fn sign_in() -> SignIn {
        SignIn::new(challenger(), "http://127.0.0.1:8080", URI, &["eip155:84532"]).unwrap()
    }

    fn proof(sign_in: &SignIn, challenge: &Challenge, key: &str) -> Proof {
        let signer: PrivateKeySigner = key.parse().unwrap();
        siwx::sign(&sign_in.declaration(challenge), None, &signer).unwrap()
    }

    #[test]
    fn a_nonce_is_bound_to_its_key_its_uri_and_carries_its_time() {
        let c = challenger();
        let challenge = c.issue_at(URI, 1_800_000_000, [1, 2, 3, 4]);
        assert_eq!(challenge.nonce.len(), 32);
        assert_eq!(challenge.issued_at, "2027-01-15T08:00:00.000Z");
        assert_eq!(challenge.expiration_time, "2027-01-15T08:05:00.000Z");
        for (value, placeholder) in challenge.fields().iter().zip(Challenge::placeholder().fields()) {
            assert_eq!(value.len(), placeholder.len(), "fills in place");
        }
        assert_eq!(c.issued(&challenge.nonce, URI), Some(1_800_000_000));
        assert_eq!(c.issued(&challenge.nonce, "http://127.0.0.1:8080/estudio/otro"), None, "another study");
        let other = Challenger::new(&LinkSigner::new(vec![8u8; 32], 1).unwrap(), Clock::system());
        assert_eq!(other.issued(&challenge.nonce, URI), None, "another secret");
        let mut forged = challenge.nonce.clone().into_bytes();
        forged[1] = if forged[1] == b'0' { b'1' } else { b'0' };
        assert_eq!(c.issued(std::str::from_utf8(&forged).unwrap(), URI), None, "another time");
        assert_eq!(c.issued(&challenge.nonce.to_uppercase(), URI), None);
        assert_ne!(c.issue(URI).nonce, c.issue(URI).nonce, "every 402 its own nonce");
    }

    #[test]
    fn a_proof_is_checked_field_by_field() {
        let s = sign_in();
        let now = s.challenger.clock().now();
        let challenge = s.challenge();
        let good = proof(&s, &challenge, DEV_KEY);
        let verified = s.check(&good, now).unwrap();
        assert_eq!(verified.address.to_checksum(None), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
        assert_eq!(verified.until, siwx::parse_time(&challenge.issued_at).unwrap() as u64 + CHALLENGE_SECONDS);
        let code = |p: &Proof, at: u64| s.check(p, at).unwrap_err().code;
        assert_eq!(
            code(&Proof { domain: "127.0.0.1:9999".into(), ..good.clone() }, now),
            "invalid_siwx_domain_mismatch"
        );
        assert_eq!(
            code(&Proof { uri: URI.replace("resumen", "completo"), ..good.clone() }, now),
            "invalid_siwx_uri_mismatch"
        );
        assert_eq!(
            code(&Proof { chain_id: "eip155:8453".into(), ..good.clone() }, now),
            "invalid_siwx_unsupported_chain"
        );
        assert_eq!(code(&Proof { nonce: "0".repeat(32), ..good.clone() }, now), "invalid_siwx_nonce");
        assert_eq!(
            code(&Proof { issued_at: "2020-01-01T00:00:00.000Z".into(), ..good.clone() }, now),
            "invalid_siwx_issued_at"
        );
        assert_eq!(code(&good, now + CHALLENGE_SECONDS + 1), "invalid_siwx_expired");
        assert_eq!(code(&Proof { statement: Some("otra cosa".into()), ..good.clone() }, now), "invalid_siwx_signature");
        let not_yet = Proof { not_before: Some(iso_millis(now + 100)), ..good.clone() };
        assert_eq!(code(&not_yet, now), "invalid_siwx_not_yet_valid");
    }

    #[test]
    fn no_evm_network_no_sign_in() {
        assert!(SignIn::new(challenger(), "http://127.0.0.1:8080", URI, &["solana:abc"]).is_none());
        let s = SignIn::new(challenger(), "https://estudios.example.com/", URI, &["eip155:8453"]).unwrap();
        assert_eq!(s.domain, "estudios.example.com");
    }
}
