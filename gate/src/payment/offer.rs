//! What is for sale: one [`Offer`] per (study, view), read from the manifest, and the one
//! function that turns an offer into the x402 `PaymentRequired` object.
//!
//! The generator wrote each offer's 402 object into `gate.json`; every 402 the gate sends
//! (the HTTP JSON answer, the browser's HTML page, the MCP tool result) is derived from it by
//! [`Offer::payment_required`], so the requirements a client signs are the same on every
//! transport and deep-equal what the purchase compares `accepted` against. It adds the one
//! part no build can write: the `sign-in-with-x` challenge, fresh for every 402 (see
//! [`super::signin`]).
//!
//! That object is whole in the 402's body and in the MCP tool result; the `PAYMENT-REQUIRED`
//! header carries [`for_header`]'s smaller form of it, what a client reads to pay, so that
//! every header of a 402 fits the 4 KB a default proxy in front of the gate reads a response
//! head into (nginx's `proxy_buffer_size` is one memory page).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use contract::View;
use serde_json::{Value, json};

use super::signin::{Challenge, Challenger, SignIn};
use crate::manifest::{self, Manifest};
use crate::x402::siwx::SIGN_IN_WITH_X;
use crate::x402::{BAZAAR, PAYMENT_IDENTIFIER, PaymentPayload, PaymentRequired, ResourceInfo, SupportedResponse};

/// The name of the paid MCP tool, which MCP 402s name as their resource.
pub use contract::mcp::BUY_TOOL;

/// What is sold for one (study, view).
#[derive(Debug, Clone)]
pub struct Offer {
    pub slug: String,
    pub view: View,
    pub name: String,
    /// The 402 object the manifest gives this view over HTTP (no `error`).
    pub required: PaymentRequired,
    /// The same over MCP: the same `accepts`, the tool as resource, the tool's extensions.
    pub required_mcp: PaymentRequired,
    /// Each `accepts` entry as JSON, for the deep comparison with a client's `accepted`.
    pub accepts_json: Vec<Value>,
    /// The file the paid answer embeds.
    pub file: PathBuf,
    /// The files a purchase links to.
    pub downloads: Vec<DownloadInfo>,
    /// How a past buyer signs in to get it again (`None`: no EVM network to sign on).
    pub sign_in: Option<SignIn>,
}

/// The transport a 402 travels on: it changes the resource named, never the requirements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// `GET /estudio/{slug}?vista=`: the resource is the route's URL.
    Http,
    /// The MCP tool `comprar_estudio`: the resource names the tool and what it sells.
    Mcp,
}

impl Offer {
    /// The `PaymentRequired` object of this offer on a transport, with `error` set when a
    /// purchase is refused and a fresh sign-in challenge.
    pub fn payment_required(&self, binding: Binding, error: Option<&str>) -> PaymentRequired {
        let challenge = self.sign_in.as_ref().map(SignIn::challenge);
        self.payment_required_with(binding, error, challenge.as_ref())
    }

    /// The same with a given challenge: the one place a 402 object is built.
    pub fn payment_required_with(
        &self,
        binding: Binding,
        error: Option<&str>,
        challenge: Option<&Challenge>,
    ) -> PaymentRequired {
        let mut required = match binding {
            Binding::Http => self.required.clone(),
            Binding::Mcp => self.required_mcp.clone(),
        };
        required.error = error.map(str::to_owned);
        if let (Some(sign_in), Some(challenge)) = (&self.sign_in, challenge) {
            let mut extensions = required.extensions.take().filter(Value::is_object).unwrap_or_else(|| json!({}));
            extensions[SIGN_IN_WITH_X] = sign_in.declaration(challenge);
            required.extensions = Some(extensions);
        }
        required
    }

    /// Whether any requirement is on Solana (and so needs the facilitator's fee payer).
    pub fn offers_solana(&self) -> bool {
        self.required.accepts.iter().any(|a| a.network.starts_with("solana:"))
    }

    /// The payment as it is handed to the facilitator: the buyer's, with this offer's `bazaar`
    /// declaration when the buyer did not echo one. The `PAYMENT-REQUIRED` header leaves
    /// `bazaar` out ([`for_header`]), so an HTTP buyer echoes none; a facilitator that
    /// catalogs what it settles (x402 Bazaar) reads it from the payment, and gets the whole
    /// declaration, schema included, as the body and the discovery documents state it. Nothing
    /// signed changes: extensions are outside the EIP-3009 authorization.
    pub fn to_facilitator(&self, payload: &PaymentPayload) -> PaymentPayload {
        let mut forwarded = payload.clone();
        let declared = self.required.extensions.as_ref().and_then(|e| e.get(BAZAAR));
        let echoed = payload.extensions.as_ref().is_some_and(|e| e.get(BAZAAR).is_some());
        if let (Some(bazaar), false) = (declared, echoed) {
            let mut extensions = forwarded.extensions.take().filter(Value::is_object).unwrap_or_else(|| json!({}));
            extensions[BAZAAR] = bazaar.clone();
            forwarded.extensions = Some(extensions);
        }
        forwarded
    }
}

