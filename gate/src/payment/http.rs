//! The HTTP binding of the purchase: `GET /estudio/{slug}?vista=`.
//!
//! Without `PAYMENT-SIGNATURE` the route answers 402 with the offer's `PAYMENT-REQUIRED`
//! header, what a client reads to pay ([`for_header`]), and the whole object, discovery
//! included, in the body field `x402` (or, for a browser, the study's HTML 402 page with the
//! same header); so does `HEAD`, with or without a payment. With one on a
//! `GET`, it decodes the header and hands the payment to
//! [`Shop::purchase`], the same implementation the MCP tool uses, then answers 200 with the
//! study and `PAYMENT-RESPONSE`, or the refusal with its reason. With `SIGN-IN-WITH-X` (a past
//! buyer's signed sign-in, x402 `sign-in-with-x`) it hands the proof to [`Shop::reaccess`] and
//! answers the study again, or the refusal; a proof that fails beside a payment lets the
//! payment go ahead, as the official server does. The unpaid answers change only in their
//! sign-in challenge while a `dist/` is loaded, so they are built once, at load, and each is
//! sent with a challenge of its own ([`super::unpaid`]). Every 402 also carries fresh MPP
//! challenges (`WWW-Authenticate: Payment`); an `Authorization: Payment` credential is checked by
//! [`super::mpp`] and sold by the same shop, answered with `Payment-Receipt` or an RFC 9457
//! problem; both protocols' credentials in one request get 400. MPP's `Accept-Payment` filters
//! and orders every 402's x402 requirements and MPP challenges ([`super::preferences`]); the
//! prepared unpaid 402 is sent when it changes nothing, the filtered one is built whole.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use contract::{Price, View};
use http::{HeaderValue, Method};
use serde_json::{Value, json};

use super::mpp::{self, Mpp, Problem};
use super::offer::{Binding, Offer, OfferError, Offers, for_header};
use super::preferences::{AcceptPayment, Selection, taken};
use super::refusal::Refusal;
use super::settlement::UNCERTAIN_CODE;
use super::shop::Shop;
use super::signin::Challenge;
use super::unpaid::Fillable;
use crate::manifest::{self, Manifest};
use crate::sales::journal::Protocol;
use crate::x402::PaymentRequired;
use crate::x402::header::{decode_payment_signature, encode_json};
use crate::x402::siwx;
use gate_http::Request;
use gate_http::pages::{HTML, prefers_html};
use gate_http::response::{Body, IntoHeaderValue, JSON, Reply};

/// RFC 9457 problem bodies (MPP refusals).
const PROBLEM_JSON: &str = "application/problem+json";

/// The `error` of an unpaid 402, as the x402 reference servers word it.
const HEADER_REQUIRED: &str = "PAYMENT-SIGNATURE header is required";

/// What a 402 varies by: the page or JSON (`Accept`) and the requirements shown
/// (`Accept-Payment`).
const VARY: &str = "Accept, Accept-Payment";
/// What a paid or personal answer (a study delivered, a sign-in) tells every cache: only the
/// buyer's own client may keep it, and not on disk (a front or CDN never stores it).
const PERSONAL: &str = "private, no-store";

/// The code of an unpaid 402 whose `Accept-Payment` named nothing the store takes.
pub const NOTHING_TAKEN: &str = "medio_de_pago_no_aceptado";

/// The 402 answers of every offer, worked out at load.
#[derive(Debug, Default)]
pub struct Storefront {
    /// The unpaid answers of each offer, by slug then view.
    unpaid: BTreeMap<String, BTreeMap<View, Unpaid>>,
    /// The HTML 402 page of each study, as the generator rendered it.
    payment_pages: BTreeMap<String, Bytes>,
    /// The service index's "how to buy" block, repeated in every 402 body.
    /// Each study's "how to buy" block (its sheet's), by slug.
    how_to_buy: BTreeMap<String, Value>,
    /// The MPP challenges appended to every 402 (`None`: x402 only).
    mpp: Option<Mpp>,
}

/// One offer's unpaid 402, for agents and for browsers, each with a fresh challenge per
/// request (`None`: built whole per request, as a refusal is).
#[derive(Debug)]
struct Unpaid {
    json: Option<Fillable>,
    /// The same 402 for a browser: the study's HTML page with the same `PAYMENT-REQUIRED`.
    html: Option<Fillable>,
}

