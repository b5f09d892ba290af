//! Selling a study: the one implementation of the x402 purchase, shared by HTTP and MCP.
//!
//! The order is the one the x402 reference servers use (verify, produce, settle, release):
//! the `accepted` requirement must deep-equal one we offer; local checks (EVM: signature, recipient, exact amount, time window) run before
//! anything else; the nonce is reserved so the same authorization cannot be spent twice, even
//! concurrently; the whole response is produced in memory; only then is the facilitator asked
//! to settle, and only a `success: true` for our network naming a transaction releases the
//! study by itself. Anything else that might mean the money moved (a timeout, a pending
//! settlement, "nonce already used", a repeat of an uncertain purchase) releases it only with
//! proof from the chain ([`crate::chain`]): without it the purchase stays uncertain, and a
//! chain that proves the authorization can never pay (canceled, expired, used for another
//! payment) voids it. Every other path answers with the reason and delivers nothing, so nothing
//! is charged without delivery and nothing is delivered without settlement.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use bytes::Bytes;
use contract::View;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::identifiers::{fingerprint, payment_identifier};
use super::limits::Limiter;
use super::offer::Offer;
use super::proof::{self, Proof};
use super::receipt;
use super::refusal::{Refusal, facilitator_refusal, seen_refusal, too_many, void_refusal};
use super::settlement::{self, SETTLEMENT_PENDING, Settlement, UNCERTAIN_CODE, uncertain_message};
use super::study::{STUDY_MEMORY, Spliced, StudyFiles};
use crate::chain::signature::check_exact_on;
use crate::chain::{Audit, Chains, Verdict};
use crate::clock::{Clock, iso8601};
use crate::facilitator::Facilitator;
use crate::links::LinkSigner;
use crate::sales::journal::{Accepted, Event, Failed, Handed, Protocol, Reconciled, Settled};
use crate::sales::{Credited, PaidSale, Reservation, Sales, Seen, UncertainSale};
use crate::x402::evm::{Authorization, CheckError, SETTLE_BUFFER_SECONDS, parse_exact_payload};
use crate::x402::receipt::ReceiptKey;
use crate::x402::{PaymentPayload, PaymentRequirements, SettlementResponse};

/// How long a non-EVM payment stays in the replay set (Solana blockhash life, doubled).
const NON_EVM_REPLAY_SECONDS: u64 = 120;

/// A delivered purchase.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The response JSON: the study (or summary) with its access block, the study by reference.
    pub body: Spliced,
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

/// The shop: the facilitator, link signing, the receipt key and the sales record with its
/// replay guard. It sells any [`Offer`] it is handed; what is for sale lives in
/// [`super::offer::Offers`].
pub struct Shop {
    base_url: String,
    facilitator: Arc<dyn Facilitator>,
    links: LinkSigner,
    sales: Arc<Sales>,
    limiter: Arc<Limiter>,
    receipts: ReceiptKey,
    clock: Clock,
    /// Where a payment is proven when a facilitator's word is not enough.
    chains: Chains,
    /// The view files sold, kept in memory after their first sale.
    studies: StudyFiles,
}

