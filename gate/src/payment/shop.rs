//! Selling a study: the one implementation of the x402 purchase, shared by HTTP and MCP.
//!
//! The order is the one the x402 reference servers use (verify, produce, settle, release):
//! the `accepted` requirement must deep-equal one we offer; local checks (EVM: signature, recipient, exact amount, time window) run before
//! anything else; the nonce is reserved so the same authorization cannot be spent twice, even
//! concurrently; the whole response is produced in memory; only then is the facilitator asked
//! to settle, and only a `success: true` for our network releases the study. Every other path
//! answers with the reason and delivers nothing, so nothing is charged without delivery and
//! nothing is delivered without settlement.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{Context, Result};
use bytes::Bytes;
use contract::View;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::offer::Offer;
use crate::clock::{iso8601, now};
use crate::facilitator::{Facilitator, FacilitatorError};
use crate::links::LinkSigner;
use crate::sales::journal::{Accepted, Event, Failed, Handed, Settled};
use crate::sales::{PaidSale, Sales, Seen};
use crate::x402::evm::{check_exact, parse_exact_payload};
use crate::x402::{PaymentPayload, PaymentRequirements, SettlementResponse};

/// How long a non-EVM payment stays in the replay set (Solana blockhash life, doubled).
const NON_EVM_REPLAY_SECONDS: u64 = 120;

/// A refused purchase: nothing delivered, nothing charged.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// 400 malformed, 402 payment required or failed, 500 production failed, 502/503 facilitator.
    pub status: u16,
    pub code: String,
    pub message: String,
    /// The failed settlement, when the facilitator answered one.
    pub settlement: Option<SettlementResponse>,
}

/// A delivered purchase.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The response JSON: the study (or summary) with its access block.
    pub body: Bytes,
    pub settlement: SettlementResponse,
    /// Where the time went, for the `Server-Timing` header.
    pub timing: Timing,
}

/// Milliseconds spent in each step of a purchase.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timing {
    pub check_ms: f64,
    pub produce_ms: f64,
    pub settle_ms: f64,
}

impl Timing {
    /// `Server-Timing` value: lets a buyer (and the benchmark) tell the gate's own time from the facilitator's.
    pub fn header(&self) -> String {
        format!(
            "verificacion;dur={:.2}, produccion;dur={:.2}, liquidacion;dur={:.2}",
            self.check_ms, self.produce_ms, self.settle_ms
        )
    }
}

