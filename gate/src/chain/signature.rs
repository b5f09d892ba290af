//! Smart wallets' signatures, judged by the chain: ERC-1271 (a deployed wallet's contract says
//! whether a signature is its own) and ERC-6492 (a wallet not yet deployed: the signature carries
//! the call that deploys it).
//!
//! An EOA's 65-byte signature is checked locally ([`crate::x402::evm::check_exact`]) with no RPC.
//! Anything else needs the network's RPC, asked with one `eth_call`:
//!
//! - ERC-1271: `isValidSignature(digest, signature)` on `from`; valid only when it returns the
//!   magic `0x1626ba7e`. The digest is the EIP-712 digest of the `TransferWithAuthorization`
//!   under the token's domain, exactly what USDC's `SignatureChecker` asks the wallet.
//! - ERC-6492 (the signature ends with `0x6492…6492`): a "deployless" `eth_call` whose data is
//!   the ERC's universal validator's creation code followed by `abi.encode(signer, digest,
//!   signature)`; its constructor runs the factory call (only in the simulation), asks the new
//!   wallet's `isValidSignature`, and returns one byte, `0x01` when valid. No validator needs to
//!   be deployed on the network. The creation code is viem's `erc6492SignatureValidatorByteCode`
//!   (viem 2.57.20, `constants/contracts`), the one viem's `verifyHash` runs for the same check.
//!
//! USDC itself knows ERC-1271 and not ERC-6492: a wallet not yet deployed must be deployed (its
//! factory call) before `transferWithAuthorization(…, bytes signature)` gets the inner signature.
//! That is the settler's work ([`crate::facilitator::local`]); here only the verdict.

use alloy_primitives::{Address, FixedBytes};
use alloy_sol_types::{SolCall, SolValue, sol};

use super::rpc::{Called, Rpc};
use super::{Chain, ChainError};
use crate::x402::PaymentRequirements;
use crate::x402::evm::{
    CheckError, ContractSignature, ExactEvmPayload, as_contract_signature, check_exact, domain_for,
};

sol! {
    /// ERC-1271.
    function isValidSignature(bytes32 hash, bytes signature) external view returns (bytes4);
}

/// What `isValidSignature` returns for a valid signature (its own selector).
pub const ERC1271_MAGIC: [u8; 4] = [0x16, 0x26, 0xba, 0x7e];

/// The creation code of ERC-6492's off-chain validator (hex, no `0x`): see the module's doc.
const VALIDATOR_CREATION_CODE: &str = include_str!("erc6492_validator.hex");

/// The chain's verdict on a smart wallet's signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContractCheck {
    Valid,
    /// Refused; why, in Spanish.
    Invalid(String),
}

/// The calldata of `isValidSignature(digest, signature)`, sent to the wallet.
pub fn is_valid_signature_call(signature: &ContractSignature) -> Vec<u8> {
    isValidSignatureCall { hash: signature.digest, signature: signature.signature.clone() }.abi_encode()
}

/// The data of the deployless ERC-6492 check: the validator's creation code, then its
/// constructor's arguments `abi.encode(signer, digest, signature)` (the whole wrapped signature).
pub fn erc6492_validation_call(signature: &ContractSignature) -> Vec<u8> {
    let mut data = hex::decode(VALIDATOR_CREATION_CODE.trim()).unwrap_or_default();
    data.extend((signature.signer, signature.digest, signature.signature.clone()).abi_encode_params());
    data
}

