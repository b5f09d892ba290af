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
    /// The facilitator's transaction reverted: it moved nothing, but the usual cause is an
    /// authorization already used, so only the chain can say whether this one paid. Refused
    /// when the chain shows it unused; uncertain without a chain.
    Reverted { refusal: (u16, String, String), answer: SettlementResponse },
    /// The money may have moved.
    Uncertain { detail: String, transaction: Option<String> },
}

/// What a facilitator's settle reason says about the money, from [`REASONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReasonClass {
    /// Refused on a check before anything was broadcast: nothing can have moved.
    Refused,
    /// Broadcast and reverted (mined with status 0): nothing moved.
    Reverted,
    /// Broadcast, confirmation not seen yet.
    Pending,
    /// The authorization's nonce is used on chain: the money may have moved for it (by an
    /// earlier attempt, or by anyone who submitted it first), or the payer cancelled it.
    NonceUsed,
    /// Anything that may come after a broadcast, and every reason not in the table.
    Uncertain,
}

impl ReasonClass {
    fn parse(text: &str) -> Option<ReasonClass> {
        Some(match text {
            "refused" => ReasonClass::Refused,
            "reverted" => ReasonClass::Reverted,
            "pending" => ReasonClass::Pending,
            "nonce_used" => ReasonClass::NonceUsed,
            "uncertain" => ReasonClass::Uncertain,
            _ => return None,
        })
    }

    /// Whether the class proves that no money moved.
    pub fn proves_nothing_moved(self) -> bool {
        matches!(self, ReasonClass::Refused | ReasonClass::Reverted)
    }
}

/// The facilitators' settle reasons, each from its source (`razones/README.md` says how the
/// table was made): `fuente`, `version`, `razon`, `clase`, `donde`, `por_que`, tab-separated.
pub const REASONS: &str = include_str!("razones/razones.tsv");

/// One row of [`REASONS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonRow {
    pub source: String,
    pub version: String,
    pub reason: String,
    pub class: ReasonClass,
}

/// Every row of [`REASONS`] (its header skipped); a malformed row is a bug the tests catch.
pub fn reason_rows() -> Vec<ReasonRow> {
    REASONS
        .lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let (source, version, reason, class) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
            Some(ReasonRow {
                source: source.to_owned(),
                version: version.to_owned(),
                reason: reason.trim().to_owned(),
                class: ReasonClass::parse(class.trim())?,
            })
        })
        .collect()
}

/// The class of each reason (lowercase; a reason ending in `*` is a prefix the facilitator
/// appends detail to): where sources disagree, the most cautious (the one furthest from
/// "nothing moved"), so no facilitator's wording is read as "nothing charged" when another
/// source raises it after a broadcast.
static CLASSES: std::sync::LazyLock<std::collections::BTreeMap<String, ReasonClass>> = std::sync::LazyLock::new(|| {
    let mut classes = std::collections::BTreeMap::new();
    for row in reason_rows() {
        let class = classes.entry(row.reason.to_ascii_lowercase()).or_insert(row.class);
        *class = (*class).max(row.class);
    }
    classes
});

