//! What a settlement attempt means for the money: settled, refused for certain, or uncertain.
//!
//! A purchase is released only on `success: true` for our network. Everything else delivers
//! nothing, but not everything else proves nothing was charged: a timeout, a broken
//! connection, a 5xx (502 and 504 included), an unreadable body, a facilitator saying the
//! settlement is still pending, or a refusal that names a broadcast transaction may all come
//! after the money moved. Those are *uncertain*: the purchase stays to reconcile, and the
//! same payload coming back retries it. Only answers that prove no transfer happened (the
//! facilitator never received the request, or refused it on a pre-broadcast check such as
//! a bad signature or insufficient funds) are *refused for certain*.

use crate::facilitator::FacilitatorError;
use crate::x402::SettlementResponse;

/// x402 core's reason for a broadcast whose confirmation is still pending.
pub const SETTLEMENT_PENDING: &str = "settlement_pending";
/// The reason every uncertain outcome is reported with.
pub const UNCERTAIN_CODE: &str = "liquidacion_incierta";

/// The meaning of one settlement attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Settlement {
    /// `success: true` for our network: the money moved, the study is released.
    Settled(SettlementResponse),
    /// The facilitator says this authorization was already used: the money moved for it at
    /// some point (by an earlier attempt, or by someone else).
    NonceUsed(SettlementResponse),
    /// No transfer happened.
    Refused { status: u16, code: String, message: String, answer: Option<SettlementResponse> },
    /// The money may have moved.
    Uncertain { detail: String, transaction: Option<String> },
}

/// Reads a facilitator's settle answer.
pub fn from_answer(answer: SettlementResponse, network: &str) -> Settlement {
    if answer.success {
        if !answer.network.is_empty() && answer.network != network {
            tracing::error!(red = %answer.network, esperada = %network, "liquidación informada en otra red");
            return Settlement::Uncertain {
                detail: format!("el facilitador informó una liquidación en otra red ({})", answer.network),
                transaction: Some(answer.transaction).filter(|t| !t.is_empty()),
            };
        }
        return Settlement::Settled(answer);
    }
    let reason = answer.error_reason.clone().unwrap_or_default();
    let transaction = Some(answer.transaction.clone()).filter(|t| !t.is_empty());
    if reason == SETTLEMENT_PENDING {
        return Settlement::Uncertain {
            detail: "la liquidación quedó pendiente de confirmación".into(), transaction
        };
    }
    if is_nonce_used(&reason) {
        return Settlement::NonceUsed(answer);
    }
    // A named transaction was broadcast: only a reverted one proves nothing moved.
    let reverted = reason == "invalid_exact_evm_transaction_failed";
    if transaction.is_some() && !reverted {
        return Settlement::Uncertain {
            detail: format!("el facilitador respondió {reason} con una transacción"),
            transaction,
        };
    }
    if proves_no_transfer(&reason) {
        let code = if reason.is_empty() { "unexpected_settle_error".to_owned() } else { reason };
        return Settlement::Refused {
            status: 402,
            message: format!(
                "El facilitador no liquidó el pago ({code}); no se cobró nada y no se entrega el estudio."
            ),
            code,
            answer: Some(answer),
        };
    }
    let reason = if reason.is_empty() { "sin motivo".to_owned() } else { reason };
    Settlement::Uncertain { detail: format!("el facilitador respondió {reason}"), transaction }
}

/// Reads a facilitator that gave no usable answer.
pub fn from_error(error: &FacilitatorError) -> Settlement {
    match error {
        FacilitatorError::NotReached(_) => Settlement::Refused {
            status: 503,
            code: "facilitador_no_disponible".into(),
            message: format!(
                "No se pudo liquidar el pago ({error}); no se cobró nada y no se entrega el estudio. Puede reintentar con la misma firma mientras no venza."
            ),
            answer: None,
        },
        FacilitatorError::Status { status, .. } if *status < 500 && *status != 408 => Settlement::Refused {
            status: 502,
            code: "facilitador_con_error".into(),
            message: format!(
                "El facilitador rechazó el pedido de liquidación ({error}); no se cobró nada y no se entrega el estudio."
            ),
            answer: None,
        },
        FacilitatorError::Timeout
        | FacilitatorError::Broken(_)
        | FacilitatorError::Status { .. }
        | FacilitatorError::BadBody(_) => Settlement::Uncertain { detail: error.to_string(), transaction: None },
    }
}

/// The x402 reasons for an authorization whose nonce was already used.
fn is_nonce_used(reason: &str) -> bool {
    reason.contains("nonce_already_used") || reason.contains("authorization_used")
}

