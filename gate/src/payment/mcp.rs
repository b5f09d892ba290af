//! The MCP binding of the purchase: the tool `comprar_estudio`, following the x402 MCP
//! transport spec (`specs/transports-v2/mcp.md` of the x402 foundation) and MPP's JSON-RPC
//! transport (`draft-payment-transport-mcp-00`), over the shop's one purchase implementation.
//!
//! Without a payment the tool answers in the binding the request asks for ([`Bindings`]):
//! by default x402's tool-result binding, `isError: true` with the PaymentRequired object in
//! `structuredContent` and the identical JSON in `content[0].text`, MPP's challenges in
//! `_meta["org.paymentauth/payment-required"]`; x402's `org.x402/payment` extension
//! (`resultType: "payment_required"`) or MPP's JSON-RPC error `-32042` when a 2026-07-28
//! request declares them. The payment arrives as an object in `params._meta["x402/payment"]`
//! and goes to [`super::shop::Shop::purchase`] unchanged: the same checks, the same nonce
//! guard, the same settle-after-production as `GET /estudio/{slug}`. The MCP PaymentRequired
//! comes from the same [`Offer::payment_required`] as the HTTP one and differs only in
//! `resource` (it names the tool and the study), so the `accepted` a client echoes deep-equals
//! what the shop compares. A success carries the receipt in
//! `result._meta["x402/payment-response"]`; any refusal returns the PaymentRequired again with
//! `error`, and no study content, except an uncertain settlement, which is a plain tool error
//! telling the buyer to repeat the same call.
//!
//! An MPP credential arrives in `params._meta["org.paymentauth/credential"]`, is checked
//! against its challenge ([`Mpp::admit_value`]) and sold by the same shop; its receipt goes in
//! `result._meta["org.paymentauth/receipt"]`, a refusal is `-32043` with fresh challenges.
//!
//! A past buyer re-gets the study by signing the PaymentRequired's `sign-in-with-x` challenge
//! and sending the proof object in `params._meta["x402/sign-in-with-x"]` (the x402 MCP binding
//! carries extension payloads as objects under `x402/` keys; the header's base64 is taken too):
//! the same [`Shop::reaccess`] as the HTTP route's `SIGN-IN-WITH-X` header.

use std::net::IpAddr;

use contract::View;
use serde_json::{Map, Value, json};

use super::mpp::{self, Mpp, Problem};
pub use super::offer::BUY_TOOL;
use super::offer::{Binding, Offer, Offers};
use super::preferences::{AcceptPayment, Selection, taken};
use super::reaccess::{PROOF_META, Redelivery, proof_from_meta};
use super::refusal::Refusal;
use super::settlement::UNCERTAIN_CODE;
use super::shop::{Delivery, Shop};
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
    payment_required_shown(offer, error, &Selection::all(offer.required.accepts.len()))
}

/// [`payment_required`] with the requirements a buyer's preferences keep, in their order.
fn payment_required_shown(offer: &Offer, error: &str, selection: &Selection) -> Value {
    let mut required = offer.payment_required(Binding::Mcp, Some(error));
    if !selection.is_plain(required.accepts.len()) {
        required.accepts = selection.apply(&required.accepts);
    }
    serde_json::to_value(required).unwrap_or_else(|_| json!({}))
}