/// The members of each extension the `PAYMENT-REQUIRED` header keeps: the ones a client reads
/// to pay, as the official clients do (`@x402/core`'s `x402Client` and `@x402/extensions`
/// 2.27.0, x402 for Python 2.25.0): `payment-identifier`'s `info.required` (whether to send an
/// idempotency id, echoed in `info.id`) and `sign-in-with-x`'s `info` (the EIP-4361 message a
/// past buyer signs) with its `supportedChains`. Every other extension, and the JSON Schemas
/// of these two, serve validators and catalogs: they are in the body.
const HEADER_EXTENSIONS: [(&str, &[&str]); 2] =
    [(PAYMENT_IDENTIFIER, &["info"]), (SIGN_IN_WITH_X, &["info", "supportedChains"])];

/// The `PaymentRequired` as the `PAYMENT-REQUIRED` header carries it: `x402Version`, `error`,
/// the resource's `url`, `description` and `mimeType`, every requirement of `accepts` as it
/// is (a client copies one into `accepted`), and of the extensions what a client reads to pay
/// ([`HEADER_EXTENSIONS`]). What only discovery needs (the Bazaar declaration, the signed
/// offers of `offer-receipt`, the extensions' schemas, the resource's `serviceName` and
/// `tags`) stays in the 402's body, whose `x402` is the whole object, in the MCP result and
/// in the discovery documents.
pub fn for_header(required: &PaymentRequired) -> PaymentRequired {
    let resource = ResourceInfo {
        url: required.resource.url.clone(),
        description: required.resource.description.clone(),
        mime_type: required.resource.mime_type.clone(),
        ..ResourceInfo::default()
    };
    let extensions = required.extensions.as_ref().and_then(Value::as_object).map(|declared| {
        let mut kept = serde_json::Map::new();
        for (name, members) in HEADER_EXTENSIONS {
            let Some(declaration) = declared.get(name).and_then(Value::as_object) else { continue };
            let slim: serde_json::Map<String, Value> = members
                .iter()
                .filter_map(|member| Some(((*member).to_owned(), declaration.get(*member)?.clone())))
                .collect();
            kept.insert(name.to_owned(), Value::Object(slim));
        }
        Value::Object(kept)
    });
    PaymentRequired {
        x402_version: required.x402_version,
        error: required.error.clone(),
        resource,
        accepts: required.accepts.clone(),
        extensions,
    }
}

/// Why an offer cannot be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfferError {
    UnknownStudy,
    UnknownView,
}

/// A file a purchase links to, as the paid answer lists it.
#[derive(Debug, Clone)]
pub struct DownloadInfo {
    /// `json` or `zip`: the key the answer lists it under.
    pub kind: String,
    /// The name in `/descarga/{name}`.
    pub name: String,
    pub media_type: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Every offer of one `dist/`.
#[derive(Debug, Clone, Default)]
pub struct Offers {
    /// By slug, then view: a request's slug is looked up as it came, without a key to build.
    offers: BTreeMap<String, BTreeMap<View, Offer>>,
}

impl Offers {
    /// Reads the offers of a manifest; `dist` resolves the files they deliver, `challenger`
    /// issues their sign-in challenges.
    pub fn from_manifest(dist: &Path, manifest: &Manifest, challenger: &Challenger) -> Result<Offers> {
        let mut offers = BTreeMap::new();
        for (slug, study) in &manifest.studies {
            let downloads: Vec<DownloadInfo> = study
                .downloads
                .iter()
                .filter_map(|name| {
                    let d = manifest.downloads.get(name)?;
                    Some(DownloadInfo {
                        kind: name.rsplit('.').next().unwrap_or(name).to_owned(),
                        name: name.clone(),
                        media_type: d.media_type.clone(),
                        bytes: d.bytes,
                        sha256: d.sha256.clone(),
                    })
                })
                .collect();
            for (view, spec) in &study.views {
                let required = spec.payment_required.clone();
                let required_mcp = spec.payment_required_mcp.clone();
                let accepts_json = required.accepts.iter().map(serde_json::to_value).collect::<Result<_, _>>()?;
                let networks: Vec<&str> = required.accepts.iter().map(|a| a.network.as_str()).collect();
                let sign_in =
                    SignIn::new(challenger.clone(), &manifest.service.base_url, &required.resource.url, &networks);
                let offer = Offer {
                    slug: slug.clone(),
                    view: *view,
                    name: study.name.clone(),
                    required,
                    required_mcp,
                    accepts_json,
                    file: manifest::file_path(dist, &spec.file)?,
                    downloads: downloads.clone(),
                    sign_in,
                };
                offers.entry(slug.clone()).or_insert_with(BTreeMap::new).insert(*view, offer);
            }
        }
        Ok(Offers { offers })
    }

