//! MPP credentials built exactly as `mppx` (`src/evm/client/Charge.ts`, `src/Credential.ts`)
//! builds its `evm` `charge` `authorization` credential: the challenge echoed, an EIP-3009
//! authorization whose nonce is `keccak256(id ‖ realm)`, `validAfter = 0`,
//! `validBefore = expires`, `source` a `did:pkh`. Over HTTP the challenge's `request` travels
//! as base64url; over MCP as the JSON object.

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gate::x402::PaymentRequirements;
use gate::x402::evm::{Authorization, domain_for, sign_authorization};
use serde_json::{Map, Value, json};

/// The first `Payment` challenge of a `WWW-Authenticate` value, as the JSON object a credential
/// echoes (`request` as its base64url), parsed by the gate's wire code that
/// `tests/tests/mpp_conformance.rs` holds to the conformance vectors.
pub fn parse_challenge(header: &str) -> Map<String, Value> {
    let challenge = gate::payment::mpp::wire::parse_challenge(header).expect("a Payment challenge");
    match serde_json::to_value(challenge) {
        Ok(Value::Object(map)) => map,
        other => panic!("{other:?}"),
    }
}

pub fn str_of<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("{key} in {map:?}"))
}

pub fn b64_json(encoded: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(encoded).expect("base64url")).expect("json")
}

pub fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// Unix seconds of an RFC 3339 `…Z` date, as `new Date(expires).getTime() / 1000`.
pub fn unix_of(date: &str) -> u64 {
    let n = |a: usize, b: usize| date[a..b].parse::<i64>().expect("digits");
    let (year, month, day) = (n(0, 4), n(5, 7), n(8, 10));
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    (days * 86_400 + n(11, 13) * 3600 + n(14, 16) * 60 + n(17, 19)) as u64
}

/// The credential JSON mppx's `evm` client signs for `challenge` (whose `request` is the JSON
/// object or its base64url, echoed as given).
pub fn credential_value(challenge: &Map<String, Value>, accepted: &Value, buyer: &PrivateKeySigner) -> Value {
    credential_value_of(challenge, accepted, buyer.address(), |domain, auth| {
        sign_authorization(buyer, domain, auth).expect("sign").to_vec()
    })
}

/// [`credential_value`] of a payer `from` whose signature `sign` makes from the token's
/// EIP-712 domain and the authorization (a smart wallet's, for one).
pub fn credential_value_of(
    challenge: &Map<String, Value>,
    accepted: &Value,
    from: Address,
    sign: impl FnOnce(&gate::x402::evm::Domain, &Authorization) -> Vec<u8>,
) -> Value {
    let request = match &challenge["request"] {
        Value::String(encoded) => b64_json(encoded),
        object => object.clone(),
    };
    let (id, realm) = (str_of(challenge, "id"), str_of(challenge, "realm"));
    let nonce = keccak256(format!("{id}{realm}").as_bytes());
    let chain_id = request["methodDetails"]["chainId"].as_u64().expect("chainId");
    let to: Address = request["recipient"].as_str().expect("recipient").parse().expect("recipient");
    let value = U256::from_str_radix(request["amount"].as_str().expect("amount"), 10).expect("amount");
    let valid_before = unix_of(str_of(challenge, "expires"));
    let auth = Authorization { from, to, value, valid_after: 0, valid_before, nonce };
    // mppx takes the token's EIP-712 name and version from its known assets: the same as the
    // x402 offer's `extra`.
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).expect("requirements");
    let domain = domain_for(&requirements).expect("domain");
    assert_eq!(domain.chain_id, chain_id);
    let signature = sign(&domain, &auth);
    json!({
        "challenge": challenge,
        "payload": {
            "from": from.to_checksum(None),
            "nonce": format!("{nonce:#x}"),
            "signature": format!("0x{}", alloy_primitives::hex::encode(&signature)),
            "to": to.to_checksum(None),
            "type": "authorization",
            "validAfter": "0",
            "validBefore": valid_before.to_string(),
            "value": value.to_string(),
        },
        "source": format!("did:pkh:eip155:{chain_id}:{}", from.to_checksum(None)),
    })
}

/// The `Authorization: Payment` value of [`credential_value`].
pub fn credential(challenge: &Map<String, Value>, accepted: &Value, buyer: &PrivateKeySigner) -> String {
    format!("Payment {}", b64(&credential_value(challenge, accepted, buyer)))
}