/// The payment-required tool result: `structuredContent` and `content[0].text` carry the
/// same object; a second text block says in words what to do.
fn payment_required_result(
    offer: &Offer,
    selection: &Selection,
    error: &str,
    message: &str,
    settlement: Option<&SettlementResponse>,
) -> Value {
    let required = payment_required_shown(offer, error, selection);
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
/// Where the MPP challenges go in a payment-required tool result (`{httpStatus, challenges}`),
/// which `mppx/mcp/client` reads beside the JSON-RPC error `-32042` form.
pub const MPP_REQUIRED_META: &str = "org.paymentauth/payment-required";
/// Where the MPP receipt goes in a paid result.
pub const MPP_RECEIPT_META: &str = "org.paymentauth/receipt";
/// x402's experimental MCP extension (MCP 2026-07-28 only): `resultType: "payment_required"`.
pub const X402_EXTENSION: &str = "org.x402/payment";
/// MPP over JSON-RPC (`draft-payment-transport-mcp-00`): payment required, with challenges.
pub const PAYMENT_REQUIRED_CODE: i64 = -32042;
/// MPP over JSON-RPC: a credential failed verification, with fresh challenges.
pub const VERIFICATION_FAILED_CODE: i64 = -32043;
/// JSON-RPC internal error: what MPP's transport uses for a payment processor failure.
const INTERNAL_ERROR_CODE: i64 = -32603;
/// JSON-RPC invalid params: a malformed credential.
const INVALID_PARAMS_CODE: i64 = -32602;

/// How a `tools/call` hears that payment is required, chosen per request.
///
/// Three bindings answer an unpaid `comprar_estudio`:
/// - x402's `org.x402/payment` extension (`resultType: "payment_required"`), only for a
///   2026-07-28 request whose client capabilities list it, as x402's transport requires;
/// - MPP's JSON-RPC error `-32042` (`data: {httpStatus, challenges, problem, x402}`), for a
///   2026-07-28 request whose client capabilities declare `experimental.payment` (the draft's
///   client capability);
/// - otherwise x402's tool-result binding (`isError: true` with the PaymentRequired), which
///   every older x402 client reads, with MPP's challenges in
///   `_meta["org.paymentauth/payment-required"]`, which `mppx/mcp/client` reads too. A
///   stateless server cannot see what an `initialize` declared, so a client of that era is
///   answered the way every client understands.
///
/// A request that carries an MPP credential speaks MPP whatever it declared: a refused one is
/// `-32043` with fresh challenges (`-32602` when it is malformed), as the draft says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bindings {
    /// The request lists `org.x402/payment` in its client capabilities' `extensions`.
    pub x402_extension: bool,
    /// The request declares `experimental.payment` in its client capabilities.
    pub mpp: bool,
}

impl Bindings {
    /// What a request declares in its client capabilities (`_meta`'s
    /// `io.modelcontextprotocol/clientCapabilities`); only a 2026-07-28 (`modern`) request
    /// carries them.
    pub fn of(modern: bool, capabilities: Option<&Value>) -> Bindings {
        if !modern {
            return Bindings::default();
        }
        let declared = |group: &str, name: &str| {
            capabilities.and_then(|c| c.get(group)).and_then(|g| g.get(name)).is_some_and(Value::is_object)
        };
        Bindings { x402_extension: declared("extensions", X402_EXTENSION), mpp: declared("experimental", "payment") }
    }
}

/// A JSON-RPC error the purchase answers with (MPP's `-32042` and `-32043`, invalid params,
/// internal error); the MCP server sends it with HTTP 200, as every error of a well-formed call.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>, data: Value) -> RpcError {
        RpcError { code, message: message.into(), data }
    }
}

/// What a purchase call came to, before it is dressed in one of the bindings.
enum Outcome {
    /// A finished tool result: the study, or a plain tool error.
    Done(Value),
    /// x402 payment required: none was sent (`unpaid`) or the one sent was refused.
    Required { error: String, message: String, settlement: Option<Box<SettlementResponse>>, unpaid: bool },
    /// An MPP credential refused at verification: fresh challenges (`-32043`).
    MppRefused { problem: Problem, code: String },
    /// A malformed payment (`-32602`).
    Invalid { detail: String, problem: Option<Problem> },
    /// The payment could not be finished now; the same credential may be sent again (`-32603`).
    Internal { status: u16, code: String, detail: String },
}

/// What a call says it can pay with: MPP's `Accept-Payment` grammar, in
/// `params._meta["org.paymentauth/accept-payment"]` (a string) or else in the HTTP request's
/// `Accept-Payment` header (`header`). A malformed value is ignored, as over HTTP.
pub fn preferences_of(meta: Option<&Value>, header: Option<&AcceptPayment>) -> Option<AcceptPayment> {
    match meta.and_then(|m| m.get(super::preferences::MCP_META)).and_then(Value::as_str) {
        Some(text) => AcceptPayment::parse(text.as_bytes()),
        None => header.cloned(),
    }
}