impl Storefront {
    /// Reads each study's HTML 402 page and builds every unpaid answer.
    pub fn load(
        dist: &Path,
        manifest: &Manifest,
        offers: &Offers,
        how_to_buy: BTreeMap<String, Value>,
    ) -> Result<Storefront> {
        let mut front =
            Storefront { payment_pages: load_payment_pages(dist, manifest)?, how_to_buy, ..Default::default() };
        front.refresh(offers);
        Ok(front)
    }

    /// Offers MPP beside x402 on every 402 of this storefront.
    pub fn with_mpp(mut self, mpp: Mpp) -> Storefront {
        self.mpp = Some(mpp);
        self
    }

    /// x402 only: no MPP challenge on any 402 (the benchmarks' reference).
    pub fn without_mpp(mut self) -> Storefront {
        self.mpp = None;
        self
    }

    /// The MPP challenges this storefront offers, if any.
    pub fn mpp(&self) -> Option<&Mpp> {
        self.mpp.as_ref()
    }

    /// Appends the offer's fresh MPP challenges (`WWW-Authenticate: Payment`) to a 402, those
    /// the buyer's preferences keep, in their order.
    fn challenged(&self, offer: &Offer, selection: &Selection, reply: Reply) -> Reply {
        if reply.status != 402 {
            return reply;
        }
        match self.mpp_challenges(offer, selection) {
            Some((name, value)) => reply.with_header(name, value),
            None => reply,
        }
    }

    /// The `WWW-Authenticate` header of fresh MPP challenges for a 402 of this offer, when MPP
    /// is on.
    fn mpp_challenges(&self, offer: &Offer, selection: &Selection) -> Option<(&'static str, HeaderValue)> {
        let value = self.mpp.as_ref()?.www_authenticate_for(offer, selection)?;
        Some(("WWW-Authenticate", value.into_header_value()))
    }

    /// Builds the unpaid answers again (the offers changed: Solana fee payers were applied).
    pub fn refresh(&mut self, offers: &Offers) {
        let mut unpaid: BTreeMap<String, BTreeMap<View, Unpaid>> = BTreeMap::new();
        let placeholder = Challenge::placeholder();
        for offer in offers.iter() {
            let required = offer.payment_required_with(Binding::Http, Some(HEADER_REQUIRED), Some(&placeholder));
            let json = self.reply_with(offer, None, &required).with_header("Vary", VARY);
            let html = self.payment_pages.get(&offer.slug).map(|page| html_payment_reply(&json, page.clone()));
            // Sent to every unpaid request with only the challenge changed: their bytes are
            // written once, here.
            let encoded = serde_json::to_vec(&for_header(&required)).unwrap_or_default();
            let signs_in = offer.sign_in.is_some();
            let filled = |reply: Reply, in_body: bool| Fillable::new(reply, encoded.clone(), signs_in, in_body);
            let (json, html) = (filled(json, true), html.and_then(|html| filled(html, false)));
            if json.is_none() {
                tracing::warn!(estudio = %offer.slug, "el 402 sin pago se arma entero en cada pedido");
            }
            unpaid.entry(offer.slug.clone()).or_default().insert(offer.view, Unpaid { json, html });
        }
        self.unpaid = unpaid;
    }

    /// The unpaid 402 of an offer, with a fresh challenge: HTML for a browser, JSON for
    /// everyone else; the requirements and challenges those the buyer's preferences keep.
    fn unpaid_reply(&self, offer: &Offer, accept: Option<&[u8]>, selection: &Selection) -> Reply {
        let unpaid = self.unpaid.get(&offer.slug).and_then(|views| views.get(&offer.view));
        let wants_html = prefers_html(accept) && self.payment_pages.contains_key(&offer.slug);
        let prepared = match unpaid {
            Some(unpaid) if wants_html => unpaid.html.as_ref(),
            Some(unpaid) => unpaid.json.as_ref(),
            None => None,
        };
        let challenge = offer.sign_in.as_ref().map(|s| s.challenge()).unwrap_or_else(Challenge::placeholder);
        let plain = selection.is_plain(offer.required.accepts.len());
        if let (Some(prepared), true) = (prepared, plain) {
            return prepared.fill(&challenge, self.mpp_challenges(offer, selection));
        }
        let required =
            shown(offer.payment_required_with(Binding::Http, Some(HEADER_REQUIRED), Some(&challenge)), selection);
        let json = match &selection.unmatched {
            Some(preferences) => self.nothing_taken_reply(offer, preferences, &required),
            None => self.reply_with(offer, None, &required),
        }
        .with_header("Vary", VARY);
        let reply = match self.payment_pages.get(&offer.slug) {
            Some(page) if wants_html => html_payment_reply(&json, page.clone()),
            _ => json,
        };
        self.challenged(offer, selection, reply)
    }