/// Asks the chain at `rpc` whether `signature` is valid: ERC-6492 by the deployless validator,
/// ERC-1271 by the wallet's `isValidSignature`. `Err` only when the node could not be asked.
pub async fn verify(rpc: &Rpc, signature: &ContractSignature) -> Result<ContractCheck, ChainError> {
    if signature.erc6492.is_some() {
        return Ok(match rpc.try_call(None, &erc6492_validation_call(signature)).await? {
            Called::Returned(answer) if answer.as_ref() == [1u8] => ContractCheck::Valid,
            Called::Returned(_) => ContractCheck::Invalid(
                "desplegada en la simulación (la llamada a su fábrica), su isValidSignature no devolvió 0x1626ba7e"
                    .to_owned(),
            ),
            Called::Reverted(why) => ContractCheck::Invalid(format!(
                "la simulación del despliegue y de isValidSignature revirtió: {}",
                short(&why)
            )),
        });
    }
    match rpc.try_call(Some(signature.signer), &is_valid_signature_call(signature)).await? {
        Called::Returned(answer) if returns_magic(&answer) => Ok(ContractCheck::Valid),
        Called::Returned(answer) if answer.is_empty() && rpc.code(signature.signer).await?.is_empty() => {
            Ok(ContractCheck::Invalid(format!(
                "no hay contrato en {} en esta red: si la billetera aún no está desplegada, envuelva la firma según ERC-6492 (fábrica y datos de despliegue)",
                signature.signer
            )))
        }
        Called::Returned(_) => Ok(ContractCheck::Invalid("isValidSignature no devolvió 0x1626ba7e".to_owned())),
        Called::Reverted(why) => Ok(ContractCheck::Invalid(format!("isValidSignature revirtió: {}", short(&why)))),
    }
}

/// Whether an `isValidSignature` answer is the ABI-encoded magic `bytes4`.
fn returns_magic(answer: &[u8]) -> bool {
    isValidSignatureCall::abi_decode_returns(answer).is_ok_and(|value: FixedBytes<4>| value.0 == ERC1271_MAGIC)
}

