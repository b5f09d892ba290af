//! The MCP binding of the purchase: the tool `comprar_estudio`, following the x402 MCP
//! transport spec (`specs/transports-v2/mcp.md` of the x402 foundation), over the shop's one
//! purchase implementation.
//!
//! Without a payment the tool answers `isError: true` with the PaymentRequired object in
//! `structuredContent` and the identical JSON in `content[0].text`. The payment arrives as an
//! object in `params._meta["x402/payment"]` and goes to [`super::shop::Shop::purchase`]
//! unchanged: the same checks, the same nonce guard, the same settle-after-production as
//! `GET /estudio/{slug}`. The MCP PaymentRequired comes from the same
//! [`Offer::payment_required`] as the HTTP one and differs only in `resource` (it names the
//! tool and the study), so the `accepted` a client echoes deep-equals what the shop compares. A success
//! carries the receipt in `result._meta["x402/payment-response"]`; any refusal returns the
//! PaymentRequired again with `error`, and no study content, except an uncertain settlement,
//! which is a plain tool error telling the buyer to repeat the same call.
//!
//! A past buyer re-gets the study by signing the PaymentRequired's `sign-in-with-x` challenge
//! and sending the proof object in `params._meta["x402/sign-in-with-x"]` (the x402 MCP binding
//! carries extension payloads as objects under `x402/` keys; the header's base64 is taken too):
//! the same [`Shop::reaccess`] as the HTTP route's `SIGN-IN-WITH-X` header.

use std::net::IpAddr;

use contract::View;
use serde_json::{Value, json};

use super::mpp::{self, Mpp};
pub use super::offer::BUY_TOOL;
use super::offer::{Binding, Offer, Offers};
use super::reaccess::{PROOF_META, Redelivery, proof_from_meta};
use super::settlement::UNCERTAIN_CODE;
use super::shop::{Delivery, Refusal, Shop};
use crate::mcp::result::{ToolError, success};
use crate::sales::journal::Protocol;
use crate::x402::SettlementResponse;
use crate::x402::header::payload_from_value;

/// Where the client puts the PaymentPayload object.
pub const PAYMENT_META: &str = "x402/payment";
/// Where the server puts the SettlementResponse.
pub const RECEIPT_META: &str = "x402/payment-response";
/// The view sold over MCP when none is asked: the summary keeps an agent's context small, and
/// the links reach the full package anyway.
pub const MCP_DEFAULT_VIEW: View = contract::mcp::DEFAULT_VIEW;
const FIRST_ERROR: &str = "Payment required: send a PaymentPayload object in params._meta[\"x402/payment\"]";

/// The MCP PaymentRequired of an offer, with `error`, as JSON.
pub fn payment_required(offer: &Offer, error: &str) -> Value {
    serde_json::to_value(offer.payment_required(Binding::Mcp, Some(error))).unwrap_or_else(|_| json!({}))
}

/// The payment-required tool result: `structuredContent` and `content[0].text` carry the
/// same object; a second text block says in words what to do.
fn payment_required_result(
    offer: &Offer,
    error: &str,
    message: &str,
    settlement: Option<&SettlementResponse>,
) -> Value {
    let required = payment_required(offer, error);
    let amount = offer.required.accepts.first().map(|a| a.amount.as_str()).unwrap_or_default();
    let hint = format!(
        "{message} Pago requerido: {amount} unidades de USDC por {} ({}). Firme una autorización EIP-3009 para una entrada de accepts y repita la llamada con params._meta[\"x402/payment\"] = PaymentPayload (objeto JSON) con accepted copiado sin cambios. No se cobró nada. Si esta billetera ya lo compró, firme el desafío de extensions[\"sign-in-with-x\"] y repita la llamada con params._meta[\"{PROOF_META}\"] = la prueba (objeto JSON): lo recibe de nuevo sin pagar.",
        offer.name, offer.slug
    );
    let mut result = json!({
        "content": [
            {"type": "text", "text": required.to_string()},
            {"type": "text", "text": hint.trim_start()},
        ],
        "structuredContent": required,
        "isError": true,
    });
    if let Some(settlement) = settlement {
        result["_meta"] = json!({RECEIPT_META: settlement});
    }
    result
}