    /// The unpaid 402 for preferences that named nothing this offer takes: everything it
    /// offers (the draft lets a server ignore such a header), and what it takes, in words
    /// (Spanish, then English) and as `method/intent` names.
    fn nothing_taken_reply(&self, offer: &Offer, preferences: &AcceptPayment, required: &PaymentRequired) -> Reply {
        let takes = taken(&offer.required.accepts, self.mpp.is_some());
        let names: Vec<&str> = takes.iter().filter_map(|t| t["medio"].as_str()).collect();
        let body = json!({
            "error": NOTHING_TAKEN,
            "mensaje": format!(
                "Accept-Payment ({}) no nombra ningún medio de pago que este estudio acepte con q > 0. Acepta: {} (x402 v2 y MPP, USDC). Se ofrece todo lo que acepta; pague con uno de los requisitos de x402.accepts o con un desafío de WWW-Authenticate.",
                preferences.as_str(),
                names.join(", ")
            ),
            "message": format!(
                "Accept-Payment ({}) names no payment method this study takes with q > 0. It takes: {} (x402 v2 and MPP, USDC). Everything it takes is offered: pay with one of x402.accepts or a WWW-Authenticate challenge.",
                preferences.as_str(),
                names.join(", ")
            ),
            "acepta": takes,
            "estudio": offer.slug,
            "vista": offer.view,
            "x402": required,
            "como_comprar": self.how_to_buy_of(offer),
        });
        Reply::json(402, &body)
            .with_header("Cache-Control", "no-store")
            .with_header("PAYMENT-REQUIRED", payment_required_header(required))
    }

    /// A 402 (or the refusal's status) with `PAYMENT-REQUIRED` and the whole object in the body.
    fn refusal_reply(&self, offer: &Offer, selection: &Selection, refusal: Option<&Refusal>) -> Reply {
        let code = refusal.map_or(HEADER_REQUIRED, |r| r.code.as_str());
        let required = shown(offer.payment_required(Binding::Http, Some(code)), selection);
        let reply = self.reply_with(offer, refusal, &required);
        self.challenged(offer, selection, reply)
    }

    /// An MPP refusal: the problem (RFC 9457) with the gate's own fields and the x402 offer as
    /// extension members, `PAYMENT-REQUIRED` and, on a 402, fresh MPP challenges.
    fn problem_reply(&self, offer: &Offer, selection: &Selection, problem: &Problem, code: Option<&str>) -> Reply {
        let required = shown(offer.payment_required(Binding::Http, Some(code.unwrap_or(problem.kind))), selection);
        let mut body = problem.members();
        body.insert("error".into(), json!(code.unwrap_or(problem.kind)));
        body.insert("mensaje".into(), json!(problem.detail));
        body.insert("estudio".into(), json!(offer.slug));
        body.insert("vista".into(), json!(offer.view));
        if problem.status == 402 {
            body.insert("x402".into(), serde_json::to_value(&required).unwrap_or(Value::Null));
            body.insert("como_comprar".into(), self.how_to_buy_of(offer));
        }
        let bytes = serde_json::to_vec(&Value::Object(body)).unwrap_or_default();
        let reply = Reply::new(problem.status, PROBLEM_JSON, Body::Bytes(Bytes::from(bytes)))
            .with_header("Cache-Control", "no-store")
            .with_header("PAYMENT-REQUIRED", payment_required_header(&required));
        self.challenged(offer, selection, reply)
    }

    /// The study's "how to buy" block, with its own price.
    fn how_to_buy_of(&self, offer: &Offer) -> Value {
        self.how_to_buy.get(&offer.slug).cloned().unwrap_or(Value::Null)
    }