/// Runs `comprar_estudio` for a known slug and view, answering in the bindings the request
/// asks for ([`Bindings`]). MPP's challenges are offered beside x402's in every form, the
/// requirements and challenges those the buyer's `preferences` keep ([`preferences_of`]).
#[allow(clippy::too_many_arguments)]
pub async fn buy(
    offers: &Offers,
    shop: &Shop,
    mpp: Option<&Mpp>,
    client: Option<IpAddr>,
    slug: &str,
    view: View,
    meta: Option<&Value>,
    bindings: Bindings,
    preferences: Option<&AcceptPayment>,
) -> Result<Value, RpcError> {
    let offer = match offers.find(slug, Some(view.as_str())) {
        Ok(offer) => offer,
        Err(_) => {
            return Ok(
                ToolError::new("estudio_desconocido", format!("No hay una oferta para {slug} ({view}).")).result()
            );
        }
    };
    let outcome = buy_offer(offer, shop, mpp, client, meta).await;
    if matches!(outcome, Outcome::Required { .. } | Outcome::MppRefused { .. }) {
        // What an HTTP purchase answers with a 402, counted with them.
        shop.metrics().payment_required("/mcp");
    }
    let selection = Selection::of(&offer.required.accepts, preferences);
    render(offer, mpp, bindings, &selection, outcome)
}

/// Dresses an outcome in the binding the request asked for.
fn render(
    offer: &Offer,
    mpp: Option<&Mpp>,
    bindings: Bindings,
    selection: &Selection,
    outcome: Outcome,
) -> Result<Value, RpcError> {
    let challenges: Vec<Value> = mpp
        .map(|mpp| mpp.challenges_for(offer, selection).iter().map(mpp::challenge_json).collect())
        .unwrap_or_default();
    let offered = (!challenges.is_empty()).then(|| json!({"httpStatus": 402, "challenges": challenges}));
    match outcome {
        Outcome::Done(result) => Ok(result),
        Outcome::Required { error, message, settlement, unpaid } => {
            // Preferences that named nothing this offer takes: everything is offered, and the
            // answer says what it takes.
            let (error, message) = match (&selection.unmatched, unpaid) {
                (Some(preferences), true) => nothing_taken(offer, mpp.is_some(), preferences),
                _ => (error, message),
            };
            if bindings.x402_extension {
                let mut meta = Map::new();
                if let Some(settlement) = &settlement {
                    meta.insert(RECEIPT_META.to_owned(), json!(settlement));
                }
                if let Some(offered) = offered {
                    meta.insert(MPP_REQUIRED_META.to_owned(), offered);
                }
                let mut result = json!({"resultType": "payment_required",
                    "paymentRequired": payment_required_shown(offer, &error, selection)});
                if !meta.is_empty() {
                    result["_meta"] = Value::Object(meta);
                }
                return Ok(result);
            }
            if unpaid && bindings.mpp && offered.is_some() {
                let detail = match &selection.unmatched {
                    Some(_) => message.clone(),
                    None => format!(
                        "Pago requerido para {} (vista {}): firme uno de los desafíos (MPP, method=\"evm\" intent=\"charge\") o pague con x402 (data.x402).",
                        offer.slug,
                        offer.view.as_str()
                    ),
                };
                let problem = Problem::new("payment-required", detail);
                let mut error = mpp_error(
                    PAYMENT_REQUIRED_CODE,
                    "Payment Required",
                    offer,
                    selection,
                    challenges,
                    &problem,
                    &error,
                );
                if selection.unmatched.is_some() {
                    error.data["acepta"] = json!(taken(&offer.required.accepts, mpp.is_some()));
                }
                return Err(error);
            }
            let mut result = payment_required_result(offer, selection, &error, &message, settlement.as_deref());
            if let Some(offered) = offered {
                if !result["_meta"].is_object() {
                    result["_meta"] = json!({});
                }
                result["_meta"][MPP_REQUIRED_META] = offered;
            }
            Ok(result)
        }
        Outcome::MppRefused { problem, code } => {
            let error = format!("{code}: {}", problem.detail);
            Err(mpp_error(
                VERIFICATION_FAILED_CODE,
                "Payment Verification Failed",
                offer,
                selection,
                challenges,
                &problem,
                &error,
            ))
        }
        Outcome::Invalid { detail, problem } => {
            let mut data = json!({"detail": detail});
            if let Some(problem) = problem {
                data["problem"] = Value::Object(problem.members());
            }
            Err(RpcError::new(INVALID_PARAMS_CODE, format!("Invalid params: {detail}"), data))
        }
        Outcome::Internal { status, code, detail } => {
            let data = json!({"httpStatus": status, "error": code, "detail": detail});
            Err(RpcError::new(INTERNAL_ERROR_CODE, "Internal payment error", data))
        }
    }
}