/// The class of a settle reason: the table's (exact, else the longest prefix row that starts
/// it), or uncertain for a reason it does not know.
pub fn class_of(reason: &str) -> ReasonClass {
    let reason = reason.trim().to_ascii_lowercase();
    if let Some(class) = CLASSES.get(&reason) {
        return *class;
    }
    CLASSES
        .iter()
        .filter_map(|(row, class)| Some((row.strip_suffix('*')?, *class)))
        .filter(|(prefix, _)| reason.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or(ReasonClass::Uncertain, |(_, class)| class)
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
    let class = if reason.is_empty() { ReasonClass::Uncertain } else { class_of(&reason) };
    match class {
        ReasonClass::Pending => {
            Settlement::Uncertain { detail: "la liquidación quedó pendiente de confirmación".into(), transaction }
        }
        ReasonClass::NonceUsed => Settlement::NonceUsed(answer),
        // A refusal naming a broadcast transaction is not a refusal before broadcast.
        ReasonClass::Refused if transaction.is_some() => Settlement::Uncertain {
            detail: format!("el facilitador respondió {reason} con una transacción"),
            transaction,
        },
        ReasonClass::Refused => Settlement::Refused {
            status: 402,
            message: format!(
                "El facilitador no liquidó el pago ({reason}); no se cobró nada y no se entrega el estudio."
            ),
            code: reason,
            answer: Some(answer),
        },
        ReasonClass::Reverted => Settlement::Reverted {
            refusal: (
                402,
                reason.clone(),
                format!(
                    "La transacción del facilitador revirtió ({reason}) y la cadena muestra esta autorización sin usar: no se cobró nada y no se entrega el estudio."
                ),
            ),
            answer,
        },
        ReasonClass::Uncertain => {
            let reason = if reason.is_empty() { "sin motivo".to_owned() } else { reason };
            Settlement::Uncertain { detail: format!("el facilitador respondió {reason}"), transaction }
        }
    }
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
        // A 5xx that still carries a settle answer naming a transaction (CDP answers a pending
        // settlement with 500 and its hash): uncertain, and the chain is told where to look.
        FacilitatorError::Status { status, body } if *status >= 500 => {
            let transaction = serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("transaction").and_then(|t| t.as_str()).map(str::to_owned))
                .filter(|t| !t.is_empty());
            Settlement::Uncertain { detail: error.to_string(), transaction }
        }
        // A request refused as a request (malformed, unauthorized, unknown path, too large,
        // rate-limited): the facilitator did not take it up. Any other 4xx (a conflict, a
        // precondition, "accepted"-like answers) may come from a settlement under way.
        FacilitatorError::Status { status: 400 | 401 | 403 | 404 | 405 | 413 | 415 | 422 | 429, .. } => {
            Settlement::Refused {
                status: 502,
                code: "facilitador_con_error".into(),
                message: format!(
                    "El facilitador rechazó el pedido de liquidación ({error}); no se cobró nada y no se entrega el estudio."
                ),
                answer: None,
            }
        }
        FacilitatorError::Timeout
        | FacilitatorError::Broken(_)
        | FacilitatorError::Status { .. }
        | FacilitatorError::BadBody(_) => Settlement::Uncertain { detail: error.to_string(), transaction: None },
    }
}

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
            Settlement::Reverted { .. } => "reverted",
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
            // Reverted with a transaction named: only the chain says whether the authorization is unused.
            (answer(false, Some("Transaction failed: execution reverted"), "0xreverted"), "reverted"),
            // Raised after a send whose outcome is unknown by x402's TypeScript facilitator.
            (answer(false, Some("invalid_exact_evm_transaction_failed"), ""), "uncertain"),
            (answer(false, Some("duplicate_settlement"), ""), "uncertain"),
            (answer(false, Some("invalid_exact_evm_nonce_already_used"), ""), "nonce used"),
            // The wording issue 44 found read as "nothing charged".
            (answer(false, Some("invalid_exact_evm_payload_authorization_nonce_used"), ""), "nonce used"),
            (answer(false, Some("INVALID_EXACT_EVM_NONCE_ALREADY_USED"), ""), "nonce used"),
            // Smart wallets: refused before the transfer is sent; a failed deployment is refused by
            // this project's facilitator but may follow a send in others (the cautious class wins).
            (answer(false, Some("eip6492_factory_not_allowed"), ""), "refused"),
            (answer(false, Some("firma_de_contrato_sin_rpc"), ""), "refused"),
            (answer(false, Some("smart_wallet_deployment_failed"), ""), "uncertain"),
            (answer(false, Some("settlement_pending"), "0xbroadcast"), "uncertain"),
            (answer(false, Some("invalid_transaction_state"), "0xbroadcast"), "uncertain"),
            (answer(false, Some("invalid_exact_evm_insufficient_balance"), "0xbroadcast"), "uncertain"),
            (answer(false, Some("unexpected_settle_error"), ""), "uncertain"),
            // A reason no source in the table gives, after a settle that may have been broadcast.
            (answer(false, Some("invalid_something_new_2027"), ""), "uncertain"),
            (answer(false, Some("nonce_reuse_detected"), ""), "uncertain"),
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

    /// What the gate does with a settle answer of each class.
    fn kind_of_class(class: ReasonClass) -> &'static str {
        match class {
            ReasonClass::Refused => "refused",
            ReasonClass::Reverted => "reverted",
            ReasonClass::NonceUsed => "nonce used",
            ReasonClass::Pending | ReasonClass::Uncertain => "uncertain",
        }
    }

    #[test]
    fn every_reason_of_every_source_gets_its_class() {
        let rows = reason_rows();
        let lines = REASONS.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
        assert_eq!(rows.len(), lines, "every row of razones.tsv parses (six tab-separated fields, a known class)");
        assert!(REASONS.starts_with("fuente\tversion\trazon\tclase\tdonde\tpor_que"), "the header");
        let sources: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.source.as_str()).collect();
        for needed in ["x402-ts-evm", "x402-rs", "cdp"] {
            assert!(sources.iter().any(|s| s.contains(needed)), "a source named {needed}: {sources:?}");
        }
        for row in &rows {
            let gate = class_of(&row.reason);
            // The gate takes the row's class, or a more cautious one another source gives.
            assert!(
                gate >= row.class,
                "{} ({}): {:?} below the source's {:?}",
                row.reason,
                row.source,
                gate,
                row.class
            );
            if gate != row.class {
                assert!(
                    rows.iter().any(|other| other.reason.eq_ignore_ascii_case(&row.reason) && other.class == gate),
                    "{} ({}): {:?} comes from no source",
                    row.reason,
                    row.source,
                    gate
                );
            }
            let read = from_answer(answer(false, Some(&row.reason), ""), "eip155:8453");
            assert_eq!(kind(&read), kind_of_class(gate), "{} ({})", row.reason, row.source);
            // With a transaction named, nothing is "refused" outright.
            let named = from_answer(answer(false, Some(&row.reason), "0xabc"), "eip155:8453");
            assert_ne!(kind(&named), "refused", "{} with a transaction ({})", row.reason, row.source);
        }
    }

    #[test]
    fn errors_are_uncertain_unless_the_request_never_arrived() {
        let status = |status| FacilitatorError::Status { status, body: String::new() };
        let cases = [
            (FacilitatorError::NotReached("refused".into()), "refused"),
            (status(401), "refused"),
            (status(404), "refused"),
            (status(409), "uncertain"),
            (status(202), "uncertain"),
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
