//! The `exact` scheme on EVM networks: EIP-3009 `TransferWithAuthorization` signed under the
//! USDC contract's EIP-712 domain (the x402 `exact` scheme on EVM, `specs/schemes/exact/scheme_exact_evm.md`).
//!
//! The gate checks a payment here before producing anything, the local facilitator settles
//! with the same check, and the buyer client signs with the same digest, so all three agree by
//! construction; the shared vectors pin the digest and the signature bytes. A smart wallet's
//! signature (ERC-1271, or ERC-6492 for a wallet not yet deployed, taken apart here) cannot be
//! judged without the chain: [`check_exact`] says so ([`CheckError::NeedsChain`]) and
//! `chain::signature` asks the network.

use std::borrow::Cow;

use alloy_primitives::{Address, B256, Bytes, Signature, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::{Eip712Domain, SolStruct, SolValue, sol};
use serde_json::{Value, json};

use contract::x402::PaymentRequirements;

sol! {
    /// USDC's EIP-3009 authorization, as the contract hashes it.
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
}

/// Seconds a `validBefore` must leave for the settlement to reach a block (x402 reference: 6).
pub const SETTLE_BUFFER_SECONDS: u64 = 6;
/// Slack beyond `maxTimeoutSeconds` allowed in `validBefore`, for clock differences.
pub const CLOCK_SLACK_SECONDS: u64 = 60;

/// A signed authorization's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub from: Address,
    pub to: Address,
    pub value: U256,
    pub valid_after: u64,
    pub valid_before: u64,
    pub nonce: B256,
}

/// The `payload` of an exact EVM payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactEvmPayload {
    /// An EOA's 65 bytes `r ‖ s ‖ v`, or a smart wallet's signature of any length: the bytes its
    /// contract's ERC-1271 `isValidSignature` takes, possibly wrapped by ERC-6492 for a wallet not
    /// yet deployed.
    pub signature: Bytes,
    pub authorization: Authorization,
}

/// The EIP-712 domain of a USDC contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub name: String,
    pub version: String,
    pub chain_id: u64,
    pub verifying_contract: Address,
}

/// The 32 bytes an ERC-6492 signature ends with (`0x6492` sixteen times).
pub const ERC6492_MAGIC: [u8; 32] = [
    0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64,
    0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92, 0x64, 0x92,
];

/// The longest signature read (a Safe with a hundred owners signs in 6.5 KB; a passkey wallet's
/// WebAuthn signature is under 1 KB).
pub const MAX_SIGNATURE_BYTES: usize = 16 * 1024;

/// An ERC-6492 signature taken apart: the call that deploys the wallet (or prepares it) and the
/// ERC-1271 signature it makes valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Erc6492 {
    pub factory: Address,
    pub factory_calldata: Bytes,
    /// What the deployed wallet's `isValidSignature` (and so USDC) takes.
    pub inner: Bytes,
}

/// Reads an ERC-6492 signature: `None` when it does not end with the magic (it is not one),
/// an error when it does but the rest is not `abi.encode(address, bytes, bytes)`.
pub fn parse_erc6492(signature: &[u8]) -> Option<Result<Erc6492, EvmError>> {
    // ERC-6492's wrapper: `abi.encode(factory, factoryCalldata, innerSignature)`, then the magic.
    let body = signature.strip_suffix(&ERC6492_MAGIC)?;
    Some(
        <(Address, Bytes, Bytes) as SolValue>::abi_decode_params_validate(body)
            .map(|(factory, factory_calldata, inner)| Erc6492 { factory, factory_calldata, inner })
            .map_err(|e| {
                err(format!(
                    "payload.signature termina como ERC-6492 pero no es abi.encode(address, bytes, bytes): {e}"
                ))
            }),
    )
}

/// Wraps `inner` for a wallet that `factory_calldata` sent to `factory` deploys (ERC-6492).
pub fn wrap_erc6492(factory: Address, factory_calldata: &[u8], inner: &[u8]) -> Bytes {
    let wrapper = (factory, Bytes::copy_from_slice(factory_calldata), Bytes::copy_from_slice(inner));
    let mut out = wrapper.abi_encode_params();
    out.extend_from_slice(&ERC6492_MAGIC);
    Bytes::from(out)
}

/// A signature only the chain can judge, because `from` is (or is to be) a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractSignature {
    /// CAIP-2 network whose chain must judge it.
    pub network: String,
    /// The wallet: the authorization's `from`.
    pub signer: Address,
    /// The EIP-712 digest of the authorization under the token's domain: what the wallet's
    /// `isValidSignature(hash, signature)` is asked about, as USDC asks it.
    pub digest: B256,
    /// The signature as sent (ERC-6492 wrapper included).
    pub signature: Bytes,
    /// Its ERC-6492 parts, when wrapped.
    pub erc6492: Option<Erc6492>,
}

