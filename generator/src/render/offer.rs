//! What the service offers to a buyer: networks, assets, amounts and the buying steps.
//!
//! The mode in `servicio.toml` is the one setting that decides the networks. Everything that
//! talks about payment (service index, sheets, openapi.json, llms.txt, the discovery
//! manifest, and the 402 requirements the gate sends, which it reads from `gate.json`) is
//! derived here, so no two documents can give two answers to the same question.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use contract::manifest::Network;
use contract::x402::{PaymentRequirements, X402_VERSION};
use contract::{Mode, Price};

use crate::model::ServiceSettings;

/// How long a payment authorization may take to settle, in seconds (both reference stacks use 300).
pub const MAX_TIMEOUT_SECONDS: u64 = 300;

/// The scheme-specific `extra` of a requirement on a network. Solana's `feePayer` is the
/// facilitator's key: the gate fills it from the facilitator's `/supported` at start.
fn extra(network: &Network) -> Value {
    match (&network.eip712_name, &network.eip712_version) {
        (Some(name), Some(version)) => json!({"name": name, "version": version}),
        _ => json!({}),
    }
}

/// The networks offered in a mode ([`contract::networks`]): Base Sepolia in local and testnet
/// mode, Base in mainnet, plus Solana devnet (testnet) or Solana mainnet (mainnet) when
/// `pagar_a_solana` is set. Local mode offers no Solana network: the local facilitator
/// verifies EVM signatures only.
pub fn networks(service: &ServiceSettings) -> Vec<Network> {
    let mut networks = vec![contract::networks::evm(service.mode).network(&service.pay_to_evm)];
    if let (Some(solana), Some(payee)) = (contract::networks::solana(service.mode), &service.pay_to_solana) {
        networks.push(solana.network(payee));
    }
    networks
}

/// The x402 `PaymentRequirements` list for a price.
pub fn accepts(service: &ServiceSettings, price: Price) -> Vec<PaymentRequirements> {
    networks(service)
        .into_iter()
        .map(|n| PaymentRequirements {
            scheme: "exact".to_owned(),
            amount: price.atomic_string(),
            extra: Some(extra(&n)),
            network: n.caip2,
            asset: n.asset,
            pay_to: n.pay_to,
            max_timeout_seconds: MAX_TIMEOUT_SECONDS,
        })
        .collect()
}

/// A network as the documents list it.
#[derive(Debug, Clone, Serialize)]
pub struct NetworkSummary {
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "nombre")]
    pub name: String,
    pub caip2: String,
    #[serde(rename = "pagar_a")]
    pub pay_to: String,
    #[serde(rename = "activo")]
    pub asset: String,
}

/// "How to buy", in Spanish with an English block, as every document shows it.
#[derive(Debug, Clone, Serialize)]
pub struct HowToBuy {
    #[serde(rename = "protocolo")]
    pub protocol: String,
    #[serde(rename = "moneda")]
    pub currency: String,
    /// The price, when the steps are for one price (a study, or a store whose studies all cost
    /// the same); absent when they differ, and then `precios_usd` lists each.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "precio_usd")]
    pub price_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "monto_atomico")]
    pub atomic_amount: Option<String>,
    /// Slug → price, when the studies' own prices differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "precios_usd")]
    pub prices_usd: Option<BTreeMap<String, f64>>,
    /// The lowest and highest price, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "precio_desde_usd")]
    pub price_from_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "precio_hasta_usd")]
    pub price_to_usd: Option<f64>,
    #[serde(rename = "modo")]
    pub mode: String,
    #[serde(rename = "redes")]
    pub networks: Vec<NetworkSummary>,
    #[serde(rename = "pasos")]
    pub steps: Vec<String>,
    #[serde(rename = "vistas")]
    pub views: Views,
    pub no_se_cobra_si: String,
    /// What a buyer does when the answer leaves the payment in doubt (503 `liquidacion_incierta`).
    #[serde(rename = "si_la_liquidacion_es_incierta")]
    pub if_settlement_is_uncertain: String,
    /// How a retry is recognised as the same purchase (x402 `payment-identifier`).
    #[serde(rename = "reintentos")]
    pub retries: String,
    /// How a past buyer gets the study again without paying (x402 `sign-in-with-x`).
    #[serde(rename = "si_ya_lo_compro")]
    pub if_already_bought: String,
    /// What the signed receipt of a sale is and how to check it (x402 `offer-receipt`).
    #[serde(rename = "recibo_firmado")]
    pub signed_receipt: String,
    #[serde(rename = "tope_de_tu_cliente")]
    pub your_client_cap: String,
    #[serde(rename = "clientes_oficiales")]
    pub official_clients: Vec<String>,
    /// The same purchase through the Machine Payments Protocol.
    pub mpp: MppHowTo,
    pub en: HowToBuyEn,
}