impl Shop {
    /// A shop selling at `base_url` (the host of every signed link) through `facilitator`,
    /// recording every step in `sales`, turning away repeated failures with `limiter`,
    /// signing each sale's receipt with `receipts`, telling the time by `clock` and asking
    /// `chains` for proof when a settlement's outcome is not a plain success.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        base_url: &str,
        facilitator: Arc<dyn Facilitator>,
        links: LinkSigner,
        sales: Arc<Sales>,
        limiter: Arc<Limiter>,
        receipts: ReceiptKey,
        clock: Clock,
        chains: Chains,
    ) -> Shop {
        Shop {
            base_url: base_url.trim_end_matches('/').to_owned(),
            facilitator,
            links,
            sales,
            limiter,
            receipts,
            clock,
            chains,
            studies: StudyFiles::new(STUDY_MEMORY),
        }
    }

    /// The chains payments are proven on, shared with a reloaded shop.
    pub fn chains(&self) -> &Chains {
        &self.chains
    }

    /// The publisher's key that signs offers and receipts, kept across reloads.
    pub fn receipts(&self) -> &ReceiptKey {
        &self.receipts
    }

    /// The gate's clock, shared with a reloaded shop.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The counters of refused attempts, shared with a reloaded shop.
    pub fn limiter(&self) -> Arc<Limiter> {
        Arc::clone(&self.limiter)
    }

    /// Turns away, before anything is decoded, a client over its limit of refused attempts.
    pub fn admit(&self, client: Option<IpAddr>) -> std::result::Result<(), Refusal> {
        self.limiter.check_client(client, self.clock.now()).map_err(too_many)
    }

    /// Counts a refused attempt against its client when the refusal is the buyer's doing (a
    /// malformed or failing payment, a reused one), not the gate's or the facilitator's.
    pub fn count_refused(&self, client: Option<IpAddr>, refusal: &Refusal) {
        let buyers_doing = matches!(refusal.status, 400 | 402 | 409) && refusal.code != "pago_en_curso";
        if buyers_doing {
            self.limiter.refused_client(client, self.clock.now());
        }
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

    /// Runs a purchase of `offer` paid with `payload`.
    ///
    /// Every step is journaled (fsync'd) before the next: `aceptado` before settling,
    /// `liquidado` or `fallido` after, `entregado` before the body is handed back. A payment
    /// already paid (same authorization, or same `payment-identifier`) and repeated with the
    /// same payload for the same study is delivered again with fresh links and no settlement;
    /// one whose settlement was uncertain is settled again, and delivered if the money moved.
    pub async fn purchase(&self, offer: &Offer, payload: &PaymentPayload) -> Outcome {
        self.purchase_as(offer, payload, Protocol::X402).await
    }

    /// [`Shop::purchase`] of a payment that came by `protocol` (an MPP credential is decoded at
    /// the edge into the x402 payment it is, [`super::mpp`]); the protocol is journaled.
    pub async fn purchase_as(&self, offer: &Offer, payload: &PaymentPayload, protocol: Protocol) -> Outcome {
        let outcome = self.buy(offer, payload, protocol).await;
        self.metrics().purchase(outcome.as_ref().map(|_| ()).map_err(|r| (r.status, r.code == UNCERTAIN_CODE)));
        outcome
    }

    /// The metrics, kept with the sales record (so a reload keeps them).
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        self.sales.metrics()
    }

    async fn buy(&self, offer: &Offer, payload: &PaymentPayload, protocol: Protocol) -> Outcome {
        let now = self.clock.now();
        let requirements = accepted_requirement(offer, payload)?;
        let id =
            payment_identifier(payload).map_err(|message| Refusal::new(400, "invalid_payment_identifier", message))?;
        let fingerprint = fingerprint(payload);
        let started = std::time::Instant::now();
        let check = self.check(offer, requirements, payload, now).await?;
        // A new settlement costs a facilitator call: not for a payer or a gate over its budget
        // of refused ones. (Repeats are delivered all the same.) One to be sold is accepted with
        // its reservation, where the record can commit both at once.
        let limited = self.limiter.check_payer(&check.payer, now);
        let attempt = Attempt { offer, requirements, payload, check: &check, fingerprint, id, now, protocol };
        let with_reservation = limited.is_ok() && check.expiring.is_none() && self.sales.accepts_with_reservation();
        let accepted = with_reservation.then(|| Event::Accepted(attempt.accepted()));
        let reservation = match self
            .sales
            .reserve(&check.replay_key, attempt.id.as_deref(), &attempt.fingerprint, check.replay_until, now, accepted)
            .await
        {
            Ok(reservation) => {
                if let Some(expiring) = &check.expiring {
                    // Unknown to the record and too close to its end to settle: released.
                    return Err(expiring.clone());
                }
                if let Err(limited) = limited {
                    return Err(too_many(limited));
                }
                reservation
            }
            Err(Seen::Uncertain(doubt))
                if check.expiring.is_some()
                    && same_purchase(&doubt.fingerprint, &doubt.study, &doubt.view, &attempt.fingerprint, offer) =>
            {
                // Too late to settle it again, and the money may have moved: never "sign a new one".
                return Err(Refusal::new(
                    503,
                    UNCERTAIN_CODE,
                    "No se pudo confirmar la liquidación de este pago y la autorización vence en segundos: no se entrega el estudio ni se intenta cobrar de nuevo. No firme otro pago para esta compra: el editor la concilia con la cadena (gate ventas) y, si el pago se hizo, repetir este mismo pedido le entregará el estudio sin un segundo cobro. / Settlement could not be confirmed and the authorization is about to expire: do not sign a new payment; the publisher reconciles it with the chain.",
                ));
            }
            Err(Seen::Uncertain(doubt))
                if same_purchase(&doubt.fingerprint, &doubt.study, &doubt.view, &attempt.fingerprint, offer) =>
            {
                tracing::info!(target: "compras", compra = %check.replay_key, "pago con liquidación incierta repetido: se liquida de nuevo");
                self.sales.resume(&check.replay_key, check.replay_until, now).await.map_err(seen_refusal)?
            }
            Err(seen) => {
                return self.repeated(offer, requirements, &check, &attempt.fingerprint, seen, started, now).await;
            }
        };
        self.sell(attempt, reservation, started).await
    }

    /// Journals the acceptance, produces the study, settles, and delivers only what settled.
    async fn sell(&self, attempt: Attempt<'_>, reservation: Reservation, started: std::time::Instant) -> Outcome {
        let Attempt { offer, requirements, payload, check, now, .. } = attempt;
        let key = check.replay_key.as_str();
        // Committed with the reservation already, where the record could do both at once.
        let accepted = if reservation.accepted() {
            Ok(())
        } else {
            self.sales.write(key, now, Event::Accepted(attempt.accepted())).await
        };
        if let Err(e) = accepted {
            tracing::error!("diario de ventas: no se pudo registrar la compra aceptada: {e}");
            return Err(Refusal::new(
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
                let refusal = Refusal::new(
                    500,
                    "error_interno",
                    "No se pudo armar el estudio; no se cobró nada. Intente de nuevo.",
                );
                self.journal_failure(key, &refusal, None).await;
                return Err(refusal);
            }
        };
        let produce_ms = ms_since(started);
        let started = std::time::Instant::now();
        let outcome = self.settle(requirements, &offer.to_facilitator(payload)).await;
        let judged = self.judge(outcome, &reservation, check, requirements).await;
        if matches!(judged, Judged::Sold(_)) {
            self.sales.crash_point_before_record().await;
        }
        let (settlement, (settled_at, by)) =
            match self.record(key, offer, requirements, check, &reservation, judged).await {
                Judged::Sold(recorded) => recorded,
                Judged::Refused(refusal) => {
                    self.limiter.refused_settlement(&check.payer, now);
                    self.journal_failure(key, &refusal, None).await;
                    return Err(refusal);
                }
                Judged::Void(verdict) => {
                    let refusal = void_refusal(&verdict);
                    tracing::warn!(target: "compras", compra = key, "compra anulada: {}", verdict.void_reason());
                    self.limiter.refused_settlement(&check.payer, now);
                    self.journal_failure(key, &refusal, None).await;
                    let reconciled = Reconciled { settled_at: false, transaction: None, note: verdict.void_reason() };
                    if let Err(e) = self.sales.write(key, self.clock.now(), Event::Reconciled(reconciled)).await {
                        tracing::error!(compra = key, "diario de ventas: no se pudo registrar la anulación: {e}");
                    }
                    reservation.void(&verdict.void_reason());
                    return Err(refusal);
                }
                Judged::Uncertain { detail, transaction } => {
                    tracing::warn!(target: "compras", compra = key, "liquidación incierta: {detail}");
                    let refusal = Refusal::new(503, UNCERTAIN_CODE, uncertain_message(&detail));
                    let transaction = transaction.or_else(|| reservation.earlier_transaction().map(str::to_owned));
                    self.journal_failure(key, &refusal, Some(transaction.clone())).await;
                    reservation.uncertain(UncertainSale {
                        fingerprint: attempt.fingerprint.clone(),
                        study: offer.slug.clone(),
                        view: offer.view.as_str().to_owned(),
                        transaction,
                    });
                    self.sales.note_doubt();
                    return Err(refusal);
                }
            };
        let settle_ms = ms_since(started);
        self.sales.crash_point_after_settle().await;
        reservation.commit(PaidSale {
            purchase: key.to_owned(),
            fingerprint: attempt.fingerprint.clone(),
            study: offer.slug.clone(),
            view: offer.view.as_str().to_owned(),
            settlement: settlement.clone(),
            settled_at,
        });
        let body = self.with_payment(body, &settlement);
        self.journal_handed(
            key,
            Event::Delivered(Handed { transaction: settlement.transaction.clone(), bytes: body.len() as u64 }),
        )
        .await;
        // Checked once the delivery is journaled, so a dispute always follows it in the record.
        if let (SoldBy::Facilitator, Some(authorization)) = (by, &check.authorization) {
            self.audit_later(key, requirements, authorization, &settlement.transaction);
        }
        let timing = Timing { check_ms, produce_ms, settle_ms };
        Ok(Delivery { body, settlement, timing })
    }

    /// Records a judged sale: the transaction credited to it and its `liquidado` step
    /// journaled. A facilitator's success naming a transaction the record already credits to
    /// another purchase is not believed: the chain is asked instead (without one, the purchase
    /// is uncertain), as for any answer that is not a plain success. Other judgements pass
    /// through.
    async fn record(
        &self,
        key: &str,
        offer: &Offer,
        requirements: &PaymentRequirements,
        check: &Checked,
        reservation: &Reservation,
        judged: Judged<(SettlementResponse, SoldBy)>,
    ) -> Judged<(SettlementResponse, (u64, SoldBy))> {
        let (answer, by) = match judged {
            Judged::Sold(sold) => sold,
            Judged::Refused(refusal) => return Judged::Refused(refusal),
            Judged::Void(verdict) => return Judged::Void(verdict),
            Judged::Uncertain { detail, transaction } => return Judged::Uncertain { detail, transaction },
        };
        let transaction = answer.transaction.clone();
        match self.record_sale(key, offer, requirements, check, answer, by).await {
            Ok(recorded) => return Judged::Sold(recorded),
            Err(holder) => {
                tracing::error!(
                    target: "compras",
                    compra = key,
                    transaccion = %transaction,
                    otra_compra = %holder,
                    "el facilitador informó como liquidación de esta compra una transacción que ya pagó otra: no se le cree; decide la cadena"
                );
                self.metrics().credited_elsewhere();
            }
        }
        let detail = format!("el facilitador nombró la transacción {transaction}, que ya pagó otra compra");
        let doubt = Settlement::Uncertain { detail, transaction: None };
        match self.judge(doubt, reservation, check, requirements).await {
            Judged::Sold((answer, SoldBy::Recovery)) => {
                match self.record_sale(key, offer, requirements, check, answer, SoldBy::Recovery).await {
                    Ok(recorded) => Judged::Sold(recorded),
                    // Never: a sale the chain proved is recorded whoever holds the transaction.
                    Err(holder) => Judged::Uncertain {
                        detail: format!("la transacción ya pagó la compra {holder}"),
                        transaction: None,
                    },
                }
            }
            Judged::Sold((_, SoldBy::Facilitator | SoldBy::Confirmed)) => Judged::Uncertain {
                detail: "el facilitador nombró una transacción que ya pagó otra compra".into(),
                transaction: None,
            },
            Judged::Refused(refusal) => Judged::Refused(refusal),
            Judged::Void(verdict) => Judged::Void(verdict),
            Judged::Uncertain { detail, transaction } => Judged::Uncertain { detail, transaction },
        }
    }

    /// Journals a settled sale and returns the settlement the buyer gets, with its signed
    /// receipt, and the settlement's time as journaled (what the receipt states); or, for a
    /// facilitator's word whose transaction the record credits to another purchase, that
    /// purchase (nothing journaled).
    async fn record_sale(
        &self,
        key: &str,
        offer: &Offer,
        requirements: &PaymentRequirements,
        check: &Checked,
        answer: SettlementResponse,
        by: SoldBy,
    ) -> std::result::Result<(SettlementResponse, (u64, SoldBy)), String> {
        let recovered = by == SoldBy::Recovery;
        let network = if answer.network.is_empty() { requirements.network.clone() } else { answer.network.clone() };
        let payer = answer.payer.clone().filter(|p| !p.is_empty()).unwrap_or_else(|| check.payer.clone());
        let mut receipt = SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(payer.clone()),
            transaction: answer.transaction.clone(),
            network: network.clone(),
            amount: answer.amount.clone().or_else(|| Some(requirements.amount.clone())),
            extensions: answer.extensions.clone(),
        };
        if recovered {
            tracing::info!(target: "compras", compra = key, transaccion = %answer.transaction, "venta probada en la cadena: la autorización pagó el precio a payTo");
        } else {
            tracing::info!(target: "compras", compra = key, red = %network, transaccion = %receipt.transaction, "venta liquidada");
        }
        let settled = Settled { transaction: receipt.transaction.clone(), network, payer, recovered };
        let settled_at = self.clock.now();
        match self.sales.record_settlement(key, settled_at, settled, !recovered).await {
            Ok(Credited::Recorded) => {}
            Ok(Credited::Elsewhere(holder)) => return Err(holder),
            Err(e) => {
                // The money moved: deliver anyway, and say loudly what the journal misses.
                tracing::error!(compra = key, transaccion = %receipt.transaction, "diario de ventas: no se pudo registrar la liquidación: {e}");
            }
        }
        receipt::attach(&mut receipt, &self.receipts, offer, requirements, settled_at);
        Ok((receipt, (settled_at, by)))
    }

    /// A payment the book already knows: delivered again when it is the same payload for the
    /// same study and already paid; otherwise a conflict, and nothing is charged.
    #[allow(clippy::too_many_arguments)]
    async fn repeated(
        &self,
        offer: &Offer,
        requirements: &PaymentRequirements,
        check: &Checked,
        fingerprint: &str,
        seen: Seen,
        started: std::time::Instant,
        now: u64,
    ) -> Outcome {
        let sale = match seen {
            Seen::Paid(sale) if same_purchase(&sale.fingerprint, &sale.study, &sale.view, fingerprint, offer) => sale,
            // The buyer's payment-identifier names a paid purchase: the same payer retrying the
            // same study with a fresh authorization (as official clients retry) gets it again,
            // and the fresh authorization is never settled.
            Seen::IdPaid(sale) if same_buyer(&sale, &check.payer, offer) => sale,
            Seen::IdPaid(_) => return Err(seen_refusal(Seen::IdConflict)),
            other => return Err(seen_refusal(other)),
        };
        let check_ms = ms_since(started);
        let started = std::time::Instant::now();
        let body = self.produce(offer, requirements, &check.payer, now).await.map_err(|e| {
            tracing::error!(estudio = %offer.slug, "no se pudo armar la respuesta: {e:#}");
            Refusal::new(
                500,
                "error_interno",
                "No se pudo armar el estudio; su pago ya está registrado: repita el mismo pedido.",
            )
        })?;
        let produce_ms = ms_since(started);
        // The same receipt as the first answer: re-signed from the sale's own fields (a sale
        // restored from the journal after a restart has none in memory).
        let mut settlement = sale.settlement.clone();
        receipt::attach(&mut settlement, &self.receipts, offer, requirements, sale.settled_at);
        let body = self.with_payment(body, &settlement);
        tracing::info!(target: "compras", estudio = %offer.slug, transaccion = %settlement.transaction, "compra ya pagada entregada de nuevo, sin liquidar otra vez");
        self.journal_handed(
            &sale.purchase,
            Event::Redelivered(Handed { transaction: settlement.transaction.clone(), bytes: body.len() as u64 }),
        )
        .await;
        Ok(Delivery { body, settlement, timing: Timing { check_ms, produce_ms, settle_ms: 0.0 } })
    }

    async fn journal_failure(&self, key: &str, refusal: &Refusal, uncertain: Option<Option<String>>) {
        let failed = Failed {
            reason: refusal.code.clone(),
            message: refusal.message.clone(),
            uncertain: uncertain.is_some(),
            transaction: uncertain.flatten(),
        };
        if let Err(e) = self.sales.write(key, self.clock.now(), Event::Failed(failed)).await {
            tracing::error!(compra = key, "diario de ventas: no se pudo registrar el fallo: {e}");
        }
    }

    async fn journal_handed(&self, key: &str, event: Event) {
        if let Err(e) = self.sales.write_delivery(key, self.clock.now(), event).await {
            tracing::error!(compra = key, "diario de ventas: no se pudo registrar la entrega: {e}");
        }
    }

    /// Local verification (EVM) or the facilitator's `/verify` (other networks).
    async fn check(
        &self,
        offer: &Offer,
        requirements: &PaymentRequirements,
        payload: &PaymentPayload,
        now: u64,
    ) -> std::result::Result<Checked, Refusal> {
        if requirements.network.starts_with("eip155:") {
            let exact = parse_exact_payload(&payload.payload)
                .map_err(|e| Refusal::new(400, "invalid_payload", e.to_string()))?;
            let chain = self.chains.get(&requirements.network).map(|chain| chain.as_ref());
            let refuse = |e: CheckError| Refusal::new(e.status(), e.code(), e.to_string());
            // A window too close to its end is refused only once the record says the payment is
            // unknown: a repeat of a paid or uncertain one is answered by what the record holds.
            // Its signature is still checked, as of the last moment its window was open.
            let (payer, expiring) = match check_exact_on(chain, requirements, &exact, now).await {
                Ok(checked) => (checked.payer, None),
                Err(e @ CheckError::Expired { .. }) => {
                    let last_open = exact.authorization.valid_before.saturating_sub(SETTLE_BUFFER_SECONDS + 1);
                    let checked =
                        check_exact_on(chain, requirements, &exact, last_open.min(now)).await.map_err(refuse)?;
                    (checked.payer, Some(refuse(e)))
                }
                Err(e) => return Err(refuse(e)),
            };
            let auth = &exact.authorization;
            return Ok(Checked {
                payer: payer.to_checksum(None),
                replay_key: format!("{}|{:#x}|{:#x}", requirements.network, auth.from, auth.nonce),
                nonce: format!("{:#x}", auth.nonce),
                replay_until: auth.valid_before,
                authorization: Some(auth.clone()),
                expiring,
            });
        }
        let verified = self
            .facilitator
            .verify(&offer.to_facilitator(payload), requirements)
            .await
            .map_err(|e| facilitator_refusal(&e))?;
        if !verified.is_valid {
            let code = verified.invalid_reason.unwrap_or_else(|| "invalid_payload".to_owned());
            let message =
                verified.invalid_message.unwrap_or_else(|| format!("El facilitador rechazó el pago: {code}."));
            return Err(Refusal::new(402, &code, message));
        }
        // The payer is who a payment-identifier's re-delivery must match: a facilitator that
        // approves without naming one is not trusted with the sale (nothing is settled yet).
        let Some(payer) = verified.payer.filter(|p| !p.trim().is_empty()) else {
            tracing::warn!("facilitador: /verify aprobó un pago en {} sin nombrar al pagador", requirements.network);
            return Err(Refusal::new(
                502,
                "facilitador_con_error",
                "El facilitador aprobó el pago sin decir quién paga (payer); no se cobró nada y no se entrega el estudio. Reintente más tarde.",
            ));
        };
        let digest = Sha256::digest(payload.payload.to_string().as_bytes());
        Ok(Checked {
            payer,
            replay_key: format!("{}|{}", requirements.network, hex::encode(digest)),
            nonce: hex::encode(digest),
            replay_until: now + NON_EVM_REPLAY_SECONDS,
            authorization: None,
            expiring: None,
        })
    }

    /// Settles with the facilitator and says what the outcome means for the money. A
    /// `settlement_pending` answer naming a transaction is asked once more with the same
    /// payload (as the x402 reference servers do), so the facilitator can reconcile it; a
    /// second answer that is not a plain success keeps the pending transaction, for the chain
    /// to prove ("nonce used" then is likely our own broadcast, but only the chain can say).
    async fn settle(&self, requirements: &PaymentRequirements, payload: &PaymentPayload) -> Settlement {
        let started = std::time::Instant::now();
        let mut answer = self.facilitator.settle(payload, requirements).await;
        let pending_transaction = answer
            .as_ref()
            .ok()
            .filter(|a| !a.success && a.error_reason.as_deref() == Some(SETTLEMENT_PENDING))
            .map(|a| a.transaction.clone())
            .filter(|t| !t.is_empty());
        if pending_transaction.is_some() {
            answer = self.facilitator.settle(payload, requirements).await;
        }
        self.metrics().settled_in(started.elapsed());
        let outcome = match answer {
            Ok(answer) => settlement::from_answer(answer, &requirements.network),
            Err(error) => {
                tracing::warn!("facilitador: {error}");
                self.metrics().facilitator_error(error.kind());
                settlement::from_error(&error)
            }
        };
        match (outcome, pending_transaction) {
            (Settlement::NonceUsed(answer), Some(pending)) if answer.transaction.is_empty() => {
                Settlement::NonceUsed(SettlementResponse { transaction: pending, ..answer })
            }
            (Settlement::Uncertain { detail, transaction: None }, Some(pending)) => {
                Settlement::Uncertain { detail, transaction: Some(pending) }
            }
            (outcome, _) => outcome,
        }
    }

    /// What a settlement outcome means for this purchase, asking the chain when the
    /// facilitator's word is not a plain success naming a transaction.
    async fn judge(
        &self,
        outcome: Settlement,
        reservation: &Reservation,
        check: &Checked,
        requirements: &PaymentRequirements,
    ) -> Judged<(SettlementResponse, SoldBy)> {
        let (hint, detail) = match outcome {
            Settlement::Settled(answer) if !answer.transaction.is_empty() => {
                match self.confirm(check, requirements, &answer.transaction).await {
                    Confirmation::Confirmed => return Judged::Sold((answer, SoldBy::Confirmed)),
                    Confirmation::Unavailable => return Judged::Sold((answer, SoldBy::Facilitator)),
                    // Its transaction does not show this payment: what the facilitator said
                    // proves nothing, and the chain decides from the authorization itself.
                    Confirmation::Contradicted(why) => (
                        None,
                        format!(
                            "el facilitador informó éxito con la transacción {}, que no prueba esta compra: {why}",
                            answer.transaction
                        ),
                    ),
                }
            }
            Settlement::Settled(_) => (None, "el facilitador informó éxito sin nombrar la transacción".to_owned()),
            Settlement::Refused { status, code, message, answer } => {
                let refusal = Refusal { status, code, message, settlement: answer.map(Box::new), retry_after: None };
                if !reservation.resumed() {
                    return Judged::Refused(refusal);
                }
                // A repeat refused says nothing of the earlier, uncertain attempt (facilitators
                // check the window or the balance before the nonce, and a transfer mined behind
                // a timeout spent that balance): only the chain may. An authorization still
                // unused is no proof either: the earlier attempt's transaction may be pending.
                let hint = reservation.earlier_transaction().map(str::to_owned);
                let detail = format!("el facilitador respondió {} a la repetición de un pago incierto", refusal.code);
                return self.chain_judges(check, requirements, hint, detail, None).await;
            }
            Settlement::Reverted { refusal: (status, code, message), answer } => {
                // The facilitator's transaction reverted, most often on a nonce already used.
                let refusal = Refusal { status, code, message, settlement: None, retry_after: None };
                let hint = Some(answer.transaction.clone()).filter(|t| !t.is_empty());
                let detail = format!("la transacción del facilitador revirtió ({})", refusal.code);
                let unused = (!reservation.resumed()).then_some(refusal);
                return self.chain_judges(check, requirements, hint, detail, unused).await;
            }
            Settlement::NonceUsed(answer) => {
                // The authorization was used on chain: by an earlier attempt of this purchase,
                // by the payer cancelling it, or by anyone who submitted it first (EIP-3009
                // lets anyone). The chain says which. A use that paid payTo the price, for an
                // authorization no sale in the record holds (this reservation proves none
                // does), is this purchase's money: one sales record per payTo (README, "The
                // chain decides") makes that so.
                let hint = Some(answer.transaction.clone()).filter(|t| !t.is_empty());
                let reason = answer.error_reason.clone().unwrap_or_default();
                (hint, format!("el facilitador respondió {reason}: la autorización ya se usó en la cadena"))
            }
            Settlement::Uncertain { detail, transaction } => (transaction, detail),
        };
        let hint = hint.or_else(|| reservation.earlier_transaction().map(str::to_owned));
        self.chain_judges(check, requirements, hint, detail, None).await
    }

    /// Whether the chain shows a facilitator's success before the study leaves: its transaction
    /// used this authorization and paid payTo the price. A facilitator answers once the
    /// transaction is mined; the gate's RPC may be a block behind, so a transaction not found is
    /// asked again for a few seconds before it contradicts. Without a chain for the network, or
    /// when its RPC fails, the sale goes on the facilitator's word and is checked after the
    /// delivery ([`Self::audit_later`]).
    async fn confirm(&self, check: &Checked, requirements: &PaymentRequirements, transaction: &str) -> Confirmation {
        let (Some(chain), Some(authorization)) = (self.chains.get(&requirements.network), &check.authorization) else {
            return Confirmation::Unavailable;
        };
        let Some(expected) = proof::expected(requirements, authorization) else { return Confirmation::Unavailable };
        let mut wait = Duration::from_millis(250);
        let mut waited = Duration::ZERO;
        loop {
            match chain.audit(&expected, transaction).await {
                Ok(Audit::Confirmed) => return Confirmation::Confirmed,
                Ok(Audit::Wrong(why)) => return Confirmation::Contradicted(why),
                Ok(Audit::NotFound) if waited < CONFIRM_PATIENCE => {}
                Ok(Audit::NotFound) => {
                    return Confirmation::Contradicted(format!(
                        "la transacción no aparece en la cadena tras {} s",
                        waited.as_secs()
                    ));
                }
                Err(error) => {
                    tracing::warn!(target: "compras", transaccion = transaction, "no se pudo confirmar la venta en la cadena antes de entregar (se comprobará después): {error}");
                    return Confirmation::Unavailable;
                }
            }
            tokio::time::sleep(wait).await;
            waited += wait;
            wait = (wait * 2).min(Duration::from_secs(2));
        }
    }

    /// What the chain says of this purchase's authorization, looking first at `hint`: paid
    /// (sold, recovered), void (canceled, expired, used elsewhere), `if_unused` when it shows the
    /// authorization unused and that proves nothing moved, else uncertain with `detail`.
    async fn chain_judges(
        &self,
        check: &Checked,
        requirements: &PaymentRequirements,
        hint: Option<String>,
        detail: String,
        if_unused: Option<Refusal>,
    ) -> Judged<(SettlementResponse, SoldBy)> {
        let proof = match (self.chains.get(&requirements.network), &check.authorization) {
            (Some(chain), Some(authorization)) => match proof::expected(requirements, authorization) {
                Some(expected) => proof::look(chain.as_ref(), &expected, hint.as_deref()).await,
                None => Proof::Unknown("requisito ilegible para la cadena".to_owned()),
            },
            _ => Proof::NoChain,
        };
        match proof {
            Proof::Verdict(Verdict::Paid { transaction }) => {
                Judged::Sold((proven(check, requirements, transaction), SoldBy::Recovery))
            }
            Proof::Verdict(verdict) if verdict.proves_unpaid() => Judged::Void(verdict),
            Proof::Verdict(Verdict::Unused) if if_unused.is_some() => match if_unused {
                Some(refusal) => Judged::Refused(refusal),
                None => Judged::Uncertain { detail, transaction: hint },
            },
            Proof::NoChain => Judged::Uncertain { detail, transaction: hint },
            Proof::Verdict(verdict) => {
                Judged::Uncertain { detail: format!("{detail}; {}", verdict.void_reason()), transaction: hint }
            }
            Proof::Unknown(error) => {
                Judged::Uncertain { detail: format!("{detail}; no se pudo leer la cadena: {error}"), transaction: hint }
            }
        }
    }

    /// Checks a settled sale's transaction on chain after the answer left: a facilitator's
    /// success that did not pay payTo the price is journaled as disputed and logged as an error.
    fn audit_later(
        &self,
        key: &str,
        requirements: &PaymentRequirements,
        authorization: &Authorization,
        transaction: &str,
    ) {
        let Some(chain) = self.chains.get(&requirements.network) else { return };
        let Some(expected) = proof::expected(requirements, authorization) else { return };
        let handle = match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle,
            Err(_) => return,
        };
        handle.spawn(proof::audit(
            Arc::clone(chain),
            Arc::clone(&self.sales),
            self.clock.clone(),
            key.to_owned(),
            expected,
            transaction.to_owned(),
        ));
    }

    /// The response JSON, spliced around the view's file so large packages are not re-parsed.
    pub(super) async fn produce(
        &self,
        offer: &Offer,
        requirements: &PaymentRequirements,
        payer: &str,
        now: u64,
    ) -> Result<Spliced> {
        let expires = self.links.expiry(now);
        let downloads: BTreeMap<&str, Value> = offer
            .downloads
            .iter()
            .map(|f| {
                let url = format!("{}{}", self.base_url, self.links.link(&f.name, expires));
                (
                    f.kind.as_str(),
                    json!({"url": url, "archivo": f.name, "tipo": f.media_type, "bytes": f.bytes, "sha256": f.sha256}),
                )
            })
            .collect();
        let head = json!({
            "estudio": offer.slug,
            "nombre": offer.name,
            "vista": offer.view,
            "acceso": {
                "descargas": downloads,
                "vence": iso8601(expires),
                "vence_unix": expires,
                "nota": format!("Enlaces firmados válidos por {} días para quien los tenga: trátelos como un secreto.", self.links.lifetime_seconds() / 86_400),
            },
            "pago": {"red": requirements.network, "pagador": payer, "monto": requirements.amount, "activo": requirements.asset},
        });
        let key = match offer.view {
            View::Summary => "resumen",
            View::Full => "paquete",
        };
        let mut out = serde_json::to_vec(&head)?;
        out.pop(); // the closing brace
        out.extend_from_slice(format!(",\"{key}\":").as_bytes());
        let study = self.studies.get(&offer.file).await?;
        Ok(Spliced { head: Bytes::from(out), study, tail: b"}".to_vec() })
    }

    /// Adds the settlement transaction and the signed receipt to the produced answer (a small
    /// tail, no re-parse).
    pub(super) fn with_payment(&self, body: Spliced, settlement: &SettlementResponse) -> Spliced {
        let mut tail = json!({"transaccion": settlement.transaction, "red": settlement.network});
        if let Some(signed) = receipt::of(settlement) {
            tail["recibo"] = signed.clone();
        }
        body.with_field("liquidacion", tail.to_string().as_bytes())
    }
}