/// MPP's `-32042` / `-32043`: the challenges, the problem, and x402's PaymentRequired beside
/// them (as `mppx`'s own server sends both protocols on one error).
fn mpp_error(
    code: i64,
    message: &str,
    offer: &Offer,
    selection: &Selection,
    challenges: Vec<Value>,
    problem: &Problem,
    x402_error: &str,
) -> RpcError {
    let mut data = json!({
        "httpStatus": 402,
        "challenges": challenges,
        "problem": Value::Object(problem.members()),
        "x402": payment_required_shown(offer, x402_error, selection),
    });
    if code == VERIFICATION_FAILED_CODE {
        data["failure"] = json!({"reason": problem.kind, "detail": problem.detail});
    }
    RpcError::new(code, message, data)
}

/// The `error` and words of an unpaid answer whose preferences named nothing the offer takes.
fn nothing_taken(offer: &Offer, offers_mpp: bool, preferences: &AcceptPayment) -> (String, String) {
    let takes = taken(&offer.required.accepts, offers_mpp);
    let names: Vec<&str> = takes.iter().filter_map(|t| t["medio"].as_str()).collect();
    let error = format!(
        "{}: Accept-Payment ({}) names nothing this study takes; it takes {}",
        super::http::NOTHING_TAKEN,
        preferences.as_str(),
        names.join(", ")
    );
    let message = format!(
        "Accept-Payment ({}) no nombra ningún medio de pago que este estudio acepte con q > 0; acepta {} (x402 v2 y MPP, USDC). Se ofrece todo lo que acepta. / It takes {}; everything it takes is offered.",
        preferences.as_str(),
        names.join(", "),
        names.join(", ")
    );
    (error, message)
}

/// An MPP purchase over MCP: the credential object checked against its challenge, then the
/// same purchase as x402's.
async fn buy_mpp(offer: &Offer, shop: &Shop, mpp: &Mpp, client: Option<IpAddr>, credential: &Value) -> Outcome {
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
            if problem.kind == "malformed-credential" {
                return Outcome::Invalid { detail: problem.detail.clone(), problem: Some(problem) };
            }
            return Outcome::MppRefused { code: problem.kind.to_owned(), problem };
        }
    };
    match shop.purchase_as(offer, &admitted.payload, Protocol::Mpp).await {
        Ok(delivery) => {
            let receipt = mpp::receipt_json(&delivery.settlement.transaction, mpp.now(), &admitted.challenge_id);
            let mut result = delivered(delivery);
            result["_meta"][MPP_RECEIPT_META] = receipt;
            Outcome::Done(result)
        }
        Err(refusal) => {
            shop.count_refused(client, &refusal);
            mpp_refusal(offer, &refusal)
        }
    }
}

/// A refused MPP purchase: verification failures get fresh challenges; a payment that may have
/// been charged, or is still being processed, never does (a new challenge could be paid twice).
fn mpp_refusal(offer: &Offer, refusal: &Refusal) -> Outcome {
    if let Some(result) = plain_error(offer, refusal) {
        return Outcome::Done(result);
    }
    match refusal.status {
        400 => Outcome::Invalid {
            detail: refusal.message.clone(),
            problem: Some(Problem::new("malformed-credential", refusal.message.clone())),
        },
        402 => Outcome::MppRefused {
            problem: Problem::new("verification-failed", refusal.message.clone()),
            code: refusal.code.clone(),
        },
        _ if refusal.code == "pago_ya_usado" => Outcome::MppRefused {
            problem: Problem::new("verification-failed", refusal.message.clone()),
            code: refusal.code.clone(),
        },
        status => Outcome::Internal { status, code: refusal.code.clone(), detail: refusal.message.clone() },
    }
}