/// Where an MPP client puts its credential (a JSON object), as `mppx/mcp/client` does.
pub const MPP_CREDENTIAL_META: &str = "org.paymentauth/credential";
/// Where the MPP challenges go in a payment-required result (`{httpStatus, challenges}`), which
/// `mppx/mcp/client` reads beside the JSON-RPC error `-32042` form.
pub const MPP_REQUIRED_META: &str = "org.paymentauth/payment-required";
/// Where the MPP receipt goes in a paid result.
pub const MPP_RECEIPT_META: &str = "org.paymentauth/receipt";

/// Runs `comprar_estudio` for a known slug and view. A payment-required result carries, beside
/// x402's PaymentRequired, fresh MPP challenges in `_meta["org.paymentauth/payment-required"]`.
pub async fn buy(
    offers: &Offers,
    shop: &Shop,
    mpp: Option<&Mpp>,
    client: Option<IpAddr>,
    slug: &str,
    view: View,
    meta: Option<&Value>,
) -> Value {
    let offer = match offers.find(slug, Some(view.as_str())) {
        Ok(offer) => offer,
        Err(_) => {
            return ToolError::new("estudio_desconocido", format!("No hay una oferta para {slug} ({view}).")).result();
        }
    };
    let mut result = buy_offer(offer, shop, mpp, client, meta).await;
    let payment_required = result["isError"] == true && result["structuredContent"]["accepts"].is_array();
    if let (Some(mpp), true) = (mpp, payment_required) {
        let challenges: Vec<Value> = mpp.challenges(offer).iter().map(mpp::challenge_json).collect();
        if !challenges.is_empty() {
            if !result["_meta"].is_object() {
                result["_meta"] = json!({});
            }
            result["_meta"][MPP_REQUIRED_META] = json!({"httpStatus": 402, "challenges": challenges});
        }
    }
    result
}

/// An MPP purchase over MCP: the credential object checked against its challenge, then the
/// same purchase as x402's.
async fn buy_mpp(offer: &Offer, shop: &Shop, mpp: &Mpp, client: Option<IpAddr>, credential: &Value) -> Value {
    let admitted = match mpp.admit_value(offer, credential) {
        Ok(admitted) => admitted,
        Err(problem) => {
            let refusal = Refusal {
                status: 402,
                code: problem.kind.to_owned(),
                message: problem.detail.clone(),
                settlement: None,
                retry_after: None,
            };
            shop.count_refused(client, &refusal);
            return payment_required_result(
                offer,
                &format!("{}: {}", problem.kind, problem.detail),
                &problem.detail,
                None,
            );
        }
    };
    match shop.purchase_as(offer, &admitted.payload, Protocol::Mpp).await {
        Ok(delivery) => {
            let receipt = mpp::receipt_json(&delivery.settlement.transaction, mpp.now(), &admitted.challenge_id);
            let mut result = delivered(delivery);
            result["_meta"][MPP_RECEIPT_META] = receipt;
            result
        }
        Err(refusal) => {
            shop.count_refused(client, &refusal);
            refusal_result(offer, &refusal)
        }
    }
}