/// MPP (IETF draft `draft-ryan-httpauth-payment`) beside x402: the same 402 carries an MPP
/// challenge (`evm` method, `charge` intent) for the same price, token, network and payee.
#[derive(Debug, Clone, Serialize)]
pub struct MppHowTo {
    #[serde(rename = "protocolo")]
    pub protocol: String,
    /// One bilingual line, for the places that only have room for one.
    #[serde(rename = "resumen")]
    pub summary: String,
    #[serde(rename = "pasos")]
    pub steps: Vec<String>,
    pub mcp: String,
    #[serde(rename = "clientes")]
    pub clients: Vec<String>,
    #[serde(rename = "protocol")]
    pub protocol_en: String,
    #[serde(rename = "steps")]
    pub steps_en: Vec<String>,
    pub mcp_en: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Views {
    #[serde(rename = "completo")]
    pub full: String,
    #[serde(rename = "resumen")]
    pub summary: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HowToBuyEn {
    pub protocol: String,
    pub steps: Vec<String>,
    pub views: Views,
    pub not_charged_if: String,
    pub if_settlement_is_uncertain: String,
    pub retries: String,
    pub already_bought: String,
    pub signed_receipt: String,
    pub client_cap: String,
}

/// What the steps say a study costs.
pub enum Pricing<'a> {
    /// One price: a study's, or every study's when they all cost the same.
    One(Price),
    /// Slug → price, when the studies' own prices differ.
    PerStudy(&'a BTreeMap<String, Price>),
}

impl Pricing<'_> {
    /// The highest price asked (what a client's cap must admit); `default` for no study.
    fn highest(&self, default: Price) -> Price {
        match self {
            Pricing::One(price) => *price,
            Pricing::PerStudy(prices) => prices.values().copied().max().unwrap_or(default),
        }
    }

    /// "banca-2026 1.49 USD, farma-2026 0.99 USD".
    fn list(prices: &BTreeMap<String, Price>) -> String {
        prices.iter().map(|(slug, price)| format!("{slug} {} USD", price.usd())).collect::<Vec<_>>().join(", ")
    }
}

/// Builds the "how to buy" block for a study URL template (`{slug}` kept literal when general).
pub fn how_to_buy(service: &ServiceSettings, pricing: Pricing<'_>, study_url: &str) -> HowToBuy {
    let highest = pricing.highest(service.price_usd);
    // The amount as step 2 and MPP's step 1 state it, in Spanish and English.
    let (amount_es, amount_en, mpp_amount_es, mpp_amount_en) = match &pricing {
        Pricing::One(price) => (
            format!("{} unidades de USDC ({} USD)", price.atomic(), price.usd()),
            format!("{} USDC units ({} USD)", price.atomic(), price.usd()),
            format!("{} unidades de USDC", price.atomic()),
            format!("{} USDC units", price.atomic()),
        ),
        Pricing::PerStudy(prices) => {
            let list = Pricing::list(prices);
            (
                format!("el monto del 402 en unidades de USDC (6 decimales): el precio del estudio ({list})"),
                format!("the 402's amount in USDC units (6 decimals): the study's price ({list})"),
                "el precio del estudio".to_owned(),
                "the study's price".to_owned(),
            )
        }
    };
    let (price_usd, amount) = (highest.usd(), highest.atomic());
    let mode_note = |n: &Network| match service.mode {
        Mode::Local => " (modo local: un facilitador local verifica la firma; no se mueve dinero en cadena)".to_owned(),
        Mode::Testnet => format!(" (red de prueba: USDC de prueba de {})", n.name),
        Mode::Mainnet => String::new(),
    };
    let offered = networks(service);
    let solana_note = if offered.iter().any(Network::is_solana) {
        " En Solana, en lugar de EIP-3009 se firma una transacción TransferChecked de USDC que el facilitador completa como pagador de la comisión (feePayer)."
    } else {
        ""
    };
    let solana_note_en = if solana_note.is_empty() {
        ""
    } else {
        " On Solana, instead of EIP-3009 you sign a USDC TransferChecked transaction that the facilitator completes as fee payer (feePayer)."
    };
    let networks = offered
        .into_iter()
        .map(|n| NetworkSummary {
            name: format!("{}{}", n.name, mode_note(&n)),
            network: n.network,
            caip2: n.caip2,
            pay_to: n.pay_to,
            asset: n.asset,
        })
        .collect();
    HowToBuy {
        protocol: format!("x402 v{X402_VERSION} (esquema exact, EIP-3009)"),
        currency: service.currency.clone(),
        price_usd: matches!(pricing, Pricing::One(_)).then(|| highest.usd_number()),
        atomic_amount: matches!(pricing, Pricing::One(_)).then(|| amount.to_string()),
        prices_usd: match &pricing {
            Pricing::One(_) => None,
            Pricing::PerStudy(prices) => Some(prices.iter().map(|(slug, p)| (slug.clone(), p.usd_number())).collect()),
        },
        price_from_usd: match &pricing {
            Pricing::One(_) => None,
            Pricing::PerStudy(prices) => prices.values().min().map(|p| p.usd_number()),
        },
        price_to_usd: matches!(pricing, Pricing::PerStudy(_)).then(|| highest.usd_number()),
        mode: service.mode.as_str().to_owned(),
        networks,
        steps: vec![
            format!("1. Pida GET {study_url} sin pago: la respuesta 402 trae el encabezado PAYMENT-REQUIRED con el precio, la red y la dirección de cobro (lo que un cliente lee para pagar; el objeto completo, con la descripción para catálogos y las ofertas firmadas, va en el campo x402 del cuerpo)."),
            format!("2. Firme con su billetera una autorización EIP-3009 por exactamente {amount_es} a la dirección de cobro; un cliente x402 oficial (@x402/fetch, x402 de Python) lo hace solo.{solana_note}"),
            "3. Repita el mismo GET con el encabezado PAYMENT-SIGNATURE: recibe 200 con el estudio, el encabezado PAYMENT-RESPONSE con la liquidación y enlaces de descarga firmados (JSON y ZIP) válidos por ".to_owned()
                + &format!("{} días.", service.link_validity_days),
        ],
        views: Views {
            full: "El paquete completo: ficha, diseño con todas las preguntas, todas las tablas de análisis, hallazgos con respaldo, métricas y todas las respuestas originales con sus fuentes.".into(),
            summary: "Ficha, diseño, hallazgos con su respaldo, métricas e índice de tablas, sin las respuestas; mismos enlaces de descarga del paquete completo.".into(),
        },
        no_se_cobra_si: "La liquidación se pide recién cuando el estudio ya está armado; si la firma no verifica, el monto no es exacto, la autorización venció o ya se usó, o el facilitador rechaza la liquidación, la respuesta es 402 y no se cobra nada.".into(),
        if_settlement_is_uncertain: "Si la respuesta es 503 con error liquidacion_incierta (el facilitador no confirmó a tiempo: el pago pudo haberse movido o no), no se entregó nada: repita exactamente el mismo pedido con el mismo encabezado PAYMENT-SIGNATURE (por MCP, la misma llamada con el mismo _meta[\"x402/payment\"]) antes de que venza la autorización. Si el pago se hizo, recibe el estudio sin un segundo cobro; si no, se cobra una sola vez. No firme un pago nuevo para esa compra; si aun así no se resuelve, escriba al contacto del servicio con el pagador y el nonce.".into(),
        retries: "El 402 declara la extensión x402 payment-identifier: si su cliente envía un id (16 a 128 letras, dígitos, - o _) y reintenta la misma compra con el mismo id, la misma billetera y el mismo estudio, recibe la compra ya pagada y la firma nueva no se cobra.".into(),
        if_already_bought: "Los enlaces vencen, la compra no: la billetera que pagó recibe el estudio de nuevo, con enlaces nuevos y sin cobro, firmando el desafío que el 402 declara en extensions[\"sign-in-with-x\"] (mensaje EIP-4361) y repitiendo el pedido con el encabezado SIGN-IN-WITH-X (por MCP, la prueba como objeto en _meta[\"x402/sign-in-with-x\"]). Cada desafío sirve una vez y vence a los 5 minutos; solo billeteras EOA de redes EVM.".into(),
        signed_receipt: "Cada venta trae un recibo firmado por la clave del editor (extensión x402 offer-receipt, JWS EdDSA) en PAYMENT-RESPONSE bajo extensions[\"offer-receipt\"].info.receipt y en el cuerpo como liquidacion.recibo: estudio, vista, monto, red, transacción, pagador, hora y el sha256 del JSON y del ZIP. La clave pública está en el kid (did:key) y en /.well-known/did.json; cualquiera lo verifica sin consultar al servicio.".into(),
        your_client_cap: format!("Si su cliente tiene un tope por pago, debe admitir al menos {price_usd} USD ({amount} unidades de USDC con 6 decimales)."),
        official_clients: vec![
            "@x402/fetch + @x402/evm (TypeScript)".into(),
            "x402 (Python, PyPI)".into(),
            "@modelcontextprotocol/sdk con el binding x402 de MCP".into(),
            "mppx (TypeScript, npm) con el método evm: MPP por HTTP y por MCP (mppx/mcp/client)".into(),
        ],
        mpp: mpp_how_to(study_url, &mpp_amount_es, &mpp_amount_en),
        en: HowToBuyEn {
            protocol: format!("x402 v{X402_VERSION} (exact scheme, EIP-3009)"),
            steps: vec![
                format!("1. GET {study_url} without payment: the 402 answer carries the PAYMENT-REQUIRED header with price, network and pay-to address (what a client reads to pay; the whole object, with the catalog description and the signed offers, is in the body field x402)."),
                format!("2. Sign an EIP-3009 authorization for exactly {amount_en} to the pay-to address; official x402 clients do it for you.{solana_note_en}"),
                format!("3. Repeat the GET with the PAYMENT-SIGNATURE header: 200 with the study, PAYMENT-RESPONSE with the settlement, and signed download links (JSON and ZIP) valid for {} days.", service.link_validity_days),
            ],
            views: Views {
                full: "The full package: sheet, design with every question, every analysis table, findings with backing, metrics and every raw answer with its sources.".into(),
                summary: "Sheet, design, findings with backing, metrics and table index, without the answers; same download links to the full package.".into(),
            },
            not_charged_if: "Settlement is requested only once the study is ready; if the signature does not verify, the amount is not exact, the authorization expired or was used, or the facilitator refuses settlement, the answer is 402 and nothing is charged.".into(),
            if_settlement_is_uncertain: "On 503 liquidacion_incierta (the facilitator did not confirm in time: the payment may or may not have moved), nothing was delivered: repeat the very same request with the same PAYMENT-SIGNATURE header (over MCP, the same call with the same _meta[\"x402/payment\"]) before the authorization expires. If the payment went through you get the study without a second charge; if not, you are charged once. Do not sign a new payment for that purchase.".into(),
            retries: "The 402 declares the x402 payment-identifier extension: retry a purchase with the same id, wallet and study and you get the paid purchase again; the new signature is not charged.".into(),
            already_bought: "Links expire, purchases do not: the wallet that paid gets the study again, with fresh links and no charge, by signing the 402's extensions[\"sign-in-with-x\"] challenge (EIP-4361) and repeating the request with the SIGN-IN-WITH-X header (MCP: the proof object in _meta[\"x402/sign-in-with-x\"]). Each challenge is single-use and lasts 5 minutes; EOA wallets on EVM networks only.".into(),
            signed_receipt: "Every sale carries a receipt signed by the publisher's key (x402 offer-receipt, JWS EdDSA) in PAYMENT-RESPONSE under extensions[\"offer-receipt\"].info.receipt and in the body as liquidacion.recibo: study, view, amount, network, transaction, payer, time and the sha256 of the JSON and the ZIP. The public key is the kid (did:key), also at /.well-known/did.json; anyone can verify it without asking the service.".into(),
            client_cap: format!("If your client caps each payment, allow at least {price_usd} USD ({amount} USDC units, 6 decimals)."),
        },
    }
}

/// How the same study is bought with MPP, from the same 402.
fn mpp_how_to(study_url: &str, amount_es: &str, amount_en: &str) -> MppHowTo {
    MppHowTo {
        protocol: "MPP (Machine Payments Protocol, borrador IETF draft-ryan-httpauth-payment): method=\"evm\", intent=\"charge\", credencial EIP-3009 (authorization); solo redes EVM".into(),
        summary: "También MPP / also MPP: el mismo 402 trae WWW-Authenticate: Payment method=\"evm\" intent=\"charge\"; repita con Authorization: Payment <credencial> (mppx, pympp) y recibe Payment-Receipt. / The same 402 carries that challenge; send Authorization: Payment and get Payment-Receipt.".into(),
        steps: vec![
            format!("1. Pida GET {study_url} sin pago: además del 402 de x402, el encabezado WWW-Authenticate trae un desafío Payment (method=\"evm\", intent=\"charge\") por el mismo monto ({amount_es}), token, red y cobrador; vence a los 5 minutos."),
            "2. Firme una autorización EIP-3009 cuyo nonce es keccak256(id ‖ realm) del desafío y repita el GET con Authorization: Payment <base64url del JSON {challenge, payload, source}> (mppx lo hace solo). No envíe a la vez PAYMENT-SIGNATURE: dos pagos en un pedido reciben 400.".into(),
            "3. Recibe 200 con el estudio y Payment-Receipt (base64url de {method, reference, status, timestamp}; reference es la transacción). Una credencial rechazada recibe 402 con un problema RFC 9457 (malformed-credential, invalid-challenge, verification-failed) y un desafío nuevo; cada credencial se cobra una sola vez.".into(),
        ],
        mcp: "Por MCP, comprar_estudio lleva los desafíos MPP: como error JSON-RPC -32042 (data.challenges, con el PaymentRequired de x402 en data.x402) si el pedido de la revisión 2026-07-28 declara experimental.payment en sus capacidades; si no, en _meta[\"org.paymentauth/payment-required\"] del resultado de x402. Repita la llamada con la credencial como objeto en params._meta[\"org.paymentauth/credential\"]; el recibo llega en _meta[\"org.paymentauth/receipt\"]. Una credencial rechazada recibe -32043 con desafíos nuevos.".into(),
        clients: vec![
            "mppx (TypeScript, npm): Mppx.create con charge de mppx/evm/client; por MCP, McpClient.wrap de mppx/mcp/client".into(),
        ],
        protocol_en: "MPP (Machine Payments Protocol, IETF draft-ryan-httpauth-payment): method \"evm\", intent \"charge\", EIP-3009 authorization credential; EVM networks only".into(),
        steps_en: vec![
            format!("1. GET {study_url} without payment: beside x402's 402, WWW-Authenticate carries a Payment challenge (method=\"evm\", intent=\"charge\") for the same amount ({amount_en}), token, network and payee; it expires in 5 minutes."),
            "2. Sign an EIP-3009 authorization whose nonce is keccak256(id ‖ realm) of the challenge and repeat the GET with Authorization: Payment <base64url of {challenge, payload, source}> (mppx does it for you). Never send PAYMENT-SIGNATURE too: two payments in one request get 400.".into(),
            "3. 200 with the study and Payment-Receipt (reference is the transaction). A refused credential gets 402 with an RFC 9457 problem and a fresh challenge; each credential is charged once.".into(),
        ],
        mcp_en: "Over MCP, comprar_estudio carries the MPP challenges: as JSON-RPC error -32042 (data.challenges, x402's PaymentRequired in data.x402) when a 2026-07-28 request declares experimental.payment; otherwise in the x402 result's _meta[\"org.paymentauth/payment-required\"]. Call again with the credential object in params._meta[\"org.paymentauth/credential\"]; the receipt is in _meta[\"org.paymentauth/receipt\"].".into(),
    }
}
