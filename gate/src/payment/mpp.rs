//! The Machine Payments Protocol (MPP, IETF draft `draft-ryan-httpauth-payment`) beside x402
//! on the same 402: the `evm` method, `charge` intent, `authorization` credential type.
//!
//! Written from `tempoxyz/mpp-specs` (`specs/core/draft-httpauth-payment-00.md`,
//! `specs/methods/evm/draft-evm-charge-00.md`, revision f9506cd) and checked byte for byte
//! against what `wevm/mppx` (`src/Challenge.ts`, `src/Credential.ts`, `src/evm/`) sends:
//!
//! - challenge: `WWW-Authenticate: Payment id="…", realm="…", method="evm", intent="charge",
//!   request="<base64url(JCS(request))>", expires="…", opaque="…"`, one per EVM requirement
//!   of the x402 offer (same amount, asset, network and payTo). `id` is base64url(HMAC-SHA256(key,
//!   `realm|method|intent|request|expires|digest|opaque`)) with a key derived from the link key,
//!   so a challenge needs no memory; `opaque` (base64url of JCS `{"estudio","vista"}`) binds it
//!   to the study and view it was issued for;
//! - credential: `Authorization: Payment <base64url(JSON {challenge, payload, source?})>`, the
//!   payload an EIP-3009 `transferWithAuthorization` whose nonce is `keccak256(id ‖ realm)`
//!   (or, as `pympp` signs it, `keccak256(JSON.stringify([id, realm]))`);
//! - receipt: `Payment-Receipt: <base64url(JSON {method, reference, status, timestamp})>`.
//!
//! The wire forms themselves (parsing and formatting the three headers, base64url, JCS, the
//! challenge id) are in [`wire`], held to the conformance vectors of `tempoxyz/mpp-tools`.
//!
//! A credential that passes the challenge checks here becomes the x402 `exact` payload it is
//! (as mppx's own server does before calling an x402 facilitator) and is sold by
//! [`super::shop::Shop::purchase_as`]: the same signature, amount and time checks, reservation,
//! replay memory, settle-after-production, journal and chain proof as an x402 purchase.

pub mod wire;

use std::collections::HashMap;
use std::sync::Arc;

use alloy_primitives::{Address, keccak256};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::offer::Offer;
use super::preferences::Selection;
use crate::clock::{Clock, iso8601};
use crate::links::LinkSigner;
use crate::x402::{PaymentPayload, PaymentRequirements};
pub use wire::{Challenge, Credential, Receipt, canonical, credential_token as credential_of};

/// The payment method and intent this gate offers.
pub const METHOD: &str = "evm";
pub const INTENT: &str = "charge";
/// The label of the challenge-id key derived from the link key.
const KEY_LABEL: &str = "mpp-challenge-id";
/// USDC's decimals: every asset the gate sells in is USDC.
const USDC_DECIMALS: u32 = 6;
/// A challenge lives at most this long (and never longer than the requirement's
/// `maxTimeoutSeconds`, since mppx signs `validBefore = expires`).
const MAX_CHALLENGE_SECONDS: u64 = 300;
/// Base URI of the problem types (RFC 9457) of the draft.
pub const PROBLEM_BASE: &str = "https://paymentauth.org/problems/";

/// Issues and checks the gate's MPP challenges.
#[derive(Clone)]
pub struct Mpp {
    key: [u8; 32],
    realm: String,
    clock: Clock,
    /// The `WWW-Authenticate` value of each study view for the second it was made in: a
    /// challenge depends only on its offer and the second (its `expires`, hence its id), so the
    /// unpaid 402 makes it once a second per study view, not once per request.
    headers: Arc<Mutex<HeaderCache>>,
}

/// `(slug, view)` → (the second, the `WWW-Authenticate` value then).
type HeaderCache = HashMap<(String, &'static str), (u64, Option<String>)>;

impl std::fmt::Debug for Mpp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mpp").field("realm", &self.realm).finish_non_exhaustive()
    }
}

/// The EIP-3009 authorization of an `evm` charge credential.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthorizationPayload {
    #[serde(rename = "type")]
    kind: String,
    from: String,
    to: String,
    value: String,
    valid_after: String,
    valid_before: String,
    nonce: String,
    signature: String,
}

/// Why a credential is refused, as an RFC 9457 problem of the draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `malformed-credential`, `invalid-challenge`, `verification-failed`, …
    pub kind: &'static str,
    pub status: u16,
    pub detail: String,
}

impl Problem {
    pub fn new(kind: &'static str, detail: impl Into<String>) -> Problem {
        Problem { kind, status: 402, detail: detail.into() }
    }