struct Checked {
    payer: String,
    replay_key: String,
    /// The authorization's nonce (non-EVM: the payload digest).
    nonce: String,
    replay_until: u64,
    /// The EIP-3009 authorization (EVM only): what the chain is asked about.
    authorization: Option<Authorization>,
    /// The refusal of an authorization too close to its end to settle, given only when the
    /// record does not know the payment (a known one is answered by its state).
    expiring: Option<Refusal>,
}

/// The offered requirement a payment's `accepted` deep-equals, or the refusal.
fn accepted_requirement<'a>(
    offer: &'a Offer,
    payload: &PaymentPayload,
) -> std::result::Result<&'a PaymentRequirements, Refusal> {
    offer
        .accepts_json
        .iter()
        .position(|a| *a == payload.accepted)
        .and_then(|index| offer.required.accepts.get(index))
        .ok_or_else(|| Refusal::new(
            402,
            "invalid_payment_requirements",
            "El requisito aceptado (accepted) no es idéntico a ninguno de los que ofrece este recurso: copie sin cambios una entrada de accepts del 402 (red, activo, monto, payTo, maxTimeoutSeconds y extra).",
        ))
}

/// Whether a known purchase is this very request: the same payload for the same offer.
fn same_purchase(known_fingerprint: &str, study: &str, view: &str, fingerprint: &str, offer: &Offer) -> bool {
    known_fingerprint == fingerprint && study == offer.slug && view == offer.view.as_str()
}

