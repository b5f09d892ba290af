//! What the service offers to a buyer: networks, assets, amounts and the buying steps.
//!
//! The mode in `servicio.toml` is the one setting that decides the networks. Everything that
//! talks about payment (service index, sheets, openapi.json, llms.txt, the discovery
//! manifest, and the 402 requirements the gate sends, which it reads from `gate.json`) is
//! derived here, so no two documents can give two answers to the same question.

use serde::Serialize;
use serde_json::{Value, json};

use crate::model::{Mode, ServiceSettings};

/// x402 protocol version spoken by the gate.
pub const X402_VERSION: u32 = 2;
/// How long a payment authorization may take to settle, in seconds (both reference stacks use 300).
pub const MAX_TIMEOUT_SECONDS: u64 = 300;

/// One network a buyer can pay on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Network {
    /// Short name ("base-sepolia").
    pub red: &'static str,
    /// Readable name.
    pub nombre: &'static str,
    /// CAIP-2 id ("eip155:84532").
    pub caip2: &'static str,
    /// USDC contract on that network.
    pub asset: &'static str,
    /// EIP-712 domain name and version of that USDC contract.
    pub eip712_name: &'static str,
    pub eip712_version: &'static str,
    pub pagar_a: String,
}

/// The networks offered in a mode.
pub fn networks(service: &ServiceSettings) -> Vec<Network> {
    let base_sepolia = Network {
        red: "base-sepolia",
        nombre: "Base Sepolia",
        caip2: "eip155:84532",
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        eip712_name: "USDC",
        eip712_version: "2",
        pagar_a: service.pagar_a_evm.clone(),
    };
    let base = Network {
        red: "base",
        nombre: "Base",
        caip2: "eip155:8453",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        eip712_name: "USD Coin",
        eip712_version: "2",
        pagar_a: service.pagar_a_evm.clone(),
    };
    match service.modo {
        Mode::Local | Mode::Testnet => vec![base_sepolia],
        Mode::Mainnet => vec![base],
    }
}

/// The x402 `PaymentRequirements` list for a price in atomic units.
pub fn accepts(service: &ServiceSettings, amount: u64) -> Vec<Value> {
    networks(service)
        .into_iter()
        .map(|n| {
            json!({
                "scheme": "exact",
                "network": n.caip2,
                "amount": amount.to_string(),
                "asset": n.asset,
                "payTo": n.pagar_a,
                "maxTimeoutSeconds": MAX_TIMEOUT_SECONDS,
                "extra": {"name": n.eip712_name, "version": n.eip712_version},
            })
        })
        .collect()
}

/// Views of a paid study: same price, different content.
pub const VIEWS: [&str; 2] = ["completo", "resumen"];

/// A network as the documents list it.
#[derive(Debug, Clone, Serialize)]
pub struct NetworkSummary {
    pub red: String,
    pub nombre: String,
    pub caip2: String,
    pub pagar_a: String,
    pub activo: String,
}

/// "How to buy", in Spanish with an English block, as every document shows it.
#[derive(Debug, Clone, Serialize)]
pub struct HowToBuy {
    pub protocolo: String,
    pub moneda: String,
    pub precio_usd: f64,
    pub monto_atomico: String,
    pub modo: String,
    pub redes: Vec<NetworkSummary>,
    pub pasos: Vec<String>,
    pub vistas: Views,
    pub no_se_cobra_si: String,
    pub tope_de_tu_cliente: String,
    pub clientes_oficiales: Vec<String>,
    pub en: HowToBuyEn,
}