fn short(text: &str) -> &str {
    match text.char_indices().nth(200) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// [`check_exact`], with a smart wallet's signature asked of `chain` (the network's RPC): the
/// one check of an exact EVM payment for the gate and the local facilitator. An EOA's signature
/// never reaches the chain. Without a chain that runs contracts (none configured, or the local
/// ledger), a smart wallet's signature is [`CheckError::NeedsChain`]; a 65-byte signature that
/// does not recover to `from` is asked of the chain too (a one-owner Safe signs with its
/// owner's 65 bytes), and stays a bad signature when the chain does not take it either.
pub async fn check_exact_on(
    chain: Option<&dyn Chain>,
    requirements: &PaymentRequirements,
    payload: &ExactEvmPayload,
    now: u64,
) -> Result<Checked, CheckError> {
    let refused = match check_exact(requirements, payload, now) {
        Ok(payer) => return Ok(Checked { payer, contract: None }),
        Err(refused) => refused,
    };
    let (contract, eoa_refusal) = match refused {
        CheckError::NeedsChain(contract) => (*contract, None),
        refused @ (CheckError::Signature { .. } | CheckError::NonCanonical(_)) if chain.is_some() => {
            let domain = domain_for(requirements).map_err(CheckError::Payload)?;
            (as_contract_signature(&requirements.network, &domain, payload), Some(refused))
        }
        refused => return Err(refused),
    };
    let Some(chain) = chain else { return Err(CheckError::NeedsChain(Box::new(contract))) };
    let verdict = match chain.contract_signature(&contract).await {
        Ok(verdict) => verdict,
        Err(e) if eoa_refusal.is_none() => return Err(CheckError::ChainUnavailable(e.to_string())),
        Err(e) => {
            tracing::warn!("firma de 65 bytes que no es de `from`: la red no respondió si es de un contrato: {e}");
            None
        }
    };
    match (verdict, eoa_refusal) {
        (Some(ContractCheck::Valid), _) => Ok(Checked { payer: contract.signer, contract: Some(contract) }),
        (_, Some(eoa_refusal)) => Err(eoa_refusal),
        (Some(ContractCheck::Invalid(why)), None) => {
            Err(CheckError::ContractRefused { signer: contract.signer, standard: contract.standard(), why })
        }
        (None, None) => Err(CheckError::NeedsChain(Box::new(contract))),
    }
}

/// A payment whose signature holds: who pays, and, for a smart wallet, its signature as the
/// chain took it (how the settlement must present it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub payer: Address,
    pub contract: Option<ContractSignature>,
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Bytes;
    use serde_json::Value;

    use super::*;
    use crate::x402::evm::{Erc6492, parse_erc6492, wrap_erc6492};

    const VECTORS: &str = include_str!("../x402/vectors/erc6492.json");

    fn vectors() -> Value {
        serde_json::from_str(VECTORS).unwrap()
    }

    fn bytes(v: &Value) -> Bytes {
        v.as_str().unwrap().parse().unwrap()
    }

    fn contract_signature(case: &Value) -> ContractSignature {
        let signature = bytes(&case["signature"]);
        ContractSignature {
            network: "eip155:84532".into(),
            signer: case["signer"].as_str().unwrap().parse().unwrap(),
            digest: case["digest"].as_str().unwrap().parse().unwrap(),
            erc6492: parse_erc6492(&signature).map(Result::unwrap),
            signature,
        }
    }

    #[test]
    fn the_validator_is_viems_and_the_magic_is_the_ercs() {
        let v = vectors();
        let code = hex::decode(VALIDATOR_CREATION_CODE.trim()).unwrap();
        assert_eq!(format!("0x{}", hex::encode(&code)), v["validatorCreationCode"].as_str().unwrap());
        assert_eq!(hex::encode(crate::x402::evm::ERC6492_MAGIC), "6492".repeat(16));
        assert_eq!(isValidSignatureCall::SELECTOR, ERC1271_MAGIC);
    }

    #[test]
    fn calls_are_encoded_as_viem_encodes_them() {
        let v = vectors();
        for case in v["cases"].as_array().unwrap() {
            let id = case["id"].as_str().unwrap();
            let signature = contract_signature(case);
            assert_eq!(
                format!("0x{}", hex::encode(is_valid_signature_call(&signature))),
                case["isValidSignatureCall"].as_str().unwrap(),
                "{id}: isValidSignature"
            );
            if let Some(expected) = case.get("deploylessCall") {
                assert_eq!(
                    format!("0x{}", hex::encode(erc6492_validation_call(&signature))),
                    expected.as_str().unwrap(),
                    "{id}: deployless validation"
                );
            }
        }
    }

    #[test]
    fn erc6492_signatures_are_unwrapped_and_wrapped_as_viem_does() {
        let v = vectors();
        for case in v["cases"].as_array().unwrap() {
            let id = case["id"].as_str().unwrap();
            let signature = bytes(&case["signature"]);
            match case.get("erc6492") {
                Some(parts) => {
                    let parsed = parse_erc6492(&signature).expect("6492").expect("well formed");
                    let expected = Erc6492 {
                        factory: parts["factory"].as_str().unwrap().parse().unwrap(),
                        factory_calldata: bytes(&parts["factoryCalldata"]),
                        inner: bytes(&parts["signature"]),
                    };
                    assert_eq!(parsed, expected, "{id}");
                    assert_eq!(wrap_erc6492(expected.factory, &expected.factory_calldata, &expected.inner), signature);
                }
                None => assert!(parse_erc6492(&signature).is_none(), "{id}: not 6492"),
            }
        }
    }

    #[test]
    fn a_magic_suffix_over_garbage_is_an_error_not_a_signature() {
        let mut garbage = vec![0xab; 40];
        garbage.extend_from_slice(&crate::x402::evm::ERC6492_MAGIC);
        assert!(parse_erc6492(&garbage).expect("ends like 6492").is_err());
        assert!(parse_erc6492(&[0x64, 0x92]).is_none());
    }

    #[test]
    fn only_the_abi_encoded_magic_is_valid() {
        let mut word = [0u8; 32];
        word[..4].copy_from_slice(&ERC1271_MAGIC);
        assert!(returns_magic(&word));
        word[3] = 0x7f;
        assert!(!returns_magic(&word));
        assert!(!returns_magic(&[]));
        assert!(!returns_magic(&ERC1271_MAGIC));
    }
}