async fn buy_offer(
    offer: &Offer,
    shop: &Shop,
    mpp: Option<&Mpp>,
    client: Option<IpAddr>,
    meta: Option<&Value>,
) -> Outcome {
    let payment = meta.and_then(|m| m.get(PAYMENT_META)).filter(|p| !p.is_null());
    let credential = meta.and_then(|m| m.get(MPP_CREDENTIAL_META)).filter(|c| !c.is_null());
    let unpaid =
        || Outcome::Required { error: FIRST_ERROR.to_owned(), message: String::new(), settlement: None, unpaid: true };
    if let (Some(mpp), Some(credential)) = (mpp, credential) {
        if payment.is_some() {
            let detail = "La llamada trae dos pagos (_meta[\"x402/payment\"] y _meta[\"org.paymentauth/credential\"]): envíe solo uno.";
            let problem = Problem { kind: "malformed-credential", status: 400, detail: detail.to_owned() };
            return Outcome::Invalid { detail: detail.to_owned(), problem: Some(problem) };
        }
        if let Err(refusal) = shop.admit(client) {
            return mpp_refusal(offer, &refusal);
        }
        return buy_mpp(offer, shop, mpp, client, credential).await;
    }
    let proof = meta.and_then(|m| m.get(PROOF_META)).filter(|p| !p.is_null());
    if payment.is_none() && proof.is_none() {
        return unpaid();
    }
    if let Err(refusal) = shop.admit(client) {
        return refusal_outcome(offer, &refusal);
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
            Ok(again) => return Outcome::Done(redelivered(again)),
            // A payment sent beside a failing sign-in goes ahead, as over HTTP.
            Err(refusal) if payment.is_some() => {
                tracing::debug!(estudio = %offer.slug, "sign-in-with-x rechazado ({}); sigue el pago", refusal.code);
            }
            Err(refusal) => {
                shop.count_refused(client, &refusal);
                return refusal_outcome(offer, &refusal);
            }
        }
    }
    let Some(payment) = payment else {
        return unpaid();
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
            return Outcome::Required { error, message, settlement: None, unpaid: false };
        }
    };
    match shop.purchase(offer, &payload).await {
        Ok(delivery) => Outcome::Done(delivered(delivery)),
        Err(refusal) => {
            shop.count_refused(client, &refusal);
            refusal_outcome(offer, &refusal)
        }
    }
}

/// A plain tool error where a new payment is the wrong move: the first payment may have been
/// charged (uncertain) or the buyer must wait (429). A client that saw a PaymentRequired or a
/// challenge might sign a new payment; a tool error says to wait or repeat the same call.
fn plain_error(offer: &Offer, refusal: &Refusal) -> Option<Value> {
    let code = match refusal.status {
        429 => "demasiados_intentos",
        _ if refusal.code == UNCERTAIN_CODE => UNCERTAIN_CODE,
        _ => return None,
    };
    Some(
        ToolError::new(code, refusal.message.clone())
            .with(json!({"estudio": offer.slug, "vista": offer.view, "reintentar_en_s": refusal.retry_after}))
            .result(),
    )
}

/// A refused x402 purchase: the PaymentRequired again with the reason, except where a new
/// payment is the wrong move.
fn refusal_outcome(offer: &Offer, refusal: &Refusal) -> Outcome {
    match plain_error(offer, refusal) {
        Some(result) => Outcome::Done(result),
        None => Outcome::Required {
            error: format!("{}: {}", refusal.code, refusal.message),
            message: refusal.message.clone(),
            settlement: refusal.settlement.clone(),
            unpaid: false,
        },
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
        "mpp": {
            "protocolo": "MPP (Machine Payments Protocol): method evm, intent charge, el mismo precio que x402",
            "desafio": format!("Sin pago, si el pedido (revisión 2026-07-28) declara experimental.payment en io.modelcontextprotocol/clientCapabilities: error JSON-RPC {PAYMENT_REQUIRED_CODE} con data.challenges (y el PaymentRequired de x402 en data.x402). Si no: los desafíos van en _meta[\"{MPP_REQUIRED_META}\"] del resultado de x402."),
            "credencial": format!("Repita la llamada con la credencial como objeto en params._meta[\"{MPP_CREDENTIAL_META}\"]; el recibo llega en _meta[\"{MPP_RECEIPT_META}\"]. Rechazada: error {VERIFICATION_FAILED_CODE} con desafíos nuevos; mal formada: -32602."),
            "cliente": "mppx/mcp/client (McpClient.wrap) con charge de mppx/evm/client",
        },
        "x402_extension": format!("Con la revisión 2026-07-28, un cliente que declara la extensión {X402_EXTENSION} en capabilities.extensions recibe resultType: \"payment_required\" con paymentRequired en lugar del resultado con isError."),
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
        let all = Selection::all(offer.required.accepts.len());
        let result =
            payment_required_result(&offer, &all, "insufficient_funds: sin saldo", "Sin saldo.", Some(&failed));
        assert_eq!(result["isError"], true);
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("json");
        assert_eq!(text, result["structuredContent"]);
        assert!(result["content"][1]["text"].as_str().is_some_and(|t| t.starts_with("Sin saldo.")));
        assert_eq!(result["_meta"][RECEIPT_META]["success"], false);
        assert!(payment_required_result(&offer, &all, "x", "", None).get("_meta").is_none());
    }
}