    /// Every offer, sorted by (slug, view).
    pub fn iter(&self) -> impl Iterator<Item = &Offer> {
        self.offers.values().flat_map(BTreeMap::values)
    }

    /// Every offer, to complete in place (the gate adds the signed offers it alone can sign).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Offer> {
        self.offers.values_mut().flat_map(BTreeMap::values_mut)
    }

    /// The offer for a study and a `vista` value (`None` = the default view).
    pub fn find(&self, slug: &str, view: Option<&str>) -> Result<&Offer, OfferError> {
        let views = self.offers.get(slug).ok_or(OfferError::UnknownStudy)?;
        let view = match view {
            None => View::ALL[0],
            Some(name) => View::parse(name).ok_or(OfferError::UnknownView)?,
        };
        views.get(&view).ok_or(OfferError::UnknownView)
    }

    /// Whether any offer takes a Solana network.
    pub fn any_solana(&self) -> bool {
        self.iter().any(Offer::offers_solana)
    }

    /// Fills each Solana requirement's `extra.feePayer` from the facilitator's `/supported`,
    /// and withdraws the Solana requirements the facilitator does not support (without a fee
    /// payer no client can build the transaction). Returns the networks withdrawn, sorted.
    pub fn apply_fee_payers(&mut self, supported: &SupportedResponse) -> Vec<String> {
        let fee_payer_of = |network: &str, scheme: &str| {
            supported
                .kinds
                .iter()
                .find(|k| k.network == network && k.scheme == scheme)
                .and_then(|k| k.extra.as_ref()?.get("feePayer").filter(|v| v.is_string()).cloned())
        };
        let mut withdrawn = BTreeSet::new();
        for offer in self.offers.values_mut().flat_map(BTreeMap::values_mut) {
            let mut kept = Vec::with_capacity(offer.required.accepts.len());
            for mut requirement in std::mem::take(&mut offer.required.accepts) {
                if requirement.network.starts_with("solana:") {
                    let Some(fee_payer) = fee_payer_of(&requirement.network, &requirement.scheme) else {
                        withdrawn.insert(requirement.network.clone());
                        continue;
                    };
                    let mut extra = requirement.extra.take().unwrap_or_else(|| json!({}));
                    extra["feePayer"] = fee_payer;
                    requirement.extra = Some(extra);
                }
                kept.push(requirement);
            }
            offer.accepts_json = kept.iter().filter_map(|r| serde_json::to_value(r).ok()).collect();
            offer.required_mcp.accepts = kept.clone();
            offer.required.accepts = kept;
        }
        withdrawn.into_iter().collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::x402::{PaymentRequirements, ResourceInfo};

    pub(crate) fn offer() -> Offer {
        let raw = json!({"scheme": "exact", "network": "eip155:84532", "amount": "990000",
            "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "maxTimeoutSeconds": 300, "extra": {"name": "USDC", "version": "2"}});
        let typed: PaymentRequirements = serde_json::from_value(raw.clone()).expect("requirements");
        Offer {
            slug: "banca-2026".into(),
            view: View::Summary,
            name: "Banca".into(),
            required: PaymentRequired {
                x402_version: 2,
                error: None,
                resource: ResourceInfo {
                    url: "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen".into(),
                    ..ResourceInfo::default()
                },
                accepts: vec![typed],
                extensions: Some(json!({})),
            },
            required_mcp: PaymentRequired {
                x402_version: 2,
                error: None,
                resource: ResourceInfo {
                    url: contract::mcp::resource_url("banca-2026", View::Summary),
                    ..ResourceInfo::default()
                },
                accepts: vec![serde_json::from_value(raw.clone()).expect("requirements")],
                extensions: Some(json!({})),
            },
            accepts_json: vec![raw],
            file: "x".into(),
            downloads: Vec::new(),
            sign_in: SignIn::new(
                challenger(),
                "http://127.0.0.1:8080",
                "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen",
                &["eip155:84532"],
            ),
        }
    }

    /// The extensions a built offer declares, by the generator and the gate, in short.
    fn declared() -> Value {
        json!({
            "bazaar": {"info": {"input": {"type": "http", "method": "GET"}}, "schema": {"type": "object"}},
            "offer-receipt": {"info": {"offers": [{"format": "jws", "signature": "a.b.c"}]}, "schema": {"type": "object"}},
            "payment-identifier": {"info": {"required": false}, "schema": {"type": "object"}},
        })
    }

    #[test]
    fn the_header_keeps_what_a_client_reads_to_pay() {
        let mut offer = offer();
        offer.required.extensions = Some(declared());
        offer.required.resource.service_name = Some("Visibilidad".into());
        offer.required.resource.tags = Some(vec!["banca".into()]);
        offer.required.resource.description = Some("Banca (resumen)".into());
        let whole = offer.payment_required(Binding::Http, Some("PAYMENT-SIGNATURE header is required"));
        let header = serde_json::to_value(for_header(&whole)).expect("json");
        let siwx = &whole.extensions.as_ref().expect("extensions")[SIGN_IN_WITH_X];
        assert_eq!(
            header,
            json!({
                "x402Version": 2,
                "error": "PAYMENT-SIGNATURE header is required",
                "resource": {"url": whole.resource.url, "description": "Banca (resumen)"},
                "accepts": offer.accepts_json,
                "extensions": {
                    "payment-identifier": {"info": {"required": false}},
                    "sign-in-with-x": {"info": siwx["info"], "supportedChains": siwx["supportedChains"]},
                },
            })
        );
        // The body's object keeps everything: discovery, signed offers, schemas.
        let body = serde_json::to_value(&whole).expect("json");
        for pointer in ["/extensions/bazaar", "/extensions/offer-receipt", "/extensions/sign-in-with-x/schema"] {
            assert!(body.pointer(pointer).is_some(), "{pointer}");
        }
        // No extension declared: none in the header either.
        let bare = PaymentRequired { extensions: None, ..whole };
        assert_eq!(for_header(&bare).extensions, None);
    }

    #[test]
    fn the_facilitator_gets_the_bazaar_declaration_the_header_left_out() {
        let mut offer = offer();
        offer.required.extensions = Some(declared());
        let payload: PaymentPayload = serde_json::from_value(json!({
            "x402Version": 2, "accepted": offer.accepts_json[0], "payload": {},
            "extensions": {"payment-identifier": {"info": {"required": false, "id": "abcdefghijklmnop"}}},
        }))
        .expect("payload");
        let forwarded = offer.to_facilitator(&payload);
        let extensions = forwarded.extensions.as_ref().expect("extensions");
        assert_eq!(extensions[BAZAAR], declared()[BAZAAR]);
        assert_eq!(extensions[PAYMENT_IDENTIFIER], payload.extensions.as_ref().unwrap()[PAYMENT_IDENTIFIER]);
        assert_eq!(forwarded.payload, payload.payload);
        // A buyer's own echo (an MCP client's, of the tool's declaration) is left as it came.
        let mut echoed = payload.clone();
        echoed.extensions = Some(json!({"bazaar": {"info": {"input": {"type": "mcp"}}}}));
        assert_eq!(offer.to_facilitator(&echoed).extensions, echoed.extensions);
        // No declaration, nothing added.
        assert_eq!(super::tests::offer().to_facilitator(&payload).extensions, payload.extensions);
    }

    pub(crate) fn challenger() -> Challenger {
        let links = crate::links::LinkSigner::new(vec![7u8; 32], 7 * 86_400).expect("links");
        Challenger::new(&links, crate::clock::Clock::system())
    }

    #[test]
    fn every_binding_names_its_resource_and_keeps_the_requirements() {
        let offer = offer();
        let http = offer.payment_required(Binding::Http, None);
        assert_eq!(PaymentRequired { extensions: offer.required.extensions.clone(), ..http.clone() }, offer.required);
        let mcp = offer.payment_required(Binding::Mcp, Some("motivo"));
        assert_eq!(mcp.error.as_deref(), Some("motivo"));
        assert_eq!(mcp.resource.url, "mcp://tool/comprar_estudio?slug=banca-2026&vista=resumen");
        assert_eq!(mcp.accepts, http.accepts);
        // The same sign-in on both transports (the HTTP URI, signed by MCP clients too), each
        // 402 with a nonce of its own.
        let (http_siwx, mcp_siwx) =
            (&http.extensions.as_ref().unwrap()[SIGN_IN_WITH_X], &mcp.extensions.as_ref().unwrap()[SIGN_IN_WITH_X]);
        assert_eq!(http_siwx["info"]["uri"], "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen");
        assert_eq!(mcp_siwx["info"]["uri"], http_siwx["info"]["uri"]);
        assert_eq!(mcp_siwx["info"]["domain"], "127.0.0.1:8080");
        assert_eq!(mcp_siwx["supportedChains"], json!([{"chainId": "eip155:84532", "type": "eip191"}]));
        assert_ne!(mcp_siwx["info"]["nonce"], http_siwx["info"]["nonce"]);
        let placeholder = Challenge::placeholder();
        assert_eq!(
            offer.payment_required_with(Binding::Http, None, Some(&placeholder)).extensions,
            offer.payment_required_with(Binding::Mcp, None, Some(&placeholder)).extensions
        );
        assert_eq!(serde_json::to_value(&mcp.accepts).expect("json"), json!(offer.accepts_json));
    }
}
