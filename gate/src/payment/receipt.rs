//! The publisher's signatures on what is sold: signed offers in every 402 and a signed receipt
//! on every sale (x402 `offer-receipt`, wire format in [`crate::x402::receipt`]).
//!
//! It exists so the shop and the 402 builders need one call each: the generator writes each
//! 402 without the offers (it never holds the key), and the gate adds them at load, after the
//! facilitator's `/supported` has settled which requirements are offered, as it does for the
//! Solana fee payers. A receipt is a pure function of the settled sale (network, payer,
//! transaction, the amount settled, the settlement's time) and the offer sold (study, view,
//! terms, the files' sha256 from the manifest), so the first answer and every repeat of the
//! paid request carry the same signed bytes, whether the sale is in memory or was restored from
//! the journal after a restart.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::offer::{Offer, Offers};
use crate::x402::receipt::{OFFER_RECEIPT, PAYLOAD_VERSION, ReceiptFile, ReceiptKey, ReceiptPayload};
use crate::x402::{PaymentRequirements, SettlementResponse};

/// Adds the signed offers to every 402 of `offers` (HTTP and MCP: the same offers, for the
/// study view's URL, so a receipt matches its offer whichever binding sold it).
pub fn sign_offers(offers: &mut Offers, key: &ReceiptKey) {
    for offer in offers.iter_mut() {
        let declared = key.offers_extension(&offer.required.resource.url, &offer.required.accepts);
        insert(&mut offer.required.extensions, declared.clone());
        insert(&mut offer.required_mcp.extensions, declared);
    }
}

/// Adds the signed receipt of a sale of `offer` to its settlement's `extensions`. `paid` is the
/// requirement the payment chose (used when the offer no longer lists the settled network);
/// `settled_at` is the settlement's Unix time, as journaled.
pub fn attach(
    settlement: &mut SettlementResponse,
    key: &ReceiptKey,
    offer: &Offer,
    paid: &PaymentRequirements,
    settled_at: u64,
) {
    let network = if settlement.network.is_empty() { paid.network.clone() } else { settlement.network.clone() };
    let terms = offer.required.accepts.iter().find(|a| a.network == network).unwrap_or(paid);
    let files: BTreeMap<String, ReceiptFile> = offer
        .downloads
        .iter()
        .map(|d| {
            let file = ReceiptFile {
                file: d.name.clone(),
                media_type: d.media_type.clone(),
                bytes: d.bytes,
                sha256: d.sha256.clone(),
            };
            (d.kind.clone(), file)
        })
        .collect();
    let payload = ReceiptPayload {
        version: PAYLOAD_VERSION,
        network,
        resource_url: offer.required.resource.url.clone(),
        payer: settlement.payer.clone().unwrap_or_default(),
        issued_at: settled_at,
        transaction: Some(settlement.transaction.clone()).filter(|t| !t.is_empty()),
        scheme: terms.scheme.clone(),
        asset: terms.asset.clone(),
        amount: settlement.amount.clone().unwrap_or_else(|| terms.amount.clone()),
        pay_to: terms.pay_to.clone(),
        study: offer.slug.clone(),
        view: offer.view.as_str().to_owned(),
        files,
    };
    insert(&mut settlement.extensions, key.receipt_extension(&payload));
}

/// The signed receipt a settlement carries, if any.
pub fn of(settlement: &SettlementResponse) -> Option<&Value> {
    settlement.extensions.as_ref()?.get(OFFER_RECEIPT)?.pointer("/info/receipt")
}

/// Sets `extensions["offer-receipt"]`, keeping any other extension.
fn insert(extensions: &mut Option<Value>, entry: Value) {
    let mut map = match extensions.take() {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    map.insert(OFFER_RECEIPT.to_owned(), entry);
    *extensions = Some(Value::Object(map));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::payment::offer::DownloadInfo;
    use crate::payment::offer::tests::offer;
    use crate::x402::receipt::verify;

    fn sold() -> Offer {
        let mut offer = offer();
        offer.downloads = vec![DownloadInfo {
            kind: "zip".into(),
            name: "banca-2026.zip".into(),
            media_type: "application/zip".into(),
            bytes: 10,
            sha256: "d".repeat(64),
        }];
        offer
    }

    fn settled() -> SettlementResponse {
        SettlementResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266".into()),
            transaction: format!("0x{}", "12".repeat(32)),
            network: "eip155:84532".into(),
            amount: Some("990000".into()),
            extensions: Some(json!({"otra": {"info": {}}})),
        }
    }

    #[test]
    fn a_sale_gets_a_receipt_of_its_terms_and_files_beside_other_extensions() {
        let key = ReceiptKey::from_seed([3u8; 32]);
        let offer = sold();
        let mut settlement = settled();
        attach(&mut settlement, &key, &offer, &offer.required.accepts[0], 1_800_000_000);
        assert!(settlement.extensions.as_ref().and_then(|e| e.get("otra")).is_some(), "other extensions kept");
        let payload = verify(of(&settlement).expect("receipt"), Some(&key.public())).expect("verifies").payload;
        assert_eq!(payload.resource_url, "http://127.0.0.1:8080/estudio/banca-2026?vista=resumen");
        assert_eq!((payload.study.as_str(), payload.view.as_str()), ("banca-2026", "resumen"));
        assert_eq!(
            (payload.amount.as_str(), payload.asset.as_str()),
            ("990000", "0x036CbD53842c5426634e7929541eC2318f3dCF7e")
        );
        assert_eq!(payload.transaction.as_deref(), Some(settlement.transaction.as_str()));
        assert_eq!(payload.issued_at, 1_800_000_000);
        assert_eq!(payload.files["zip"].sha256, "d".repeat(64));

        // The repeat of the paid request re-issues the same bytes.
        let mut again = settled();
        attach(&mut again, &key, &offer, &offer.required.accepts[0], 1_800_000_000);
        assert_eq!(of(&again), of(&settlement));
    }
}