    fn malformed(detail: impl Into<String>) -> Problem {
        Problem::new("malformed-credential", detail)
    }

    fn invalid(detail: impl Into<String>) -> Problem {
        Problem::new("invalid-challenge", detail)
    }

    fn failed(detail: impl Into<String>) -> Problem {
        Problem::new("verification-failed", detail)
    }

    /// The problem's title (English, as the draft names them).
    pub fn title(&self) -> &'static str {
        match self.kind {
            "malformed-credential" => "Malformed Credential",
            "invalid-challenge" => "Invalid Challenge",
            "verification-failed" => "Payment Verification Failed",
            "payment-required" => "Payment Required",
            _ => "Bad Request",
        }
    }

    /// The RFC 9457 members of the problem.
    pub fn members(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("type".into(), Value::String(format!("{PROBLEM_BASE}{}", self.kind)));
        map.insert("title".into(), Value::String(self.title().to_owned()));
        map.insert("status".into(), json!(self.status));
        map.insert("detail".into(), Value::String(self.detail.clone()));
        map
    }
}

/// A credential that passed the challenge checks, turned into the x402 payment it is.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub payload: PaymentPayload,
    /// The challenge id, echoed in the MCP receipt.
    pub challenge_id: String,
}

impl Mpp {
    /// Challenges for the realm of `base_url` (its host and port), with a key derived from the
    /// link key (so every gate sharing the link key accepts every gate's challenges).
    pub fn new(links: &LinkSigner, base_url: &str, clock: Clock) -> Mpp {
        let realm = url::Url::parse(base_url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_owned();
                Some(match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                })
            })
            .unwrap_or_else(|| base_url.to_owned());
        Mpp { key: links.derived_key(KEY_LABEL), realm, clock, headers: Arc::default() }
    }

    pub fn realm(&self) -> &str {
        &self.realm
    }

    /// The gate's time, for receipts.
    pub fn now(&self) -> u64 {
        self.clock.now()
    }

    /// The fresh challenges of an offer, one per EVM requirement.
    pub fn challenges(&self, offer: &Offer) -> Vec<Challenge> {
        let now = self.clock.now();
        offer.required.accepts.iter().filter_map(|req| self.challenge_for(offer, req, now)).collect()
    }

    /// The `WWW-Authenticate` value of an offer (`None`: nothing payable over MPP): the same
    /// challenges [`Mpp::challenges`] gives in this second, made once a second per study view.
    pub fn www_authenticate(&self, offer: &Offer) -> Option<String> {
        let now = self.clock.now();
        let key = (offer.slug.clone(), offer.view.as_str());
        if let Some((second, value)) = self.headers.lock().get(&key)
            && *second == now
        {
            return value.clone();
        }
        let challenges: Vec<Challenge> =
            offer.required.accepts.iter().filter_map(|req| self.challenge_for(offer, req, now)).collect();
        let value = (!challenges.is_empty())
            .then(|| challenges.iter().filter_map(|c| wire::format_challenge(c).ok()).collect::<Vec<_>>().join(", "));
        self.headers.lock().insert(key, (now, value.clone()));
        value
    }

    /// The fresh challenges of the requirements a buyer's preferences keep, in their order.
    pub fn challenges_for(&self, offer: &Offer, selection: &Selection) -> Vec<Challenge> {
        let now = self.clock.now();
        selection.apply(&offer.required.accepts).iter().filter_map(|req| self.challenge_for(offer, req, now)).collect()
    }

    /// [`Mpp::www_authenticate`] for the requirements a buyer's preferences keep, in their
    /// order (`None`: none of them is payable over MPP).
    pub fn www_authenticate_for(&self, offer: &Offer, selection: &Selection) -> Option<String> {
        if selection.is_plain(offer.required.accepts.len()) {
            return self.www_authenticate(offer);
        }
        let challenges = self.challenges_for(offer, selection);
        (!challenges.is_empty())
            .then(|| challenges.iter().filter_map(|c| wire::format_challenge(c).ok()).collect::<Vec<_>>().join(", "))
    }

    fn challenge_for(&self, offer: &Offer, req: &PaymentRequirements, now: u64) -> Option<Challenge> {
        let request = request_of(req)?;
        let request = wire::encode(canonical(&request).as_bytes());
        let lifetime = req.max_timeout_seconds.clamp(30, MAX_CHALLENGE_SECONDS);
        let expires = iso8601(now + lifetime);
        let opaque = wire::encode(canonical(&json!({"estudio": offer.slug, "vista": offer.view.as_str()})).as_bytes());
        let mut challenge = Challenge {
            id: String::new(),
            realm: self.realm.clone(),
            method: METHOD.to_owned(),
            intent: INTENT.to_owned(),
            request,
            description: None,
            digest: None,
            expires: Some(expires),
            opaque: Some(opaque),
            header: None,
        };
        challenge.id = self.id_of(&challenge);
        Some(challenge)
    }

    /// The challenge's id under this gate's key ([`wire::challenge_id`]; the key is 32 bytes, so
    /// it never fails, and an empty id would match nothing).
    fn id_of(&self, c: &Challenge) -> String {
        wire::challenge_id(&self.key, c).unwrap_or_default()
    }

    /// Checks a credential (the bytes after `Payment `) for `offer` and turns it into the x402
    /// payment it is. Every refusal is a problem; nothing here panics on what a buyer sends.
    pub fn admit(&self, offer: &Offer, encoded: &[u8]) -> Result<Admitted, Problem> {
        let credential = wire::decode_credential(encoded).map_err(|e| Problem::malformed(e.0))?;
        self.admit_credential(offer, credential)
    }

    /// [`Mpp::admit`] for a credential sent as a JSON object (MCP's
    /// `_meta["org.paymentauth/credential"]`, where mppx sends the challenge's `request` decoded).
    pub fn admit_value(&self, offer: &Offer, value: &Value) -> Result<Admitted, Problem> {
        let credential = wire::credential_from_json(value).map_err(|e| Problem::malformed(e.0))?;
        self.admit_credential(offer, credential)
    }

    fn admit_credential(&self, offer: &Offer, credential: Credential) -> Result<Admitted, Problem> {
        let c = &credential.challenge;
        if c.method != METHOD || c.intent != INTENT {
            return Err(Problem::invalid(format!(
                "este servicio solo ofrece method=\"evm\" intent=\"charge\"; la credencial nombra method={:?} intent={:?}",
                c.method, c.intent
            )));
        }
        if c.realm != self.realm {
            return Err(Problem::invalid(format!(
                "el desafío es del realm {:?}, no de {:?}: pida un 402 nuevo a este servicio",
                c.realm, self.realm
            )));
        }
        // The id binds every field but itself: recompute it over the request as canonical JSON
        // (as mppx does), so a client that re-encoded the request is still recognised.
        let request = decode_request(&c.request)?;
        let recoded = Challenge { request: wire::encode(canonical(&request).as_bytes()), ..c.clone() };
        let expected = self.id_of(&recoded);
        if !constant_time_eq(expected.as_bytes(), c.id.as_bytes()) {
            return Err(Problem::invalid(
                "el id del desafío no corresponde a sus campos (¿se cambió request, expires u opaque?): pida un 402 nuevo",
            ));
        }
        let now = self.clock.now();
        let expires = c.expires.as_deref().and_then(wire::unix_of_rfc3339);
        match expires {
            Some(expires) if expires > now => {}
            _ => {
                return Err(Problem::invalid("el desafío venció: pida un 402 nuevo y firme su desafío"));
            }
        }
        let bound = c
            .opaque
            .as_deref()
            .and_then(|o| wire::decode(o).ok())
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
        let for_this = bound.as_ref().is_some_and(|b| {
            b.get("estudio").and_then(Value::as_str) == Some(offer.slug.as_str())
                && b.get("vista").and_then(Value::as_str) == Some(offer.view.as_str())
        });
        if !for_this {
            return Err(Problem::invalid(format!(
                "el desafío se emitió para otro estudio o vista, no para {} vista={}",
                offer.slug,
                offer.view.as_str()
            )));
        }
        // The request must still be one this offer makes (the price may have changed).
        let index = offer
            .required
            .accepts
            .iter()
            .position(|req| request_of(req).is_some_and(|ours| ours == request))
            .ok_or_else(|| {
            Problem::invalid("el request del desafío ya no se ofrece para este estudio: pida un 402 nuevo")
        })?;
        let (Some(requirement), Some(accepted)) = (offer.required.accepts.get(index), offer.accepts_json.get(index))
        else {
            return Err(Problem::invalid("el request del desafío ya no se ofrece"));
        };
        let auth: AuthorizationPayload = serde_json::from_value(credential.payload.clone())
            .map_err(|e| Problem::malformed(format!("payload no es una autorización EVM (EIP-3009): {e}")))?;
        if auth.kind != "authorization" {
            return Err(Problem::failed(format!("payload.type {:?} no se acepta; use \"authorization\"", auth.kind)));
        }
        if !nonce_bindings(&c.id, &c.realm).iter().any(|binding| auth.nonce.eq_ignore_ascii_case(binding)) {
            return Err(Problem::failed(
                "el nonce de la autorización no es keccak256(challenge.id ‖ challenge.realm) ni keccak256(JSON [id, realm])",
            ));
        }
        let from: Address =
            auth.from.parse().map_err(|_| Problem::malformed("payload.from no es una dirección EVM"))?;
        if let Some(source) = &credential.source {
            let expected = format!("did:pkh:{}:{}", requirement.network, from.to_checksum(None));
            if !source.eq_ignore_ascii_case(&expected) {
                return Err(Problem::failed(format!("source {source:?} no es el pagador {expected:?}")));
            }
        }
        let payload = PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: accepted.clone(),
            payload: json!({
                "signature": auth.signature,
                "authorization": {
                    "from": auth.from,
                    "to": auth.to,
                    "value": auth.value,
                    "validAfter": auth.valid_after,
                    "validBefore": auth.valid_before,
                    "nonce": auth.nonce,
                },
            }),
            extensions: None,
        };
        Ok(Admitted { payload, challenge_id: c.id.clone() })
    }
}