impl ContractSignature {
    /// The bytes USDC's `transferWithAuthorization(…, bytes signature)` must get: the inner
    /// signature of an ERC-6492 wrapper (USDC knows ERC-1271, not ERC-6492), else the signature.
    pub fn for_token(&self) -> &Bytes {
        self.erc6492.as_ref().map_or(&self.signature, |w| &w.inner)
    }

    /// "ERC-6492" or "ERC-1271", for messages.
    pub fn standard(&self) -> &'static str {
        if self.erc6492.is_some() { "ERC-6492" } else { "ERC-1271" }
    }
}

/// A payload or requirement that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmError(pub String);

impl EvmError {
    pub fn code(&self) -> &'static str {
        "invalid_payload"
    }
}

impl std::fmt::Display for EvmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvmError {}

fn err(message: impl Into<String>) -> EvmError {
    EvmError(message.into())
}

/// Why a well-formed payment does not satisfy a requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    Scheme(String),
    Network(String),
    Payload(EvmError),
    Signature {
        recovered: Option<Address>,
        from: Address,
    },
    /// A signature the chain refuses although it recovers: `v` other than 27/28, or a high `s`.
    NonCanonical(&'static str),
    Recipient {
        to: Address,
        pay_to: String,
    },
    Value {
        signed: U256,
        required: String,
    },
    ValidAfter {
        valid_after: u64,
        now: u64,
    },
    Expired {
        valid_before: u64,
        now: u64,
    },
    TooFar {
        valid_before: u64,
        limit: u64,
    },
    /// A smart wallet's signature (ERC-1271, ERC-6492), which only the network's RPC can
    /// check, and none is configured for it.
    NeedsChain(Box<ContractSignature>),
    /// The wallet's contract (or its deployment) does not accept the signature.
    ContractRefused {
        signer: Address,
        standard: &'static str,
        why: String,
    },
    /// The RPC that checks a smart wallet's signature did not answer: nothing was decided.
    ChainUnavailable(String),
}

impl CheckError {
    /// The x402 error code.
    pub fn code(&self) -> &'static str {
        match self {
            CheckError::Scheme(_) => "invalid_scheme",
            CheckError::Network(_) => "invalid_network",
            CheckError::Payload(_) => "invalid_payload",
            CheckError::Signature { .. } | CheckError::NonCanonical(_) => "invalid_exact_evm_payload_signature",
            CheckError::Recipient { .. } => "invalid_exact_evm_payload_recipient_mismatch",
            CheckError::Value { .. } => "invalid_exact_evm_payload_authorization_value_mismatch",
            CheckError::ValidAfter { .. } => "invalid_exact_evm_payload_authorization_valid_after",
            CheckError::Expired { .. } | CheckError::TooFar { .. } => {
                "invalid_exact_evm_payload_authorization_valid_before"
            }
            CheckError::NeedsChain(_) => "firma_de_contrato_sin_rpc",
            CheckError::ContractRefused { .. } => "invalid_exact_evm_payload_signature",
            CheckError::ChainUnavailable(_) => "cadena_no_disponible",
        }
    }

    /// The HTTP status of the refusal: 503 when the chain could not be asked (nothing is the
    /// buyer's fault and the same payment may be sent again), else 402.
    pub fn status(&self) -> u16 {
        match self {
            CheckError::ChainUnavailable(_) => 503,
            _ => 402,
        }
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Scheme(s) => write!(f, "el esquema {s:?} no se acepta; use \"exact\""),
            CheckError::Network(n) => write!(f, "la red {n:?} no es una red EVM (eip155:N)"),
            CheckError::Payload(e) => write!(f, "{e}"),
            CheckError::Signature { recovered: Some(r), from } => write!(
                f,
                "la firma corresponde a {r}, no a {from}: firme con la clave de `from` y con el dominio EIP-712 de la red elegida (name, version, chainId y contrato de extra/asset)"
            ),
            CheckError::Signature { recovered: None, .. } => f.write_str("la firma no es una firma secp256k1 válida"),
            CheckError::NonCanonical(why) => write!(
                f,
                "la firma no es canónica ({why}); USDC la rechaza en la cadena: firme de nuevo con un cliente x402 oficial"
            ),
            CheckError::Recipient { to, pay_to } => write!(f, "la autorización paga a {to} y debe pagar a {pay_to}"),
            CheckError::Value { signed, required } => {
                write!(f, "el monto firmado es {signed} y debe ser exactamente {required}")
            }
            CheckError::ValidAfter { valid_after, now } => {
                write!(f, "la autorización vale recién desde {valid_after} (ahora es {now})")
            }
            CheckError::Expired { valid_before, now } => write!(
                f,
                "la autorización vence en {valid_before}, sin los {SETTLE_BUFFER_SECONDS} s que hacen falta para liquidar (ahora es {now}); firme una nueva"
            ),
            CheckError::TooFar { valid_before, limit } => write!(
                f,
                "validBefore {valid_before} está demasiado lejos; el máximo es {limit} (ahora + maxTimeoutSeconds)"
            ),
            CheckError::NeedsChain(signature) => write!(
                f,
                "la firma es de una billetera inteligente ({}, {} bytes) y solo la red puede verificarla con isValidSignature; este servidor no tiene un RPC de {} para consultarla, así que no la acepta y no se movió nada. Pague con una cuenta de clave privada (firma de 65 bytes) o pida al vendedor que configure GATE_RPC_EIP155_<id>",
                signature.standard(),
                signature.signature.len(),
                signature.network
            ),
            CheckError::ContractRefused { signer, standard, why } => write!(
                f,
                "la billetera inteligente {signer} no acepta la firma ({standard}: {why}); firme de nuevo la autorización con la billetera de `from`, bajo el dominio EIP-712 de la red elegida"
            ),
            CheckError::ChainUnavailable(why) => write!(
                f,
                "no se pudo consultar la red para verificar la firma de la billetera inteligente ({why}); no se cobró nada: repita el pedido en unos minutos"
            ),
        }
    }
}