    /// [`Storefront::refusal_reply`] for a given 402 object.
    fn reply_with(&self, offer: &Offer, refusal: Option<&Refusal>, required: &PaymentRequired) -> Reply {
        let (status, code, message) = match refusal {
            Some(r) => (r.status, r.code.as_str(), r.message.clone()),
            None => (402, "pago_requerido", unpaid_message(offer)),
        };
        let mut body = json!({
            "error": code,
            "mensaje": message,
            "estudio": offer.slug,
            "vista": offer.view,
            "x402": required,
            "como_comprar": self.how_to_buy_of(offer),
        });
        if code == UNCERTAIN_CODE || status == 429 {
            // No payment requirements: the buyer must repeat this request (uncertain) or wait
            // (429), not sign a new payment.
            body = json!({"error": code, "mensaje": message, "estudio": offer.slug, "vista": offer.view});
        }
        let mut reply = Reply::json(status, &body).with_header("Cache-Control", "no-store");
        if status == 402 || status == 400 {
            reply = reply.with_header("PAYMENT-REQUIRED", payment_required_header(required));
        }
        if let Some(settlement) = refusal.and_then(|r| r.settlement.as_deref()) {
            reply = reply.with_header("PAYMENT-RESPONSE", encode_json(settlement));
        }
        if let Some(seconds) = refusal.and_then(|r| r.retry_after) {
            reply = reply.with_header("Retry-After", seconds.to_string());
        }
        reply
    }
}

/// A 402 object with the requirements a buyer's preferences keep, in their order.
fn shown(mut required: PaymentRequired, selection: &Selection) -> PaymentRequired {
    if !selection.is_plain(required.accepts.len()) {
        required.accepts = selection.apply(&required.accepts);
    }
    required
}

/// The `PAYMENT-REQUIRED` value of a 402 object: base64 of its header form.
fn payment_required_header(required: &PaymentRequired) -> String {
    encode_json(&for_header(required))
}

/// What an unpaid 402 says in words.
fn unpaid_message(offer: &Offer) -> String {
    let price = offer.required.accepts.first().and_then(|a| Price::from_atomic_str(&a.amount));
    format!(
        "Este estudio cuesta {} USDC. Pague con x402 v2: firme uno de los requisitos de x402.accepts y repita el pedido con el encabezado PAYMENT-SIGNATURE.",
        price.map(Price::usd).unwrap_or_default()
    )
}

/// What `GET /estudio/{slug}?vista=` asks for, from the request line and headers.
pub struct Asked<'a> {
    /// The request's query string (`vista=`).
    pub query: Option<&'a str>,
    /// A HEAD, which never buys.
    pub head_only: bool,
    pub accept: Option<&'a [u8]>,
    pub payment: Option<&'a [u8]>,
    pub sign_in: Option<&'a [u8]>,
    /// An MPP credential: what follows `Payment ` in `Authorization`.
    pub mpp: Option<&'a [u8]>,
    /// MPP's `Accept-Payment`: which requirements and challenges a 402 shows, in which order.
    pub accept_payment: Option<&'a [u8]>,
}

impl Asked<'_> {
    /// What the buyer's preferences keep of an offer.
    fn selection(&self, offer: &Offer) -> Selection {
        let preferences = self.accept_payment.and_then(AcceptPayment::parse);
        Selection::of(&offer.required.accepts, preferences.as_ref())
    }
}

/// The answer to a request for a study that carries neither a payment nor a sign-in (or is a
/// HEAD): the unpaid 402, or why the study or view is unknown. `None` when there is a payment
/// or a proof to check, which [`answer`] does. Needs no waiting, so the fast lane serves it too.
pub fn answer_unpaid(front: &Storefront, offers: &Offers, slug: &str, asked: &Asked<'_>) -> Option<Reply> {
    if !asked.head_only && (asked.payment.is_some() || asked.sign_in.is_some() || asked.mpp.is_some()) {
        return None;
    }
    Some(match find_offer(offers, slug, asked.query) {
        Ok(offer) => front.unpaid_reply(offer, asked.accept, &asked.selection(offer)),
        Err(unknown) => unknown,
    })
}