/// The EIP-3009 nonces that bind an authorization to a challenge, as `0x…` hex. The draft at
/// the revision implemented (`draft-evm-charge-00`, f9506cd) and `mppx` 0.11.0 hash the
/// concatenation, `keccak256(abi.encodePacked(id, realm))`; `pympp` 0.16.0 (and newer `mppx`)
/// hash the unambiguous `keccak256(JSON.stringify([id, realm]))`. Both bind the signature to this
/// one challenge (whose id the gate's HMAC ties to its realm, request, expiry and study), so both
/// are accepted.
fn nonce_bindings(id: &str, realm: &str) -> [String; 2] {
    let packed = keccak256(format!("{id}{realm}").as_bytes());
    let json = keccak256(serde_json::to_string(&[id, realm]).unwrap_or_default().as_bytes());
    [format!("{packed:#x}"), format!("{json:#x}")]
}

/// The `evm` charge request of an x402 requirement (`None`: not an EVM `exact` requirement).
pub fn request_of(req: &PaymentRequirements) -> Option<Value> {
    if req.scheme != "exact" {
        return None;
    }
    let chain_id: u64 = req.network.strip_prefix("eip155:")?.parse().ok()?;
    let currency: Address = req.asset.parse().ok()?;
    let recipient: Address = req.pay_to.parse().ok()?;
    Some(json!({
        "amount": req.amount,
        "currency": currency.to_checksum(None),
        "methodDetails": {
            "chainId": chain_id,
            "credentialTypes": ["authorization"],
            "decimals": USDC_DECIMALS,
        },
        "recipient": recipient.to_checksum(None),
    }))
}