impl std::error::Error for CheckError {}

fn address(value: &Value, field: &str) -> Result<Address, EvmError> {
    let text = value.as_str().ok_or_else(|| err(format!("authorization.{field} debe ser una dirección en texto")))?;
    let hex = text.strip_prefix("0x").filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    hex.ok_or_else(|| err(format!("authorization.{field} debe ser 0x y 40 dígitos hexadecimales")))?;
    text.parse().map_err(|_| err(format!("authorization.{field} no es una dirección válida")))
}

fn decimal(value: &Value, field: &str) -> Result<U256, EvmError> {
    let text =
        value.as_str().ok_or_else(|| err(format!("authorization.{field} debe ser un entero decimal en texto")))?;
    if text.is_empty() || text.len() > 78 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!("authorization.{field} debe ser un entero decimal sin signo")));
    }
    U256::from_str_radix(text, 10).map_err(|_| err(format!("authorization.{field} está fuera de rango")))
}

fn seconds(value: &Value, field: &str) -> Result<u64, EvmError> {
    u64::try_from(decimal(value, field)?).map_err(|_| err(format!("authorization.{field} está fuera de rango")))
}

fn fixed_hex(value: &Value, field: &str, bytes: usize) -> Result<Vec<u8>, EvmError> {
    let text = value.as_str().ok_or_else(|| err(format!("{field} debe ser hexadecimal en texto")))?;
    let hex = text
        .strip_prefix("0x")
        .filter(|h| h.len() == bytes * 2)
        .ok_or_else(|| err(format!("{field} debe ser 0x y {} dígitos hexadecimales", bytes * 2)))?;
    hex::decode(hex).map_err(|_| err(format!("{field} no es hexadecimal")))
}

/// A signature's bytes: `0x` and an even number of hex digits, at least 65 bytes (an EOA's
/// `r ‖ s ‖ v`; a smart wallet's may be longer) and at most [`MAX_SIGNATURE_BYTES`].
fn signature_bytes(value: &Value) -> Result<Vec<u8>, EvmError> {
    let text = value.as_str().ok_or_else(|| err("payload.signature debe ser hexadecimal en texto"))?;
    let hex = text.strip_prefix("0x").ok_or_else(|| err("payload.signature debe empezar con 0x"))?;
    if hex.len() % 2 != 0 || hex.len() < 130 || hex.len() > MAX_SIGNATURE_BYTES * 2 {
        return Err(err(format!(
            "payload.signature debe tener 65 bytes (cuenta de clave privada) o más (billetera inteligente, ERC-1271/6492), hasta {MAX_SIGNATURE_BYTES}; tiene {} dígitos hexadecimales",
            hex.len()
        )));
    }
    hex::decode(hex).map_err(|_| err("payload.signature no es hexadecimal"))
}

