//! Re-access for past buyers, with the x402 `sign-in-with-x` extension (SIWX).
//!
//! Why it exists: a purchase hands out download links that die after a week, and the payment
//! header is honoured only until its authorization expires (minutes). A buyer who comes back
//! later (an agent that lost its copy, a new machine) would have to pay again. With SIWX the
//! wallet that paid proves it holds the key, by signing the challenge every 402 declares, and
//! gets the study again with fresh links: no charge, no facilitator call, one `reacceso` line
//! in the journal. HTTP (`SIGN-IN-WITH-X` header) and MCP (`_meta["x402/sign-in-with-x"]`)
//! both call [`Shop::reaccess`]: one implementation, as for purchases.
//!
//! The challenge and the check of a signed answer are [`super::signin`]; what is kept here is
//! the use of a checked proof: the sale looked up, the proof taken for one use through the sales
//! record (which journals it, so a restart does not reopen the window, and which several gates
//! share), the study delivered again.
//!
//! Which view: the one asked. Both views cost the same and every purchase of either already
//! links the full JSON package and the ZIP, so a buyer of one view gets either view again.
//! Refusals are 402 with the requirements again (and a fresh challenge), as the official
//! server's hook answers: an official client then falls back to paying, which is right for a
//! wallet that never bought.

use serde_json::{Value, json};

use super::offer::Offer;
use super::receipt;
use super::refusal::Refusal;
use super::shop::Shop;
use super::study::Spliced;
use crate::sales::journal::{Event, Reaccess};
use crate::x402::siwx::{self, Invalid, Proof};
use crate::x402::{PaymentRequirements, SettlementResponse};

/// Where an MCP client puts the proof object (the x402 MCP binding's `_meta` prefix).
pub const PROOF_META: &str = "x402/sign-in-with-x";

/// A study delivered again to a past buyer.
#[derive(Debug, Clone)]
pub struct Redelivery {
    /// The same JSON a purchase answers, with a `reacceso` block.
    pub body: Spliced,
}

impl Shop {
    /// Delivers `offer` again to the wallet that signed `proof`, if it bought the study: the
    /// proof is checked ([`SignIn::check`]), the sale looked up, the proof taken for one use,
    /// the study produced with fresh links, and the `reacceso` journaled (on disk) before the
    /// answer. Nothing is charged and no facilitator is called.
    pub async fn reaccess(&self, offer: &Offer, proof: &Proof) -> Result<Redelivery, Refusal> {
        let now = self.clock().now();
        let Some(sign_in) = &offer.sign_in else {
            return Err(Refusal::new(
                402,
                "invalid_siwx_unsupported_chain",
                "Este estudio no se vende en una red EVM: no admite sign-in-with-x.",
            ));
        };
        let verified = sign_in.check(proof, now).map_err(|invalid| Refusal::new(402, invalid.code, invalid.message))?;
        let wallet = verified.address.to_checksum(None);
        let sales = self.sales();
        let unavailable = |e: std::io::Error| {
            tracing::error!("registro de ventas: no se pudo consultar el reacceso: {e}");
            Refusal::new(
                503,
                "diario_no_disponible",
                "No se pudo consultar el registro de ventas; no se entregó nada. Reintente en unos minutos con una firma nueva.",
            )
        };
        let bought = sales.purchase_of(&verified.chain, &wallet, &offer.slug, offer.view.as_str()).await;
        let Some(sale) = bought.map_err(unavailable)? else {
            return Err(Refusal::new(
                402,
                "sin_compra",
                format!(
                    "La billetera {wallet} no tiene una compra liquidada de {} en {}: la firma es válida, pero solo quien compró el estudio lo recibe de nuevo sin pagar. Para comprarlo, pague con x402.",
                    offer.slug, verified.chain
                ),
            ));
        };
        let claimed = sales.claim_sign_in(&verified.chain, &wallet, &verified.nonce, verified.until, now).await;
        let Some(claim) = claimed.map_err(unavailable)? else {
            return Err(Refusal::new(
                402,
                "prueba_ya_usada",
                "Esta firma de sign-in-with-x ya se usó (cada desafío sirve una vez): pida el estudio de nuevo para recibir un 402 con un nonce nuevo y firme ese.",
            ));
        };
        let Some(paid) = offer.required.accepts.iter().find(|a| a.network == sale.network) else {
            return Err(Refusal::new(402, "invalid_siwx_unsupported_chain", "Este estudio ya no se vende en esa red."));
        };
        let requirements = PaymentRequirements { amount: sale.amount.clone(), ..paid.clone() };
        let body = match self.produce(offer, &requirements, &wallet, now).await {
            Ok(body) => body,
            Err(e) => {
                tracing::error!(estudio = %offer.slug, "no se pudo armar la respuesta del reacceso: {e:#}");
                return Err(Refusal::new(
                    500,
                    "error_interno",
                    "No se pudo armar el estudio; intente de nuevo con una firma nueva.",
                ));
            }
        };
        let mut settlement = SettlementResponse::recorded(
            sale.network.clone(),
            sale.transaction.clone(),
            sale.payer.clone(),
            sale.amount.clone(),
        );
        if offer.view.as_str() == sale.view {
            // The sale's own signed receipt again, byte for byte (same fields, same time): a
            // buyer who lost it gets it back. A receipt is of the view bought, so asking for the
            // other view brings none.
            receipt::attach(&mut settlement, self.receipts(), offer, &requirements, sale.settled_at);
        }
        let block = json!({
            "compra": sale.purchase,
            "vista_comprada": sale.view,
            "transaccion": sale.transaction,
            "billetera": wallet,
            "nota": format!(
                "Entregado de nuevo sin cobro: la billetera firmó con sign-in-with-x y compró este estudio (transacción {}). Los enlaces son nuevos y valen {} días.",
                if sale.transaction.is_empty() { "sin registrar" } else { sale.transaction.as_str() },
                self.links().lifetime_seconds() / 86_400
            ),
        });
        let body = self.with_payment(body, &settlement).with_field("reacceso", block.to_string().as_bytes());
        let record = Reaccess {
            study: offer.slug.clone(),
            view: offer.view.as_str().to_owned(),
            network: verified.chain.clone(),
            payer: wallet.clone(),
            nonce: verified.nonce.clone(),
            valid_until: verified.until,
            transaction: sale.transaction.clone(),
            bytes: body.len() as u64,
        };
        if let Err(e) = sales.write(&sale.purchase, now, Event::Reaccess(record)).await {
            tracing::error!(compra = %sale.purchase, "diario de ventas: no se pudo registrar el reacceso: {e}");
            return Err(Refusal::new(
                503,
                "diario_no_disponible",
                "No se pudo registrar el reacceso; no se entregó nada. Reintente en unos minutos con una firma nueva.",
            ));
        }
        claim.commit();
        tracing::info!(target: "compras", compra = %sale.purchase, estudio = %offer.slug, vista = %offer.view, billetera = %wallet, "reacceso con sign-in-with-x");
        Ok(Redelivery { body })
    }
}

/// The proof an MCP client sent in `_meta["x402/sign-in-with-x"]`: the proof object (as the x402
/// MCP binding carries objects, not base64), or the `SIGN-IN-WITH-X` header value.
pub fn proof_from_meta(value: &Value) -> Result<Proof, Invalid> {
    match value {
        Value::String(header) => siwx::decode_header(header.as_bytes()),
        other => siwx::from_value(other.clone()),
    }
}