/// Whether a paid purchase was made by this payer for this offer.
fn same_buyer(sale: &PaidSale, payer: &str, offer: &Offer) -> bool {
    same_payer(sale.settlement.payer.as_deref(), payer) && sale.study == offer.slug && sale.view == offer.view.as_str()
}

/// Whether two payers are one: an unknown or empty payer matches no one, itself included.
fn same_payer(paid_by: Option<&str>, payer: &str) -> bool {
    let payer = payer.trim();
    paid_by.map(str::trim).is_some_and(|paid_by| !paid_by.is_empty() && paid_by.eq_ignore_ascii_case(payer))
}

/// How long a facilitator's transaction not yet seen by the gate's RPC is asked for before the
/// chain is taken to contradict it.
const CONFIRM_PATIENCE: Duration = Duration::from_secs(6);

/// What the chain says of a facilitator's success before the study leaves.
enum Confirmation {
    /// Its transaction used this authorization and paid payTo the price.
    Confirmed,
    /// It does not (why, in Spanish).
    Contradicted(String),
    /// No chain for the network, or its RPC failed: the facilitator's word, checked later.
    Unavailable,
}

/// Who established that the money moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SoldBy {
    /// Its word alone: a plain success naming a transaction (no chain could confirm it before
    /// the delivery; it is checked after).
    Facilitator,
    /// Its word, confirmed on chain before the delivery: its transaction paid with this
    /// authorization.
    Confirmed,
    /// The chain: the facilitator's answer left it open, and the authorization's transaction
    /// paid payTo the price.
    Recovery,
}