/// Reads an exact EVM `payload` strictly.
pub fn parse_exact_payload(payload: &Value) -> Result<ExactEvmPayload, EvmError> {
    let auth = payload
        .get("authorization")
        .filter(|a| a.is_object())
        .ok_or_else(|| err("payload.authorization falta (se espera una autorización EIP-3009)"))?;
    let signature = signature_bytes(payload.get("signature").ok_or_else(|| err("payload.signature falta"))?)?;
    let field = |name: &str| auth.get(name).cloned().unwrap_or(Value::Null);
    let nonce = fixed_hex(&field("nonce"), "authorization.nonce", 32)?;
    Ok(ExactEvmPayload {
        signature: Bytes::from(signature),
        authorization: Authorization {
            from: address(&field("from"), "from")?,
            to: address(&field("to"), "to")?,
            value: decimal(&field("value"), "value")?,
            valid_after: seconds(&field("validAfter"), "validAfter")?,
            valid_before: seconds(&field("validBefore"), "validBefore")?,
            nonce: B256::from_slice(&nonce),
        },
    })
}

/// The EIP-712 domain a requirement implies: chain from the CAIP-2 id, name and version from
/// `extra`, the asset as verifying contract.
pub fn domain_for(req: &PaymentRequirements) -> Result<Domain, EvmError> {
    let chain_id = req
        .network
        .strip_prefix("eip155:")
        .and_then(|c| c.parse::<u64>().ok())
        .ok_or_else(|| err(format!("la red {:?} no es eip155:N", req.network)))?;
    let name = req.extra_str("name").ok_or_else(|| err("extra.name falta (nombre del dominio EIP-712)"))?;
    let version = req.extra_str("version").ok_or_else(|| err("extra.version falta (versión del dominio EIP-712)"))?;
    let verifying_contract =
        req.asset.parse().map_err(|_| err(format!("asset {:?} no es una dirección", req.asset)))?;
    Ok(Domain { name: name.to_owned(), version: version.to_owned(), chain_id, verifying_contract })
}

fn eip712_domain(domain: &Domain) -> Eip712Domain {
    Eip712Domain::new(
        Some(Cow::Owned(domain.name.clone())),
        Some(Cow::Owned(domain.version.clone())),
        Some(U256::from(domain.chain_id)),
        Some(domain.verifying_contract),
        None,
    )
}

fn message(auth: &Authorization) -> TransferWithAuthorization {
    TransferWithAuthorization {
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: auth.nonce,
    }
}

/// The struct hash of an authorization.
pub fn struct_hash(auth: &Authorization) -> B256 {
    message(auth).eip712_hash_struct()
}

/// The digest a wallet signs: `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`.
pub fn signing_hash(domain: &Domain, auth: &Authorization) -> B256 {
    message(auth).eip712_signing_hash(&eip712_domain(domain))
}

/// The address that signed an authorization under a domain.
pub fn recover_signer(domain: &Domain, auth: &Authorization, signature: &[u8]) -> Result<Address, EvmError> {
    let signature = Signature::from_raw(signature).map_err(|e| err(format!("firma ilegible: {e}")))?;
    signature
        .recover_address_from_prehash(&signing_hash(domain, auth))
        .map_err(|e| err(format!("no se pudo recuperar la dirección de la firma: {e}")))
}

/// Signs an authorization (65 bytes, v = 27/28), as a wallet would.
pub fn sign_authorization(signer: &PrivateKeySigner, domain: &Domain, auth: &Authorization) -> Result<Bytes, EvmError> {
    let signature =
        signer.sign_hash_sync(&signing_hash(domain, auth)).map_err(|e| err(format!("no se pudo firmar: {e}")))?;
    Ok(Bytes::from(signature.as_bytes().to_vec()))
}

/// The authorization an official client builds for a requirement.
pub fn client_authorization(
    req: &PaymentRequirements,
    from: Address,
    now: u64,
    nonce: B256,
) -> Result<Authorization, EvmError> {
    Ok(Authorization {
        from,
        to: req.pay_to.parse().map_err(|_| err(format!("payTo {:?} no es una dirección", req.pay_to)))?,
        value: U256::from_str_radix(&req.amount, 10)
            .map_err(|_| err(format!("amount {:?} no es un entero", req.amount)))?,
        valid_after: now.saturating_sub(600),
        valid_before: now + req.max_timeout_seconds,
        nonce,
    })
}

/// 32 random bytes for an authorization nonce.
pub fn random_nonce() -> B256 {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    B256::from(bytes)
}

/// The spec's JSON `payload` for an authorization and its signature.
pub fn exact_payload_json(auth: &Authorization, signature: &[u8]) -> Value {
    json!({
        "signature": format!("0x{}", hex::encode(signature)),
        "authorization": {
            "from": auth.from.to_checksum(None),
            "to": auth.to.to_checksum(None),
            "value": auth.value.to_string(),
            "validAfter": auth.valid_after.to_string(),
            "validBefore": auth.valid_before.to_string(),
            "nonce": format!("{:#x}", auth.nonce),
        }
    })
}