#[derive(Debug, Clone, Serialize)]
pub struct Views {
    pub completo: String,
    pub resumen: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HowToBuyEn {
    pub protocol: String,
    pub steps: Vec<String>,
    pub views: Views,
    pub not_charged_if: String,
    pub client_cap: String,
}

/// Builds the "how to buy" block for a study URL template (`{slug}` kept literal when general).
pub fn how_to_buy(service: &ServiceSettings, price_usd: &str, amount: u64, study_url: &str) -> HowToBuy {
    let mode_note = match service.modo {
        Mode::Local => " (modo local: un facilitador local verifica la firma; no se mueve dinero en cadena)",
        Mode::Testnet => " (red de prueba: USDC de prueba de Base Sepolia)",
        Mode::Mainnet => "",
    };
    let redes = networks(service)
        .into_iter()
        .map(|n| NetworkSummary {
            red: n.red.to_owned(),
            nombre: format!("{}{mode_note}", n.nombre),
            caip2: n.caip2.to_owned(),
            pagar_a: n.pagar_a,
            activo: n.asset.to_owned(),
        })
        .collect();
    HowToBuy {
        protocolo: format!("x402 v{X402_VERSION} (esquema exact, EIP-3009)"),
        moneda: service.moneda.clone(),
        precio_usd: price_as_number(price_usd),
        monto_atomico: amount.to_string(),
        modo: service.modo.as_str().to_owned(),
        redes,
        pasos: vec![
            format!("1. Pida GET {study_url} sin pago: la respuesta 402 trae el encabezado PAYMENT-REQUIRED (y el mismo objeto en el campo x402 del cuerpo) con el precio, la red y la dirección de cobro."),
            format!("2. Firme con su billetera una autorización EIP-3009 por exactamente {amount} unidades de USDC ({price_usd} USD) a la dirección de cobro; un cliente x402 oficial (@x402/fetch, x402 de Python) lo hace solo."),
            "3. Repita el mismo GET con el encabezado PAYMENT-SIGNATURE: recibe 200 con el estudio, el encabezado PAYMENT-RESPONSE con la liquidación y enlaces de descarga firmados (JSON y ZIP) válidos por ".to_owned()
                + &format!("{} días.", service.vigencia_enlaces_dias),
        ],
        vistas: Views {
            completo: "El paquete completo: ficha, diseño con todas las preguntas, todas las tablas de análisis, hallazgos con respaldo, métricas y todas las respuestas originales con sus fuentes.".into(),
            resumen: "Ficha, diseño, hallazgos con su respaldo, métricas e índice de tablas, sin las respuestas; mismos enlaces de descarga del paquete completo.".into(),
        },
        no_se_cobra_si: "La liquidación se pide recién cuando el estudio ya está armado; si la firma no verifica, el monto no es exacto, la autorización venció o ya se usó, o el facilitador no confirma la liquidación, la respuesta es 402 y no se cobra nada.".into(),
        tope_de_tu_cliente: format!("Si su cliente tiene un tope por pago, debe admitir al menos {price_usd} USD ({amount} unidades de USDC con 6 decimales)."),
        clientes_oficiales: vec![
            "@x402/fetch + @x402/evm (TypeScript)".into(),
            "x402 (Python, PyPI)".into(),
            "@modelcontextprotocol/sdk con el binding x402 de MCP".into(),
        ],
        en: HowToBuyEn {
            protocol: format!("x402 v{X402_VERSION} (exact scheme, EIP-3009)"),
            steps: vec![
                format!("1. GET {study_url} without payment: the 402 answer carries the PAYMENT-REQUIRED header (and the same object in the body field x402) with price, network and pay-to address."),
                format!("2. Sign an EIP-3009 authorization for exactly {amount} USDC units ({price_usd} USD) to the pay-to address; official x402 clients do it for you."),
                format!("3. Repeat the GET with the PAYMENT-SIGNATURE header: 200 with the study, PAYMENT-RESPONSE with the settlement, and signed download links (JSON and ZIP) valid for {} days.", service.vigencia_enlaces_dias),
            ],
            views: Views {
                completo: "The full package: sheet, design with every question, every analysis table, findings with backing, metrics and every raw answer with its sources.".into(),
                resumen: "Sheet, design, findings with backing, metrics and table index, without the answers; same download links to the full package.".into(),
            },
            not_charged_if: "Settlement is requested only once the study is ready; if the signature does not verify, the amount is not exact, the authorization expired or was used, or the facilitator does not confirm settlement, the answer is 402 and nothing is charged.".into(),
            client_cap: format!("If your client caps each payment, allow at least {price_usd} USD ({amount} USDC units, 6 decimals)."),
        },
    }
}

/// A decimal price string as a JSON number ("0.99" → 0.99).
pub fn price_as_number(price: &str) -> f64 {
    price.parse().unwrap_or(0.0)
}
