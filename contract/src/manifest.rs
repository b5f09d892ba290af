//! `dist/gate.json`: the manifest the generator writes last and the gate reads first.
//!
//! It is the whole contract between the halves: which URLs are free files, which studies are
//! sold at what price with which 402 requirements, which files can be downloaded, and the
//! search index. The gate never reads `content/`; what it knows about the store it knows
//! from here. One definition, serialized by the generator and deserialized by the gate (as
//! mdBook's `RenderContext`), so the two cannot drift.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};

use crate::mode::Mode;
use crate::price::ListedPrice;
use crate::search::SearchIndex;
use crate::view::View;
use crate::x402::PaymentRequired;

/// The manifest format: the gate refuses any other.
pub const FORMAT: &str = "gate-manifest/2";
/// The manifest's file name inside `dist/`.
pub const FILE: &str = "gate.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(rename = "formato")]
    pub format: String,
    #[serde(rename = "servicio")]
    pub service: Service,
    /// URL path → free file of `public/`.
    #[serde(rename = "rutas")]
    pub routes: BTreeMap<String, Route>,
    /// Slug → what is sold.
    #[serde(rename = "estudios")]
    pub studies: BTreeMap<String, Study>,
    /// Download name → private file.
    #[serde(rename = "descargas")]
    pub downloads: BTreeMap<String, Download>,
    #[serde(rename = "busqueda")]
    pub search: SearchIndex,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Service {
    #[serde(rename = "nombre")]
    pub name: String,
    /// Absolute URL the gate is reached at, without a trailing slash.
    pub base_url: String,
    #[serde(rename = "modo")]
    pub mode: Mode,
    #[serde(rename = "vigencia_enlaces_dias")]
    pub link_validity_days: u32,
    #[serde(rename = "contacto")]
    pub contact: String,
    #[serde(rename = "redes")]
    pub networks: Vec<Network>,
}

/// One network a buyer can pay on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// Short name ("base-sepolia").
    #[serde(rename = "red")]
    pub network: String,
    /// Readable name.
    #[serde(rename = "nombre")]
    pub name: String,
    /// CAIP-2 id ("eip155:84532").
    pub caip2: String,
    /// USDC contract (EVM) or mint (Solana) on that network.
    pub asset: String,
    /// EIP-712 domain name and version of that USDC contract (EVM only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eip712_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eip712_version: Option<String>,
    #[serde(rename = "pagar_a")]
    pub pay_to: String,
}

impl Network {
    pub fn is_solana(&self) -> bool {
        self.caip2.starts_with("solana:")
    }
}

/// A free file served at a URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Route {
    /// Path relative to `dist/`.
    #[serde(rename = "archivo")]
    pub file: String,
    /// Content type.
    #[serde(rename = "tipo")]
    pub media_type: String,
    pub etag: String,
    pub bytes: u64,
    /// Cache-Control.
    pub cache: String,
    /// Another route answered instead when the client prefers `text/html` (on `/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// A study for sale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(flatten)]
    pub price: ListedPrice,
    /// What each view delivers and what its 402 asks for it.
    #[serde(rename = "vistas")]
    pub views: BTreeMap<View, ViewOffer>,
    /// Names of the downloads a purchase links to (keys of [`Manifest::downloads`]).
    #[serde(rename = "descargas")]
    pub downloads: Vec<String>,
    /// The HTML a browser gets with the 402 (the JSON 402 is `vistas.*.pago_requerido`).
    #[serde(rename = "pagina_402")]
    pub page_402: String,
}

/// One paid view of a study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewOffer {
    /// The file the paid answer embeds, relative to `dist/`.
    #[serde(rename = "archivo")]
    pub file: String,
    /// The PaymentRequired object the gate answers this view with over HTTP (without `error`).
    #[serde(serialize_with = "with_sorted_keys")]
    #[serde(rename = "pago_requerido")]
    pub payment_required: PaymentRequired,
    /// The same over MCP (the tool `comprar_estudio`): the same `accepts`, a resource naming
    /// the tool, and the extensions that describe the tool call.
    #[serde(serialize_with = "with_sorted_keys")]
    #[serde(rename = "pago_requerido_mcp")]
    pub payment_required_mcp: PaymentRequired,
}

/// A file a signed link opens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Download {
    /// Path relative to `dist/`.
    #[serde(rename = "archivo")]
    pub file: String,
    #[serde(rename = "tipo")]
    pub media_type: String,
    pub bytes: u64,
    pub sha256: String,
    /// Set on a file of an earlier build, kept because links and receipts already issued name
    /// it: the slug of the study it was a build of. A later build keeps it until the publisher
    /// runs `generator build --descartar-anteriores`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "anterior_de")]
    pub previous_of: Option<String>,
}

/// Writes a value with its object keys sorted (as a `serde_json::Value` is), so the bytes of
/// `gate.json` do not depend on the order of a wire type's fields.
fn with_sorted_keys<T: Serialize, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(value).map_err(serde::ser::Error::custom)?.serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::price::Price;
    use crate::x402::{PaymentRequirements, ResourceInfo};

    fn study() -> Study {
        let requirement = PaymentRequirements {
            scheme: "exact".into(),
            network: "eip155:84532".into(),
            amount: "990000".into(),
            asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
            pay_to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
            max_timeout_seconds: 300,
            extra: Some(serde_json::json!({"name": "USDC", "version": "2"})),
        };
        let required = PaymentRequired {
            x402_version: 2,
            error: None,
            resource: ResourceInfo { url: "http://x/estudio/a?vista=completo".into(), ..ResourceInfo::default() },
            accepts: vec![requirement],
            extensions: Some(serde_json::json!({})),
        };
        Study {
            name: "A".into(),
            price: ListedPrice(Price::from_usd("0.99").expect("price")),
            views: BTreeMap::from([(
                View::Full,
                ViewOffer { file: "a.json".into(), payment_required_mcp: required.clone(), payment_required: required },
            )]),
            downloads: vec!["a.json".into()],
            page_402: "pago-a.html".into(),
        }
    }

    #[test]
    fn a_study_round_trips_with_its_402_keys_sorted() {
        let study = study();
        let text = serde_json::to_string(&study).expect("serializes");
        assert!(
            text.starts_with(r#"{"nombre":"A","precio_usd":"0.99","monto":"990000","vistas":{"completo":"#),
            "{text}"
        );
        assert!(text.contains(r#""pago_requerido":{"accepts":[{"amount":"990000","asset""#), "{text}");
        assert_eq!(serde_json::from_str::<Study>(&text).expect("parses"), study);
    }
}