fn ms_since(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

pub type Outcome = std::result::Result<Delivery, Refusal>;

/// The shop: the facilitator, link signing and the sales record with its replay guard. It
/// sells any [`Offer`] it is handed; what is for sale lives in [`super::offer::Offers`].
pub struct Shop {
    base_url: String,
    facilitator: Arc<dyn Facilitator>,
    links: LinkSigner,
    sales: Arc<Sales>,
}

impl Shop {
    /// A shop selling at `base_url` (the host of every signed link) through `facilitator`,
    /// recording every step in `sales`.
    pub fn new(base_url: &str, facilitator: Arc<dyn Facilitator>, links: LinkSigner, sales: Arc<Sales>) -> Shop {
        Shop { base_url: base_url.trim_end_matches('/').to_owned(), facilitator, links, sales }
    }

    /// The journal and replay book, shared with a reloaded shop.
    pub fn sales(&self) -> Arc<Sales> {
        Arc::clone(&self.sales)
    }

    pub fn links(&self) -> &LinkSigner {
        &self.links
    }

    pub fn facilitator(&self) -> &Arc<dyn Facilitator> {
        &self.facilitator
    }

    fn refuse(status: u16, code: &str, message: impl Into<String>) -> Refusal {
        Refusal { status, code: code.to_owned(), message: message.into(), settlement: None }
    }

    /// Runs a purchase of `offer` paid with `payload`.
    ///
    /// Every step is journaled (fsync'd) before the next: `aceptado` before settling,
    /// `liquidado` or `fallido` after, `entregado` before the body is handed back. A payment
    /// already paid (same authorization, or same `payment-identifier`) and repeated with the
    /// same payload for the same study is delivered again with fresh links and no settlement.
    pub async fn purchase(&self, offer: &Offer, payload: &PaymentPayload) -> Outcome {
        let now = now();
        let Some(index) = offer.accepts_json.iter().position(|a| *a == payload.accepted) else {
            return Err(Self::refuse(
                402,
                "invalid_payment_requirements",
                "El requisito aceptado (accepted) no es idéntico a ninguno de los que ofrece este recurso: copie sin cambios una entrada de accepts del 402 (red, activo, monto, payTo, maxTimeoutSeconds y extra).",
            ));
        };
        let Some(requirements) = offer.required.accepts.get(index) else {
            return Err(Self::refuse(500, "error_interno", "Oferta inconsistente."));
        };
        let id =
            payment_identifier(payload).map_err(|message| Self::refuse(400, "invalid_payment_identifier", message))?;
        let huella = fingerprint(payload);
        let started = std::time::Instant::now();
        let check = self.check(requirements, payload, now).await?;
        let reservation = match self.sales.reserve(&check.replay_key, id.as_deref(), &huella, check.replay_until, now) {
            Ok(reservation) => reservation,
            Err(seen) => return self.repeated(offer, requirements, &check, &huella, seen, started, now).await,
        };
        let key = check.replay_key.as_str();
        let accepted = Accepted {
            estudio: offer.slug.clone(),
            vista: offer.view.as_str().to_owned(),
            red: requirements.network.clone(),
            pagador: check.payer.clone(),
            nonce: check.nonce.clone(),
            monto: requirements.amount.clone(),
            activo: requirements.asset.clone(),
            pagar_a: requirements.pay_to.clone(),
            valido_hasta: check.replay_until,
            huella: huella.clone(),
            identificador: id.clone(),
        };
        if let Err(e) = self.sales.write(key, now, Event::Aceptado(accepted)).await {
            tracing::error!("diario de ventas: no se pudo registrar la compra aceptada: {e}");
            return Err(Self::refuse(
                503,
                "diario_no_disponible",
                "No se pudo registrar la compra antes de cobrarla; no se cobró nada. Reintente en unos minutos con la misma firma.",
            ));
        }
        let check_ms = ms_since(started);
        let started = std::time::Instant::now();
        let body = match self.produce(offer, requirements, &check.payer, now).await {
            Ok(body) => body,
            Err(e) => {
                tracing::error!(estudio = %offer.slug, "no se pudo armar la respuesta: {e:#}");
                let refusal = Self::refuse(
                    500,
                    "error_interno",
                    "No se pudo armar el estudio; no se cobró nada. Intente de nuevo.",
                );
                self.journal_failure(key, &refusal, false).await;
                return Err(refusal);
            }
        };
        let produce_ms = ms_since(started);
        let started = std::time::Instant::now();
        let settlement = match self.settle(requirements, payload).await {
            Ok(settlement) => settlement,
            Err(refusal) => {
                // No answer in time (503): the settlement may still have happened.
                self.journal_failure(key, &refusal, refusal.status == 503).await;
                return Err(refusal);
            }
        };
        let settle_ms = ms_since(started);
        tracing::info!(target: "compras", estudio = %offer.slug, vista = %offer.view, red = %requirements.network, transaccion = %settlement.transaction, "venta liquidada");
        let settled = Settled {
            transaccion: settlement.transaction.clone(),
            red: if settlement.network.is_empty() { requirements.network.clone() } else { settlement.network.clone() },
            pagador: settlement.payer.clone().filter(|p| !p.is_empty()).unwrap_or_else(|| check.payer.clone()),
        };
        if let Err(e) = self.sales.write(key, crate::clock::now(), Event::Liquidado(settled)).await {
            // The money moved: deliver anyway, and say loudly what the journal misses.
            tracing::error!(compra = key, transaccion = %settlement.transaction, "diario de ventas: no se pudo registrar la liquidación: {e}");
        }
        self.sales.crash_point_after_settle().await;
        reservation.commit(PaidSale {
            huella,
            estudio: offer.slug.clone(),
            vista: offer.view.as_str().to_owned(),
            settlement: settlement.clone(),
        });
        let body = self.with_payment(body, &settlement);
        self.journal_handed(
            key,
            Event::Entregado(Handed { transaccion: settlement.transaction.clone(), bytes: body.len() as u64 }),
        )
        .await;
        let timing = Timing { check_ms, produce_ms, settle_ms };
        Ok(Delivery { body, settlement, timing })
    }

    /// A payment the book already knows: delivered again when it is the same payload for the
    /// same study and already paid; otherwise a conflict, and nothing is charged.
    #[allow(clippy::too_many_arguments)]
    async fn repeated(
        &self,
        offer: &Offer,
        requirements: &PaymentRequirements,
        check: &Checked,
        huella: &str,
        seen: Seen,
        started: std::time::Instant,
        now: u64,
    ) -> Outcome {
        let sale = match seen {
            Seen::InFlight => {
                return Err(Self::refuse(
                    409,
                    "pago_en_curso",
                    "Este pago se está procesando en otra solicitud; espere unos segundos y repita el mismo pedido para recibir el estudio sin pagar de nuevo.",
                ));
            }
            Seen::IdConflict => {
                return Err(Self::refuse(
                    409,
                    "identificador_en_conflicto",
                    "Este payment-identifier ya se usó con otro pago; use un identificador nuevo para un pago nuevo.",
                ));
            }
            Seen::Paid(sale) => sale,
        };
        if sale.huella != huella || sale.estudio != offer.slug || sale.vista != offer.view.as_str() {
            return Err(Self::refuse(
                409,
                "pago_ya_usado",
                "Esta autorización de pago ya pagó otra compra; para comprar esto firme una nueva (nonce nuevo). Para recuperar aquella compra repita exactamente el mismo pedido.",
            ));
        }
        let check_ms = ms_since(started);
        let started = std::time::Instant::now();
        let body = self.produce(offer, requirements, &check.payer, now).await.map_err(|e| {
            tracing::error!(estudio = %offer.slug, "no se pudo armar la respuesta: {e:#}");
            Self::refuse(
                500,
                "error_interno",
                "No se pudo armar el estudio; su pago ya está registrado: repita el mismo pedido.",
            )
        })?;
        let produce_ms = ms_since(started);
        let body = self.with_payment(body, &sale.settlement);
        tracing::info!(target: "compras", estudio = %offer.slug, transaccion = %sale.settlement.transaction, "compra ya pagada entregada de nuevo, sin liquidar otra vez");
        self.journal_handed(
            &check.replay_key,
            Event::Reentregado(Handed { transaccion: sale.settlement.transaction.clone(), bytes: body.len() as u64 }),
        )
        .await;
        Ok(Delivery {
            body,
            settlement: sale.settlement.clone(),
            timing: Timing { check_ms, produce_ms, settle_ms: 0.0 },
        })
    }

    async fn journal_failure(&self, key: &str, refusal: &Refusal, uncertain: bool) {
        let failed = Failed { motivo: refusal.code.clone(), mensaje: refusal.message.clone(), incierto: uncertain };
        if let Err(e) = self.sales.write(key, now(), Event::Fallido(failed)).await {
            tracing::error!(compra = key, "diario de ventas: no se pudo registrar el fallo: {e}");
        }
    }

    async fn journal_handed(&self, key: &str, event: Event) {
        if let Err(e) = self.sales.write(key, now(), event).await {
            tracing::error!(compra = key, "diario de ventas: no se pudo registrar la entrega: {e}");
        }
    }

    /// Local verification (EVM) or the facilitator's `/verify` (other networks).
    async fn check(
        &self,
        requirements: &PaymentRequirements,
        payload: &PaymentPayload,
        now: u64,
    ) -> std::result::Result<Checked, Refusal> {
        if requirements.network.starts_with("eip155:") {
            let exact = parse_exact_payload(&payload.payload)
                .map_err(|e| Self::refuse(400, "invalid_payload", e.to_string()))?;
            let payer =
                check_exact(requirements, &exact, now).map_err(|e| Self::refuse(402, e.code(), e.to_string()))?;
            let auth = &exact.authorization;
            return Ok(Checked {
                payer: payer.to_checksum(None),
                replay_key: format!("{}|{:#x}|{:#x}", requirements.network, auth.from, auth.nonce),
                nonce: format!("{:#x}", auth.nonce),
                replay_until: auth.valid_before,
            });
        }
        let verified = self.facilitator.verify(payload, requirements).await.map_err(|e| facilitator_refusal(&e))?;
        if !verified.is_valid {
            let code = verified.invalid_reason.unwrap_or_else(|| "invalid_payload".to_owned());
            let message =
                verified.invalid_message.unwrap_or_else(|| format!("El facilitador rechazó el pago: {code}."));
            return Err(Self::refuse(402, &code, message));
        }
        let digest = Sha256::digest(payload.payload.to_string().as_bytes());
        Ok(Checked {
            payer: verified.payer.unwrap_or_default(),
            replay_key: format!("{}|{}", requirements.network, hex::encode(digest)),
            nonce: hex::encode(digest),
            replay_until: now + NON_EVM_REPLAY_SECONDS,
        })
    }

    /// Settles with the facilitator; only `success: true` for our network passes.
    async fn settle(
        &self,
        requirements: &PaymentRequirements,
        payload: &PaymentPayload,
    ) -> std::result::Result<SettlementResponse, Refusal> {
        let settlement = self.facilitator.settle(payload, requirements).await.map_err(|e| facilitator_refusal(&e))?;
        if !settlement.success {
            let code = settlement.error_reason.clone().unwrap_or_else(|| "unexpected_settle_error".to_owned());
            let mut refusal = Self::refuse(
                402,
                &code,
                format!("El facilitador no liquidó el pago ({code}); no se cobró nada y no se entrega el estudio."),
            );
            refusal.settlement = Some(settlement);
            return Err(refusal);
        }
        if !settlement.network.is_empty() && settlement.network != requirements.network {
            tracing::error!(red = %settlement.network, esperada = %requirements.network, "liquidación en otra red");
            let mut refusal = Self::refuse(
                502,
                "unexpected_settle_error",
                "El facilitador informó una liquidación en otra red; no se entrega el estudio. Escriba al contacto del servicio.",
            );
            refusal.settlement = Some(settlement);
            return Err(refusal);
        }
        Ok(settlement)
    }

    /// The response JSON, spliced around the view's file so large packages are not re-parsed.
    async fn produce(
        &self,
        offer: &Offer,
        requirements: &PaymentRequirements,
        payer: &str,
        now: u64,
    ) -> Result<Vec<u8>> {
        let content =
            tokio::fs::read(&offer.file).await.with_context(|| format!("no se pudo leer {}", offer.file.display()))?;
        let expires = self.links.expiry(now);
        let descargas: BTreeMap<&str, Value> = offer
            .downloads
            .iter()
            .map(|f| {
                let url = format!("{}{}", self.base_url, self.links.link(&f.name, expires));
                (
                    f.kind.as_str(),
                    json!({"url": url, "archivo": f.name, "tipo": f.tipo, "bytes": f.bytes, "sha256": f.sha256}),
                )
            })
            .collect();
        let head = json!({
            "estudio": offer.slug,
            "nombre": offer.name,
            "vista": offer.view,
            "acceso": {
                "descargas": descargas,
                "vence": iso8601(expires),
                "vence_unix": expires,
                "nota": format!("Enlaces firmados válidos por {} días para quien los tenga: trátelos como un secreto.", self.links.lifetime_seconds() / 86_400),
            },
            "pago": {"red": requirements.network, "pagador": payer, "monto": requirements.amount, "activo": requirements.asset},
        });
        let key = match offer.view {
            View::Resumen => "resumen",
            View::Completo => "paquete",
        };
        let mut out = serde_json::to_vec(&head)?;
        out.pop(); // the closing brace
        out.extend_from_slice(format!(",\"{key}\":").as_bytes());
        out.extend_from_slice(content.trim_ascii());
        out.push(b'}');
        Ok(out)
    }

    /// Adds the settlement transaction to the produced body (a small tail, no re-parse).
    fn with_payment(&self, mut body: Vec<u8>, settlement: &SettlementResponse) -> Bytes {
        if body.last() == Some(&b'}') {
            body.pop();
            let tail = json!({"transaccion": settlement.transaction, "red": settlement.network});
            body.extend_from_slice(b",\"liquidacion\":");
            body.extend_from_slice(tail.to_string().as_bytes());
            body.push(b'}');
        }
        Bytes::from(body)
    }
}

struct Checked {
    payer: String,
    replay_key: String,
    /// The authorization's nonce (non-EVM: the payload digest).
    nonce: String,
    replay_until: u64,
}

/// A facilitator that failed to answer: 503 when it could not be reached in time, 502 when it
/// answered something unusable.
fn facilitator_refusal(error: &FacilitatorError) -> Refusal {
    tracing::warn!("facilitador: {error}");
    let (status, code) = match error {
        FacilitatorError::Unreachable(_) | FacilitatorError::Timeout => (503, "facilitador_no_disponible"),
        FacilitatorError::Status { .. } | FacilitatorError::BadBody(_) => (502, "facilitador_con_error"),
    };
    Shop::refuse(
        status,
        code,
        format!(
            "No se pudo liquidar el pago ({error}); no se cobró nada y no se entrega el estudio. Puede reintentar con la misma firma mientras no venza."
        ),
    )
}

/// Length limits of a `payment-identifier` id (x402 `payment-identifier` extension).
const ID_CHARS: std::ops::RangeInclusive<usize> = 16..=128;

/// The buyer's idempotency key from the x402 `payment-identifier` extension, if sent.
pub fn payment_identifier(payload: &PaymentPayload) -> std::result::Result<Option<String>, String> {
    let Some(extension) = payload.extensions.as_ref().and_then(|e| e.get("payment-identifier")) else {
        return Ok(None);
    };
    let id = extension.pointer("/info/id").and_then(Value::as_str).ok_or_else(|| {
        "La extensión payment-identifier debe traer info.id (texto de 16 a 128 caracteres).".to_owned()
    })?;
    let valid_chars = id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ID_CHARS.contains(&id.len()) || !valid_chars {
        return Err(format!(
            "payment-identifier info.id debe tener de {} a {} caracteres (letras, dígitos, - o _); tiene {}.",
            ID_CHARS.start(),
            ID_CHARS.end(),
            id.chars().count()
        ));
    }
    Ok(Some(id.to_owned()))
}

/// sha256 of a payment payload as decoded: tells a repeated request from a different one.
pub fn fingerprint(payload: &PaymentPayload) -> String {
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    hex::encode(Sha256::digest(&bytes))
}