async fn buy_offer(
    offer: &Offer,
    shop: &Shop,
    mpp: Option<&Mpp>,
    client: Option<IpAddr>,
    meta: Option<&Value>,
) -> Value {
    let payment = meta.and_then(|m| m.get(PAYMENT_META)).filter(|p| !p.is_null());
    let credential = meta.and_then(|m| m.get(MPP_CREDENTIAL_META)).filter(|c| !c.is_null());
    if let (Some(mpp), Some(credential)) = (mpp, credential) {
        if payment.is_some() {
            let message = "La llamada trae dos pagos (_meta[\"x402/payment\"] y _meta[\"org.paymentauth/credential\"]): envíe solo uno.";
            return payment_required_result(offer, &format!("credenciales_duplicadas: {message}"), message, None);
        }
        if let Err(refusal) = shop.admit(client) {
            return refusal_result(offer, &refusal);
        }
        return buy_mpp(offer, shop, mpp, client, credential).await;
    }
    let proof = meta.and_then(|m| m.get(PROOF_META)).filter(|p| !p.is_null());
    if payment.is_none() && proof.is_none() {
        return payment_required_result(offer, FIRST_ERROR, "", None);
    }
    if let Err(refusal) = shop.admit(client) {
        return refusal_result(offer, &refusal);
    }
    if let Some(proof) = proof {
        let outcome = match proof_from_meta(proof) {
            Ok(proof) => shop.reaccess(offer, &proof).await,
            Err(invalid) => Err(Refusal {
                status: 402,
                code: invalid.code.to_owned(),
                message: format!("_meta[\"{PROOF_META}\"]: {}", invalid.message),
                settlement: None,
                retry_after: None,
            }),
        };
        match outcome {
            Ok(again) => return redelivered(again),
            // A payment sent beside a failing sign-in goes ahead, as over HTTP.
            Err(refusal) if payment.is_some() => {
                tracing::debug!(estudio = %offer.slug, "sign-in-with-x rechazado ({}); sigue el pago", refusal.code);
            }
            Err(refusal) => {
                shop.count_refused(client, &refusal);
                return refusal_result(offer, &refusal);
            }
        }
    }
    let Some(payment) = payment else {
        return payment_required_result(offer, FIRST_ERROR, "", None);
    };
    let decoded = match payment {
        Value::Object(_) => payload_from_value(payment.clone()).map_err(|e| {
            let message = format!("_meta[\"x402/payment\"]: {e}.");
            (format!("{}: {message}", e.code()), message)
        }),
        _ => {
            let message = "_meta[\"x402/payment\"] debe ser un objeto JSON (el PaymentPayload), no un texto ni base64.";
            Err((format!("invalid_payload: {message}"), message.to_owned()))
        }
    };
    let payload = match decoded {
        Ok(payload) => payload,
        Err((error, message)) => {
            shop.count_refused(
                client,
                &Refusal {
                    status: 400,
                    code: error.clone(),
                    message: message.clone(),
                    settlement: None,
                    retry_after: None,
                },
            );
            return payment_required_result(offer, &error, &message, None);
        }
    };
    match shop.purchase(offer, &payload).await {
        Ok(delivery) => delivered(delivery),
        Err(refusal) => {
            shop.count_refused(client, &refusal);
            refusal_result(offer, &refusal)
        }
    }
}

/// The tool result of a refused purchase: the PaymentRequired again with the reason, except
/// where a new payment is the wrong move.
fn refusal_result(offer: &Offer, refusal: &Refusal) -> Value {
    // Not a PaymentRequired when the first payment may have been charged (uncertain) or the
    // buyer must wait (429): a client that sees one may sign a new payment. A tool error says so.
    let plain_error = match refusal.status {
        429 => Some("demasiados_intentos"),
        _ if refusal.code == UNCERTAIN_CODE => Some(UNCERTAIN_CODE),
        _ => None,
    };
    match plain_error {
        Some(code) => ToolError::new(code, refusal.message.clone())
            .with(json!({"estudio": offer.slug, "vista": offer.view, "reintentar_en_s": refusal.retry_after}))
            .result(),
        None => payment_required_result(
            offer,
            &format!("{}: {}", refusal.code, refusal.message),
            &refusal.message,
            refusal.settlement.as_deref(),
        ),
    }
}

/// The settled purchase: the same JSON the HTTP route answers, and the receipt in `_meta`.
fn delivered(delivery: Delivery) -> Value {
    let Delivery { body, settlement, .. } = delivery;
    let body = body.to_bytes();
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let text = String::from_utf8_lossy(&body).into_owned();
    let mut result = success(text, value);
    if result["structuredContent"].is_null()
        && let Some(map) = result.as_object_mut()
    {
        map.remove("structuredContent");
    }
    result["_meta"] = json!({RECEIPT_META: settlement});
    result
}

/// A study delivered again to a past buyer: the same JSON as a purchase, no receipt (nothing
/// was paid now; the body's `reacceso` names the sale).
fn redelivered(again: Redelivery) -> Value {
    let body = again.body.to_bytes();
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let text = String::from_utf8_lossy(&body).into_owned();
    let mut result = success(text, value);
    if result["structuredContent"].is_null()
        && let Some(map) = result.as_object_mut()
    {
        map.remove("structuredContent");
    }
    result
}