/// The challenge as a JSON object with `request` decoded (the MCP binding's form).
pub fn challenge_json(c: &Challenge) -> Value {
    c.to_json()
}

/// `Payment-Receipt`: base64url of `{method, reference, status, timestamp}`.
pub fn receipt(transaction: &str, unix: u64) -> String {
    wire::format_receipt(&Receipt {
        method: METHOD.to_owned(),
        reference: transaction.to_owned(),
        status: "success".to_owned(),
        timestamp: iso8601(unix),
        extra: Map::new(),
    })
}

/// The receipt as a JSON object (the MCP binding's form).
pub fn receipt_json(transaction: &str, unix: u64, challenge_id: &str) -> Value {
    json!({
        "method": METHOD,
        "reference": transaction,
        "status": "success",
        "timestamp": iso8601(unix),
        "challengeId": challenge_id,
    })
}

fn decode_request(encoded: &str) -> Result<Value, Problem> {
    let bytes = wire::decode(encoded).map_err(|_| Problem::invalid("challenge.request no es base64url"))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| Problem::invalid("challenge.request no es JSON"))?;
    if !value.is_object() {
        return Err(Problem::invalid("challenge.request no es un objeto JSON"));
    }
    Ok(value)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_hashes_are_mppx_s_and_pympp_s() {
        // mppx 0.11.0: Hash.keccak256(Bytes.fromString(`${id}${realm}`)); pympp 0.16.0:
        // challenge_hash("abc", "api.example.com") = keccak256('["abc","api.example.com"]').
        let [packed, json] = nonce_bindings("abc", "api.example.com");
        assert_eq!(packed, "0xe1adfd8f031bdf83646eee741bda35015ff27366153d3ec246a28e6d3960b516");
        assert_eq!(json, "0x5fc7620ab10ee4cbef955fe0902682f5688d24749a3a0322452c6728cd3d1425");
    }
}