/// Reasons facilitators give before broadcasting anything: the payment failed a check.
fn proves_no_transfer(reason: &str) -> bool {
    reason == "insufficient_funds"
        || reason == "duplicate_settlement"
        || SMART_WALLET_REFUSALS.contains(&reason)
        || (reason.starts_with("invalid_") && reason != "invalid_transaction_state")
}

/// `@x402/evm`'s (and the local facilitator's) refusals of a smart wallet's payment before its
/// transfer is sent: a wallet to deploy from a factory not allowed, a deployment that failed (it
/// moves no money), a smart wallet's signature with no RPC to check it.
const SMART_WALLET_REFUSALS: [&str; 3] =
    ["eip6492_factory_not_allowed", "smart_wallet_deployment_failed", "firma_de_contrato_sin_rpc"];

/// What the buyer is told when the outcome is uncertain.
pub fn uncertain_message(detail: &str) -> String {
    format!(
        "No se pudo confirmar la liquidación ({detail}); no se entrega el estudio. El pago pudo haberse movido: repita exactamente el mismo pedido, con la misma PAYMENT-SIGNATURE (por MCP, la misma llamada con el mismo _meta[\"x402/payment\"]), antes de que venza la autorización. Si el pago se hizo, recibirá el estudio sin un segundo cobro; si no se hizo, se cobrará una sola vez. No firme un pago nuevo para esta compra. / Settlement could not be confirmed; nothing was delivered. Repeat the very same request with the same payment before it expires: you get the study without being charged twice. Do not sign a new payment for this purchase."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(success: bool, reason: Option<&str>, transaction: &str) -> SettlementResponse {
        SettlementResponse {
            success,
            error_reason: reason.map(str::to_owned),
            error_message: None,
            payer: None,
            transaction: transaction.into(),
            network: "eip155:8453".into(),
            amount: None,
            extensions: None,
        }
    }

    fn kind(settlement: &Settlement) -> &'static str {
        match settlement {
            Settlement::Settled(_) => "settled",
            Settlement::NonceUsed(_) => "nonce used",
            Settlement::Refused { .. } => "refused",
            Settlement::Uncertain { .. } => "uncertain",
        }
    }

    #[test]
    fn answers_are_sorted_by_what_they_prove() {
        let cases = [
            (answer(true, None, "0xabc"), "settled"),
            (answer(false, Some("insufficient_funds"), ""), "refused"),
            (answer(false, Some("invalid_exact_evm_payload_signature"), ""), "refused"),
            (answer(false, Some("invalid_exact_evm_insufficient_balance"), ""), "refused"),
            (answer(false, Some("invalid_exact_evm_transaction_failed"), "0xreverted"), "refused"),
            (answer(false, Some("invalid_exact_evm_nonce_already_used"), ""), "nonce used"),
            (answer(false, Some("eip6492_factory_not_allowed"), ""), "refused"),
            (answer(false, Some("smart_wallet_deployment_failed"), ""), "refused"),
            (answer(false, Some("firma_de_contrato_sin_rpc"), ""), "refused"),
            (answer(false, Some("settlement_pending"), "0xbroadcast"), "uncertain"),
            (answer(false, Some("invalid_transaction_state"), "0xbroadcast"), "uncertain"),
            (answer(false, Some("invalid_exact_evm_transfer_event_mismatch"), "0xmoved"), "uncertain"),
            (answer(false, Some("unexpected_settle_error"), ""), "uncertain"),
            (answer(false, None, ""), "uncertain"),
        ];
        for (answer, expected) in cases {
            let reason = answer.error_reason.clone();
            assert_eq!(kind(&from_answer(answer, "eip155:8453")), expected, "{reason:?}");
        }
        let elsewhere = from_answer(answer(true, None, "0xabc"), "eip155:84532");
        assert_eq!(kind(&elsewhere), "uncertain", "a success on another network is not ours to release");
        let pending = from_answer(answer(false, Some("settlement_pending"), "0xbroadcast"), "eip155:8453");
        assert!(matches!(pending, Settlement::Uncertain { transaction: Some(t), .. } if t == "0xbroadcast"));
    }

    #[test]
    fn errors_are_uncertain_unless_the_request_never_arrived() {
        let status = |status| FacilitatorError::Status { status, body: String::new() };
        let cases = [
            (FacilitatorError::NotReached("refused".into()), "refused"),
            (status(401), "refused"),
            (status(404), "refused"),
            (FacilitatorError::Timeout, "uncertain"),
            (FacilitatorError::Broken("reset".into()), "uncertain"),
            (status(500), "uncertain"),
            (status(502), "uncertain"),
            (status(504), "uncertain"),
            (status(408), "uncertain"),
            (FacilitatorError::BadBody("html".into()), "uncertain"),
        ];
        for (error, expected) in cases {
            assert_eq!(kind(&from_error(&error)), expected, "{error:?}");
        }
    }
}