/// Half the order of secp256k1: a canonical `s` is at most this (EIP-2).
const HALF_ORDER: U256 = U256::from_be_slice(&[
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5d, 0x57, 0x6e,
    0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/// Refuses what USDC's `ecrecover` path refuses although it recovers an address: `v` other
/// than 27 or 28, and an `s` in the upper half of the curve order (a malleated copy of a
/// valid signature). Local checks must predict the chain, so these never settle.
pub fn check_canonical(signature: &[u8]) -> Result<(), CheckError> {
    let [.., v] = signature else { return Err(CheckError::NonCanonical("vacía")) };
    if !matches!(v, 27 | 28) {
        return Err(CheckError::NonCanonical("v debe ser 27 o 28"));
    }
    let s = signature.get(32..64).map(U256::from_be_slice).ok_or(CheckError::NonCanonical("largo"))?;
    if s > HALF_ORDER {
        return Err(CheckError::NonCanonical("s en la mitad alta del orden de la curva"));
    }
    Ok(())
}

/// The local verification of an exact EVM payment against our requirement; returns the payer.
pub fn check_exact(req: &PaymentRequirements, payload: &ExactEvmPayload, now: u64) -> Result<Address, CheckError> {
    if req.scheme != "exact" {
        return Err(CheckError::Scheme(req.scheme.clone()));
    }
    if !req.network.starts_with("eip155:") {
        return Err(CheckError::Network(req.network.clone()));
    }
    let domain = domain_for(req).map_err(CheckError::Payload)?;
    let auth = &payload.authorization;
    let pay_to: Address = req.pay_to.parse().map_err(|_| CheckError::Payload(err("payTo inválido")))?;
    if auth.to != pay_to {
        return Err(CheckError::Recipient { to: auth.to, pay_to: req.pay_to.clone() });
    }
    let required = U256::from_str_radix(&req.amount, 10).map_err(|_| CheckError::Payload(err("amount inválido")))?;
    if auth.value != required {
        return Err(CheckError::Value { signed: auth.value, required: req.amount.clone() });
    }
    if auth.valid_after > now {
        return Err(CheckError::ValidAfter { valid_after: auth.valid_after, now });
    }
    if auth.valid_before < now + SETTLE_BUFFER_SECONDS {
        return Err(CheckError::Expired { valid_before: auth.valid_before, now });
    }
    let limit = now + req.max_timeout_seconds + CLOCK_SLACK_SECONDS;
    if auth.valid_before > limit {
        return Err(CheckError::TooFar { valid_before: auth.valid_before, limit });
    }
    check_signature(&req.network, &domain, payload)
}

/// The signature part of [`check_exact`], once the terms hold. An EOA's 65 bytes that recover
/// to `from` pass here, with no chain. A signature that is ERC-6492 (its magic suffix) or longer
/// than 65 bytes is a smart wallet's: [`CheckError::NeedsChain`] carries what the chain must be
/// asked. 65 bytes that do not recover to `from` are refused as a bad signature; with an RPC,
/// `chain::signature::check_exact_on` still asks the chain whether `from` is a contract that
/// takes them (a one-owner Safe signs with its owner's 65 bytes).
pub fn check_signature(network: &str, domain: &Domain, payload: &ExactEvmPayload) -> Result<Address, CheckError> {
    let auth = &payload.authorization;
    let contract = |erc6492: Option<Erc6492>| {
        CheckError::NeedsChain(Box::new(ContractSignature {
            network: network.to_owned(),
            signer: auth.from,
            digest: signing_hash(domain, auth),
            signature: payload.signature.clone(),
            erc6492,
        }))
    };
    if let Some(wrapped) = parse_erc6492(&payload.signature) {
        return Err(contract(Some(wrapped.map_err(CheckError::Payload)?)));
    }
    if payload.signature.len() != 65 {
        return Err(contract(None));
    }
    check_canonical(&payload.signature)?;
    let recovered = recover_signer(domain, auth, &payload.signature).ok();
    if recovered != Some(auth.from) {
        return Err(CheckError::Signature { recovered, from: auth.from });
    }
    Ok(auth.from)
}

/// The same signature as a contract's, for a 65-byte signature that failed as an EOA's: what the
/// chain is asked when `from` may be a smart wallet whose owner's signature is 65 bytes.
pub fn as_contract_signature(network: &str, domain: &Domain, payload: &ExactEvmPayload) -> ContractSignature {
    ContractSignature {
        network: network.to_owned(),
        signer: payload.authorization.from,
        digest: signing_hash(domain, &payload.authorization),
        signature: payload.signature.clone(),
        erc6492: None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const VECTORS: &str = include_str!("vectors/eip3009.json");

    fn vectors() -> Value {
        serde_json::from_str(VECTORS).unwrap()
    }

    fn domain_of(v: &Value, case: &Value) -> Domain {
        let d = &v["domains"][case["domain"].as_str().unwrap()];
        let mut domain = Domain {
            name: d["name"].as_str().unwrap().into(),
            version: d["version"].as_str().unwrap().into(),
            chain_id: d["chainId"].as_u64().unwrap(),
            verifying_contract: d["verifyingContract"].as_str().unwrap().parse().unwrap(),
        };
        if let Some(o) = case.get("domain_override") {
            if let Some(n) = o.get("name") {
                domain.name = n.as_str().unwrap().into();
            }
            if let Some(c) = o.get("chainId") {
                domain.chain_id = c.as_u64().unwrap();
            }
        }
        domain
    }

    fn message_of<'a>(v: &'a Value, case: &'a Value) -> &'a Value {
        match case.get("message_of") {
            Some(id) => {
                let other = v["cases"].as_array().unwrap().iter().find(|c| c["id"] == *id).unwrap();
                &other["message"]
            }
            None => &case["message"],
        }
    }

    fn signature_of<'a>(v: &'a Value, case: &'a Value) -> &'a str {
        match case.get("signature") {
            Some(s) => s.as_str().unwrap(),
            None => {
                let id = &case["message_of"];
                v["cases"].as_array().unwrap().iter().find(|c| c["id"] == *id).unwrap()["signature"].as_str().unwrap()
            }
        }
    }

    #[test]
    fn shared_vectors_hash_recover_and_sign() {
        let v = vectors();
        for case in v["cases"].as_array().unwrap() {
            let id = case["id"].as_str().unwrap();
            let domain = domain_of(&v, case);
            let payload = json!({"signature": signature_of(&v, case), "authorization": message_of(&v, case)});
            let parsed = parse_exact_payload(&payload).unwrap();
            if let Some(h) = case.get("structHash") {
                assert_eq!(format!("{:#x}", struct_hash(&parsed.authorization)), h.as_str().unwrap(), "{id}");
            }
            if let Some(h) = case.get("digest") {
                assert_eq!(format!("{:#x}", signing_hash(&domain, &parsed.authorization)), h.as_str().unwrap(), "{id}");
            }
            let recovered = recover_signer(&domain, &parsed.authorization, &parsed.signature).unwrap();
            let expected: Address = case["recovers"].as_str().unwrap().parse().unwrap();
            assert_eq!(recovered, expected, "{id}");
            assert_eq!(recovered == parsed.authorization.from, case["valid"].as_bool().unwrap(), "{id}");
            let canonical = case.get("canonical").and_then(Value::as_bool).unwrap_or(true);
            assert_eq!(check_canonical(&parsed.signature).is_ok(), canonical, "{id}: canonical");
            if let Some(key) = case.get("private_key") {
                let signer: PrivateKeySigner = key.as_str().unwrap().parse().unwrap();
                let signature = sign_authorization(&signer, &domain, &parsed.authorization).unwrap();
                assert_eq!(format!("0x{}", hex::encode(&signature)), signature_of(&v, case), "{id}: RFC 6979 bytes");
            }
        }
    }

    /// Base Sepolia's USDC requirement at our price, paying `pay_to` (any letter case).
    pub(crate) fn requirement_paying(pay_to: &str) -> PaymentRequirements {
        serde_json::from_value(json!({
            "scheme": "exact", "network": "eip155:84532", "amount": "990000",
            "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
            "payTo": pay_to, "maxTimeoutSeconds": 300,
            "extra": {"name": "USDC", "version": "2"}
        }))
        .unwrap()
    }

    fn requirement() -> PaymentRequirements {
        requirement_paying("0x70997970c51812dc3a010c7d01b50e0d17dc79c8")
    }

    fn signed(
        tweak: impl FnOnce(&mut Authorization, &mut Domain),
        key: &PrivateKeySigner,
        now: u64,
    ) -> ExactEvmPayload {
        let req = requirement();
        let mut domain = domain_for(&req).unwrap();
        let mut auth = client_authorization(&req, key.address(), now, B256::repeat_byte(7)).unwrap();
        tweak(&mut auth, &mut domain);
        let sig = sign_authorization(key, &domain, &auth).unwrap();
        parse_exact_payload(&exact_payload_json(&auth, &sig)).unwrap()
    }

    #[test]
    fn check_exact_accepts_what_an_official_client_signs() {
        let key = PrivateKeySigner::random();
        let now = 1_800_000_000;
        let p = signed(|_, _| {}, &key, now);
        assert_eq!(check_exact(&requirement(), &p, now), Ok(key.address()));
        // validAfter "0", as the TypeScript client sends it.
        let p = signed(|a, _| a.valid_after = 0, &key, now);
        assert!(check_exact(&requirement(), &p, now).is_ok());
    }

    #[test]
    fn check_exact_refuses_each_violation_with_its_code() {
        let key = PrivateKeySigner::random();
        let other = PrivateKeySigner::random();
        let now = 1_800_000_000;
        let req = requirement();
        let code = |p: ExactEvmPayload| check_exact(&req, &p, now).unwrap_err().code();
        assert_eq!(
            code(signed(|a, _| a.value = U256::from(989_999), &key, now)),
            "invalid_exact_evm_payload_authorization_value_mismatch"
        );
        assert_eq!(
            code(signed(|a, _| a.value = U256::from(990_001), &key, now)),
            "invalid_exact_evm_payload_authorization_value_mismatch"
        );
        assert_eq!(
            code(signed(|a, _| a.valid_before = now + 5, &key, now)),
            "invalid_exact_evm_payload_authorization_valid_before"
        );
        assert_eq!(
            code(signed(|a, _| a.valid_before = now - 1, &key, now)),
            "invalid_exact_evm_payload_authorization_valid_before"
        );
        assert_eq!(
            code(signed(|a, _| a.valid_before = now + 3600, &key, now)),
            "invalid_exact_evm_payload_authorization_valid_before"
        );
        assert_eq!(
            code(signed(|a, _| a.valid_after = now + 1, &key, now)),
            "invalid_exact_evm_payload_authorization_valid_after"
        );
        assert_eq!(
            code(signed(|a, _| a.to = Address::repeat_byte(1), &key, now)),
            "invalid_exact_evm_payload_recipient_mismatch"
        );
        assert_eq!(code(signed(|a, _| a.from = other.address(), &key, now)), "invalid_exact_evm_payload_signature");
        assert_eq!(code(signed(|_, d| d.chain_id = 8453, &key, now)), "invalid_exact_evm_payload_signature");
        assert_eq!(code(signed(|_, d| d.name = "USD Coin".into(), &key, now)), "invalid_exact_evm_payload_signature");
        let msg =
            check_exact(&req, &signed(|a, _| a.value = U256::from(989_999), &key, now), now).unwrap_err().to_string();
        assert!(msg.contains("989999") && msg.contains("990000"), "{msg}");
    }

    /// The malleated twin of a signature (s → n − s, v flipped): recovers the same signer.
    pub(crate) fn malleate(signature: &[u8]) -> Vec<u8> {
        let order =
            U256::from_str_radix("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141", 16).unwrap();
        let s = U256::from_be_slice(&signature[32..64]);
        let mut out = signature.to_vec();
        out[32..64].copy_from_slice(&(order - s).to_be_bytes::<32>());
        out[64] = if signature[64] == 27 { 28 } else { 27 };
        out
    }

    #[test]
    fn signatures_the_chain_refuses_are_refused_though_they_recover() {
        let now = 1_800_000_000;
        let req = requirement();
        for _ in 0..16 {
            let key = PrivateKeySigner::random();
            let good = signed(|_, _| {}, &key, now);
            assert_eq!(check_exact(&req, &good, now), Ok(key.address()));
            let mut twin = good.clone();
            twin.signature = Bytes::from(malleate(&good.signature));
            let domain = domain_for(&req).unwrap();
            assert_eq!(recover_signer(&domain, &twin.authorization, &twin.signature), Ok(key.address()));
            let refused = check_exact(&req, &twin, now).unwrap_err();
            assert_eq!(refused, CheckError::NonCanonical("s en la mitad alta del orden de la curva"));
            assert_eq!(refused.code(), "invalid_exact_evm_payload_signature");
            let mut v01 = good.signature.to_vec();
            v01[64] -= 27;
            let zero_one = ExactEvmPayload { signature: Bytes::from(v01), ..good.clone() };
            assert_eq!(recover_signer(&domain, &zero_one.authorization, &zero_one.signature), Ok(key.address()));
            assert_eq!(check_exact(&req, &zero_one, now), Err(CheckError::NonCanonical("v debe ser 27 o 28")));
        }
    }

    #[test]
    fn parsing_is_strict() {
        let key = PrivateKeySigner::random();
        let good = exact_payload_json(
            &client_authorization(&requirement(), key.address(), 1_800_000_000, B256::ZERO).unwrap(),
            &[27u8; 65],
        );
        assert!(parse_exact_payload(&good).is_ok());
        for (path, bad) in [
            ("/signature", json!("0x1234")),
            ("/signature", json!(format!("0x{}", "ab".repeat(64)))),
            ("/signature", json!(format!("0x{}", "a".repeat(131)))),
            ("/signature", json!(format!("{}", "ab".repeat(65)))),
            ("/signature", json!(format!("0x{}", "ab".repeat(MAX_SIGNATURE_BYTES + 1)))),
            ("/signature", json!(format!("0x{}", "zz".repeat(65)))),
            ("/authorization/value", json!("-1")),
            ("/authorization/value", json!(990000)),
            ("/authorization/validBefore", json!("1e9")),
            ("/authorization/validBefore", json!("99999999999999999999999")),
            ("/authorization/nonce", json!("0x12")),
            ("/authorization/from", json!("0xnothex")),
        ] {
            let mut v = good.clone();
            *v.pointer_mut(path).unwrap() = bad.clone();
            assert!(parse_exact_payload(&v).is_err(), "{path} = {bad}");
        }
        assert!(parse_exact_payload(&json!({"signature": "0x"})).is_err());
        let mut long = good.clone();
        long["signature"] = json!(format!("0x{}", "ab".repeat(MAX_SIGNATURE_BYTES)));
        assert_eq!(parse_exact_payload(&long).unwrap().signature.len(), MAX_SIGNATURE_BYTES, "a smart wallet's");
    }

    /// A payment whose signature is `signature`, its terms right.
    fn with_signature(signature: Vec<u8>, from: Address, now: u64) -> ExactEvmPayload {
        let auth = client_authorization(&requirement(), from, now, B256::repeat_byte(9)).unwrap();
        ExactEvmPayload { signature: Bytes::from(signature), authorization: auth }
    }

    #[test]
    fn a_smart_wallets_signature_needs_the_chain_once_the_terms_hold() {
        let now = 1_800_000_000;
        let req = requirement();
        let wallet = Address::repeat_byte(0x5a);
        let digest = signing_hash(&domain_for(&req).unwrap(), &with_signature(vec![], wallet, now).authorization);
        // ERC-1271: longer than 65 bytes.
        let refused = check_exact(&req, &with_signature(vec![7; 130], wallet, now), now).unwrap_err();
        let CheckError::NeedsChain(contract) = &refused else { panic!("{refused:?}") };
        assert_eq!((contract.signer, contract.digest, contract.erc6492.as_ref()), (wallet, digest, None));
        assert_eq!(contract.for_token().len(), 130);
        assert_eq!((refused.code(), refused.status()), ("firma_de_contrato_sin_rpc", 402));
        let message = refused.to_string();
        assert!(
            message.contains("ERC-1271") && message.contains("eip155:84532") && message.contains("RPC"),
            "{message}"
        );
        // ERC-6492: the wrapper is taken apart, and the token gets the inner signature.
        let inner = vec![3u8; 65];
        let wrapped = wrap_erc6492(Address::repeat_byte(0xfa), &[1, 2, 3], &inner);
        let refused = check_exact(&req, &with_signature(wrapped.to_vec(), wallet, now), now).unwrap_err();
        let CheckError::NeedsChain(contract) = &refused else { panic!("{refused:?}") };
        let parts = contract.erc6492.as_ref().expect("6492");
        assert_eq!((parts.factory, parts.factory_calldata.as_ref()), (Address::repeat_byte(0xfa), &[1u8, 2, 3][..]));
        assert_eq!(contract.for_token().as_ref(), &inner[..]);
        assert_eq!(contract.signature, wrapped);
        assert!(refused.to_string().contains("ERC-6492"));
        // The magic over garbage is a malformed payload, never a signature to ask about.
        let mut garbage = vec![0xee; 70];
        garbage.extend_from_slice(&ERC6492_MAGIC);
        let refused = check_exact(&req, &with_signature(garbage, wallet, now), now).unwrap_err();
        assert!(matches!(refused, CheckError::Payload(_)), "{refused:?}");
        // The terms are checked first: a wrong amount never reaches the chain.
        let mut cheap = with_signature(vec![7; 130], wallet, now);
        cheap.authorization.value = U256::from(1);
        assert_eq!(
            check_exact(&req, &cheap, now).unwrap_err().code(),
            "invalid_exact_evm_payload_authorization_value_mismatch"
        );
        // 65 bytes that do not recover to `from` stay a bad signature (no chain asked here).
        let key = PrivateKeySigner::random();
        let other = signed(|a, _| a.from = wallet, &key, now);
        assert!(matches!(check_exact(&req, &other, now), Err(CheckError::Signature { .. })));
    }
}