/// The MCP purchase steps, for `como_comprar`.
pub fn mcp_steps(base_url: &str) -> Value {
    json!({
        "servidor": format!("{base_url}/mcp"),
        "herramienta": BUY_TOOL,
        "pasos": [
            format!("1. Llame a {BUY_TOOL} {{slug, vista?}} sin pago: el resultado (isError: true) trae en structuredContent el PaymentRequired de x402 v2 (y el mismo JSON en content[0].text)."),
            "2. Elija una entrada de accepts y firme una autorización EIP-3009 por exactamente su amount a su payTo (un cliente x402 lo hace solo).",
            format!("3. Repita la misma llamada con params._meta[\"{PAYMENT_META}\"] = PaymentPayload como objeto JSON (no base64): x402Version 2, accepted copiado sin cambios y payload con signature y authorization."),
            format!("4. Al liquidarse recibe el estudio (vista {MCP_DEFAULT_VIEW} por defecto, completo con vista=completo) con enlaces firmados al paquete completo (JSON y ZIP); el recibo está en _meta[\"{RECEIPT_META}\"]."),
        ],
        "steps": [
            format!("1. Call {BUY_TOOL} {{slug, vista?}} without payment: the result (isError: true) carries the x402 v2 PaymentRequired in structuredContent (and the same JSON in content[0].text)."),
            "2. Pick one accepts entry and sign an EIP-3009 authorization for exactly its amount to its payTo.",
            format!("3. Call again with params._meta[\"{PAYMENT_META}\"] = the PaymentPayload as a JSON object (not base64), accepted copied unchanged."),
            format!("4. Once settled you get the study with signed links to the full package; the receipt is in _meta[\"{RECEIPT_META}\"]."),
        ],
        "si_falla": "Si la firma, el monto, la vigencia, el nonce o la liquidación fallan, vuelve el PaymentRequired con error y no se cobra ni se entrega nada.",
        "si_ya_compro": format!("Quien ya compró el estudio lo recibe de nuevo sin pagar: firme con la misma billetera el desafío de extensions[\"sign-in-with-x\"] del PaymentRequired (mensaje EIP-4361, como createSIWxPayload de @x402/extensions) y repita la llamada con params._meta[\"{PROOF_META}\"] = la prueba como objeto JSON. Cada desafío sirve una vez y vence a los 5 minutos."),
        "already_bought": format!("A past buyer gets the study again for free: sign the PaymentRequired's extensions[\"sign-in-with-x\"] challenge with the same wallet (EIP-4361, as @x402/extensions createSIWxPayload does) and call again with params._meta[\"{PROOF_META}\"] = the proof object. Each challenge is single-use and expires in 5 minutes."),
        "solo_catalogo": format!("{base_url}/mcp/catalogo tiene solo las herramientas gratuitas."),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payment::offer::tests::offer;

    #[test]
    fn the_mcp_payment_required_names_the_tool_and_keeps_the_accepts_verbatim() {
        let offer = offer();
        let required = payment_required(&offer, "motivo");
        assert_eq!(required["x402Version"], 2);
        assert_eq!(required["error"], "motivo");
        assert_eq!(required["resource"]["url"], "mcp://tool/comprar_estudio?slug=banca-2026&vista=resumen");
        assert_eq!(required["accepts"], json!(offer.accepts_json));
        let typed: crate::x402::PaymentRequired =
            serde_json::from_value(required).expect("a valid x402 v2 PaymentRequired");
        assert_eq!(typed.accepts, offer.required.accepts);
    }

    #[test]
    fn the_payment_required_result_mirrors_its_json_and_carries_a_failed_receipt() {
        let offer = offer();
        let failed = SettlementResponse::failure("eip155:84532", "insufficient_funds", None, None);
        let result = payment_required_result(&offer, "insufficient_funds: sin saldo", "Sin saldo.", Some(&failed));
        assert_eq!(result["isError"], true);
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("json");
        assert_eq!(text, result["structuredContent"]);
        assert!(result["content"][1]["text"].as_str().is_some_and(|t| t.starts_with("Sin saldo.")));
        assert_eq!(result["_meta"][RECEIPT_META]["success"], false);
        assert!(payment_required_result(&offer, "x", "", None).get("_meta").is_none());
    }
}