/// The offer a request names by slug and `vista=`, or the 404/400 that says which is unknown.
fn find_offer<'o>(offers: &'o Offers, slug: &str, query: Option<&str>) -> Result<&'o Offer, Reply> {
    let view = gate_http::query_param(query, "vista");
    offers.find(slug, view.as_deref()).map_err(|error| match error {
        OfferError::UnknownStudy => unknown_study(slug),
        OfferError::UnknownView => unknown_view(view.as_deref().unwrap_or_default()),
    })
}

/// `GET /estudio/{slug}?vista=`.
pub async fn answer(front: &Storefront, offers: &Offers, shop: &Shop, request: &Request<'_>, slug: &str) -> Reply {
    // HEAD never buys: it answers the unpaid 402's head, so a payment sent with it is neither
    // settled nor spent and still buys with a GET (a sign-in, likewise, is not used).
    let asked = Asked {
        query: request.query(),
        head_only: request.method() == Method::HEAD,
        accept: request.header("accept"),
        payment: request.header("payment-signature"),
        sign_in: request.header("sign-in-with-x"),
        mpp: request.header("authorization").and_then(mpp::credential_of),
        accept_payment: request.header("accept-payment"),
    };
    if let Some(reply) = answer_unpaid(front, offers, slug, &asked) {
        return reply;
    }
    let offer = match find_offer(offers, slug, asked.query) {
        Ok(offer) => offer,
        Err(unknown) => return unknown,
    };
    let selection = asked.selection(offer);
    let (header, proof, credential) = (asked.payment, asked.sign_in, asked.mpp);
    if let Err(refusal) = shop.admit(request.client) {
        return front.refusal_reply(offer, &selection, Some(&refusal));
    }
    if header.is_some() && credential.is_some() {
        let problem = Problem {
            kind: "malformed-credential",
            status: 400,
            detail: "El pedido trae dos credenciales (PAYMENT-SIGNATURE de x402 y Authorization: Payment de MPP): envíe solo una.".to_owned(),
        };
        return front.problem_reply(offer, &selection, &problem, Some("credenciales_duplicadas"));
    }
    if let Some(proof) = proof {
        let outcome = match siwx::decode_header(proof) {
            Ok(proof) => shop.reaccess(offer, &proof).await,
            Err(invalid) => Err(Refusal {
                status: 402,
                code: invalid.code.to_owned(),
                message: invalid.message,
                settlement: None,
                retry_after: None,
            }),
        };
        match outcome {
            Ok(again) => {
                return Reply::new(200, JSON, Body::Parts(again.body.into_parts()))
                    .with_header("Cache-Control", PERSONAL);
            }
            // A payment sent beside a failing sign-in goes ahead, as with the official server.
            Err(refusal) if header.is_some() || credential.is_some() => {
                tracing::debug!(estudio = %offer.slug, "sign-in-with-x rechazado ({}); sigue el pago", refusal.code);
            }
            Err(refusal) => {
                shop.count_refused(request.client, &refusal);
                return front.refusal_reply(offer, &selection, Some(&refusal));
            }
        }
    }
    if let Some(credential) = credential {
        return answer_mpp(front, shop, offer, &selection, request, credential).await;
    }
    let Some(header) = header else {
        return front.unpaid_reply(offer, request.header("accept"), &selection);
    };
    let payload = match decode_payment_signature(header) {
        Ok(payload) => payload,
        Err(e) => {
            let refusal = Refusal {
                status: 400,
                code: e.code().to_owned(),
                message: e.to_string(),
                settlement: None,
                retry_after: None,
            };
            shop.count_refused(request.client, &refusal);
            return front.refusal_reply(offer, &selection, Some(&refusal));
        }
    };
    match shop.purchase(offer, &payload).await {
        Ok(delivery) => Reply::new(200, JSON, Body::Parts(delivery.body.into_parts()))
            .with_header("Cache-Control", PERSONAL)
            .with_header("PAYMENT-RESPONSE", encode_json(&delivery.settlement))
            .with_header("Server-Timing", delivery.timing.header()),
        Err(refusal) => {
            shop.count_refused(request.client, &refusal);
            front.refusal_reply(offer, &selection, Some(&refusal))
        }
    }
}

