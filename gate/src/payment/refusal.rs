//! A refused purchase ([`Refusal`]): nothing delivered, nothing charged, the reason said to the
//! buyer in Spanish (English beside it where a client may show it as is). The refusals that
//! more than one step gives are written here once: a facilitator that did not answer, too many
//! refused attempts, a payment the sales record already holds, a nonce the chain has used, an
//! authorization the chain voided.

use crate::chain::Verdict;
use crate::facilitator::FacilitatorError;
use crate::sales::Seen;
use crate::x402::SettlementResponse;

use super::limits::{Limited, Scope};

/// A refused purchase: nothing delivered, nothing charged.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// 400 malformed, 402 payment required or failed, 500 production failed, 502/503 facilitator.
    pub status: u16,
    pub code: String,
    pub message: String,
    /// The failed settlement, when the facilitator answered one.
    pub settlement: Option<Box<SettlementResponse>>,
    /// Seconds after which a turned-away buyer may try again (429).
    pub retry_after: Option<u64>,
}

impl Refusal {
    /// A refusal with its status, machine code and message, and nothing else.
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Refusal {
        Refusal { status, code: code.to_owned(), message: message.into(), settlement: None, retry_after: None }
    }
}

/// A facilitator that failed to answer `/verify` (nothing is settled at that point).
pub(crate) fn facilitator_refusal(error: &FacilitatorError) -> Refusal {
    tracing::warn!("facilitador: {error}");
    let (status, code) = match error {
        FacilitatorError::NotReached(_) | FacilitatorError::Timeout | FacilitatorError::Broken(_) => {
            (503, "facilitador_no_disponible")
        }
        FacilitatorError::Status { .. } | FacilitatorError::BadBody(_) => (502, "facilitador_con_error"),
    };
    Refusal::new(
        status,
        code,
        format!(
            "No se pudo verificar el pago ({error}); no se cobró nada y no se entrega el estudio. Puede reintentar con la misma firma mientras no venza."
        ),
    )
}

/// A 429: too many refused attempts, with when to try again.
pub(crate) fn too_many(limited: Limited) -> Refusal {
    let who = match limited.scope {
        Scope::Client => "desde su dirección",
        Scope::Payer => "de esta billetera",
        Scope::Global => "en el servicio (demasiados pagos rechazados a la vez)",
    };
    Refusal {
        status: 429,
        code: "demasiados_intentos".to_owned(),
        message: format!(
            "Demasiados intentos de pago rechazados {who}; no se cobró nada. Reintente en {} s. / Too many refused payment attempts; nothing was charged. Retry after {} s.",
            limited.retry_after, limited.retry_after
        ),
        settlement: None,
        retry_after: Some(limited.retry_after),
    }
}

/// The refusal for a payment the book already holds in another state.
pub(crate) fn seen_refusal(seen: Seen) -> Refusal {
    match seen {
        Seen::InFlight => Refusal::new(
            409,
            "pago_en_curso",
            "Este pago se está procesando en otra solicitud; espere unos segundos y repita el mismo pedido para recibir el estudio sin pagar de nuevo.",
        ),
        Seen::IdConflict | Seen::IdPaid(_) => Refusal::new(
            409,
            "identificador_en_conflicto",
            "Este payment-identifier ya se usó con otro pago (de otra billetera, para otro estudio, o aún en curso o por conciliar); use un identificador nuevo para un pago nuevo, o repita el pedido original.",
        ),
        Seen::Unavailable => Refusal::new(
            503,
            "diario_no_disponible",
            "No se pudo consultar el registro de ventas antes de cobrar; no se cobró nada. Reintente en unos minutos con la misma firma.",
        ),
        Seen::Disputed(reason) => Refusal::new(
            409,
            "venta_impugnada",
            format!(
                "La venta de esta autorización está impugnada: la cadena no confirmó la liquidación que informó el facilitador ({reason}). No se entrega el estudio. Si el dinero salió de su billetera, escriba al editor (el contacto está en la página de inicio) con esta firma de pago y la transacción; no firme otro pago para esta compra hasta que le respondan. / This sale is disputed: the chain did not confirm the settlement the facilitator reported. Nothing is delivered; if money left your wallet, contact the publisher with this payment."
            ),
        ),
        Seen::Void(note) => Refusal::new(
            402,
            "compra_anulada",
            format!(
                "Esta autorización no pagó esta compra ni la pagará ({note}); no se cobró nada con ella y no se entrega el estudio. Para comprar, firme un pago nuevo. / This payment authorization was resolved as unpaid: nothing was charged or delivered; sign a new payment to buy."
            ),
        ),
        Seen::Paid(_) | Seen::Uncertain(_) => Refusal::new(
            409,
            "pago_ya_usado",
            "Esta autorización de pago ya se usó para otra compra; para comprar esto firme una nueva (nonce nuevo). Para recuperar aquella compra repita exactamente el mismo pedido.",
        ),
    }
}

/// The refusal of a purchase the chain voided.
pub(crate) fn void_refusal(verdict: &Verdict) -> Refusal {
    let (code, why) = match verdict {
        Verdict::Canceled { .. } => {
            ("autorizacion_cancelada", "el pagador la canceló en la cadena (cancelAuthorization)")
        }
        Verdict::Expired => ("autorizacion_vencida", "venció sin usarse"),
        _ => ("autorizacion_usada_en_otro_pago", "su nonce se usó en otra transferencia, que no pagó este estudio"),
    };
    Refusal::new(
        402,
        code,
        format!(
            "La cadena muestra que esta autorización de pago no pagó el estudio: {why}. No se cobró nada y no se entrega el estudio; para comprarlo firme un pago nuevo. / The chain shows this payment authorization did not pay: nothing was charged or delivered; sign a new payment to buy."
        ),
    )
}