/// The settlement of a payment the chain proved, as the buyer's receipt states it.
fn proven(check: &Checked, requirements: &PaymentRequirements, transaction: String) -> SettlementResponse {
    SettlementResponse {
        success: true,
        error_reason: None,
        error_message: None,
        payer: Some(check.payer.clone()),
        transaction,
        network: requirements.network.clone(),
        amount: Some(requirements.amount.clone()),
        extensions: None,
    }
}

/// What a settlement outcome means once the chain had its say; `S` is what a sale carries
/// (judged: the settlement and who proved it; recorded: also when it was journaled).
enum Judged<S> {
    Sold(S),
    /// Refused for certain by the facilitator: nothing moved.
    Refused(Refusal),
    /// The chain proves this authorization never paid and never will.
    Void(Verdict),
    /// The money may have moved: no study, kept to reconcile.
    Uncertain {
        detail: String,
        transaction: Option<String>,
    },
}

/// One attempt to sell, with everything its steps need.
struct Attempt<'a> {
    offer: &'a Offer,
    requirements: &'a PaymentRequirements,
    payload: &'a PaymentPayload,
    check: &'a Checked,
    fingerprint: String,
    id: Option<String>,
    now: u64,
    protocol: Protocol,
}

impl Attempt<'_> {
    /// The `aceptado` step of this attempt.
    fn accepted(&self) -> Accepted {
        Accepted {
            study: self.offer.slug.clone(),
            view: self.offer.view.as_str().to_owned(),
            network: self.requirements.network.clone(),
            payer: self.check.payer.clone(),
            nonce: self.check.nonce.clone(),
            amount: self.requirements.amount.clone(),
            asset: self.requirements.asset.clone(),
            pay_to: self.requirements.pay_to.clone(),
            valid_until: self.check.replay_until,
            valid_from: self.check.authorization.as_ref().map_or(0, |a| a.valid_after),
            fingerprint: self.fingerprint.clone(),
            identifier: self.id.clone(),
            protocol: self.protocol,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_unknown_payer_is_never_the_same_buyer() {
        let payer = "0x857b06519E91e3A54538791bDbb0E22373e36b66";
        assert!(same_payer(Some(payer), &payer.to_ascii_lowercase()), "EVM addresses in any case");
        assert!(!same_payer(Some(payer), "0x0000000000000000000000000000000000000001"));
        for (paid_by, asking) in [(Some(""), ""), (None, ""), (Some(" "), " "), (Some(""), payer), (None, payer)] {
            assert!(!same_payer(paid_by, asking), "{paid_by:?} against {asking:?}");
        }
    }
}