/// A purchase paid with an MPP credential: checked against its challenge at the edge, then
/// sold by the same [`Shop::purchase_as`] as an x402 payment.
async fn answer_mpp(
    front: &Storefront,
    shop: &Shop,
    offer: &Offer,
    selection: &Selection,
    request: &Request<'_>,
    credential: &[u8],
) -> Reply {
    let Some(mpp) = &front.mpp else {
        return front.unpaid_reply(offer, request.header("accept"), selection);
    };
    let admitted = match mpp.admit(offer, credential) {
        Ok(admitted) => admitted,
        Err(problem) => {
            let refusal = Refusal {
                status: 402,
                code: problem.kind.to_owned(),
                message: problem.detail.clone(),
                settlement: None,
                retry_after: None,
            };
            shop.count_refused(request.client, &refusal);
            return front.problem_reply(offer, selection, &problem, None);
        }
    };
    match shop.purchase_as(offer, &admitted.payload, Protocol::Mpp).await {
        Ok(delivery) => {
            let receipt = mpp::receipt(&delivery.settlement.transaction, mpp.now());
            Reply::new(200, JSON, Body::Parts(delivery.body.into_parts()))
                .with_header("Cache-Control", PERSONAL)
                .with_header("Payment-Receipt", receipt)
                .with_header("PAYMENT-RESPONSE", encode_json(&delivery.settlement))
                .with_header("Server-Timing", delivery.timing.header())
        }
        Err(refusal) => {
            shop.count_refused(request.client, &refusal);
            match refusal.status {
                400 => front.problem_reply(
                    offer,
                    selection,
                    &Problem::new("malformed-credential", refusal.message),
                    Some(&refusal.code),
                ),
                402 => front.problem_reply(
                    offer,
                    selection,
                    &Problem::new("verification-failed", refusal.message),
                    Some(&refusal.code),
                ),
                // Uncertain, turned away, conflicting or the facilitator's fault: the same answer
                // an x402 buyer gets.
                _ => front.refusal_reply(offer, selection, Some(&refusal)),
            }
        }
    }
}

/// 404 for a slug the manifest does not sell.
pub fn unknown_study(slug: &str) -> Reply {
    Reply::error_with(
        404,
        "estudio_desconocido",
        format!("No hay un estudio {slug:?}. Vea la lista en /catalogo o busque en /buscar?q=."),
        json!({"catalogo": "/catalogo"}),
    )
}

fn unknown_view(view: &str) -> Reply {
    Reply::error_with(
        400,
        "vista_desconocida",
        format!("La vista {view:?} no existe; use vista=completo o vista=resumen (mismo precio)."),
        json!({"vistas": View::NAMES}),
    )
}

/// The HTML 402 page of each study, by slug, read once at start.
fn load_payment_pages(dist: &Path, manifest: &Manifest) -> Result<BTreeMap<String, Bytes>> {
    let mut pages = BTreeMap::new();
    for (slug, study) in &manifest.studies {
        let file = &study.page_402;
        let path = manifest::file_path(dist, file)?;
        let bytes = std::fs::read(&path).with_context(|| format!("no se pudo leer {}", path.display()))?;
        if bytes.is_empty() {
            bail!("{file}: la página 402 está vacía");
        }
        pages.insert(slug.clone(), Bytes::from(bytes));
    }
    Ok(pages)
}

/// The browser's 402: the JSON 402's status and headers (with `PAYMENT-REQUIRED`), the page as body.
fn html_payment_reply(json: &Reply, page: Bytes) -> Reply {
    let mut reply = Reply::new(json.status, HTML, Body::Bytes(page));
    reply.headers.extend(json.headers.iter().filter(|(name, _)| !name.eq_ignore_ascii_case("Content-Type")).cloned());
    reply.with_header("Content-Security-Policy", contract::CONTENT_SECURITY_POLICY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_html_402_keeps_the_payment_header() {
        let json = Reply::new(402, JSON, Body::Empty).with_header("PAYMENT-REQUIRED", "abc").with_header("Vary", VARY);
        let page = html_payment_reply(&json, Bytes::from_static(b"<!doctype html>"));
        assert_eq!(page.status, 402);
        let headers: Vec<(&str, &str)> = page.headers.iter().map(|(n, v)| (*n, v.to_str().unwrap())).collect();
        assert!(headers.contains(&("Content-Type", HTML)));
        assert!(headers.contains(&("PAYMENT-REQUIRED", "abc")));
        assert!(headers.contains(&("Vary", VARY)));
        assert_eq!(headers.iter().filter(|(n, _)| *n == "Content-Type").count(), 1);
    }
}
