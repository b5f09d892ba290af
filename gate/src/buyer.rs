//! A buyer: what an agent with a wallet does to buy a study (402 → sign EIP-3009 → pay → save
//! the study and download the files through the signed links, checking their sha256), how it
//! gets it again once bought (402 → sign the `sign-in-with-x` challenge → the study, no
//! charge), and how it checks the publisher's signed receipt afterwards ([`check_receipt`]).
//!
//! It behaves like the official x402 clients: it reads `PAYMENT-REQUIRED`, copies the chosen
//! `accepts` entry verbatim into `accepted`, signs with the requirement's EIP-712 domain and
//! sends standard base64 in `PAYMENT-SIGNATURE`; a sign-in is signed as `createSIWxPayload`
//! does, after the same check that the challenge is bound to the origin asked. Used by the
//! `comprar` binary and the tests.

pub mod cli;

use std::path::{Path, PathBuf};

use alloy_signer_local::PrivateKeySigner;
use anyhow::{Context, Result, bail};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::x402::evm::{client_authorization, domain_for, exact_payload_json, sign_authorization};
use crate::x402::header::{decode_json, encode_json};
use crate::x402::receipt::{self, PublicKey, ReceiptPayload};
use crate::x402::siwx::{self, SIGN_IN_WITH_X};
use crate::x402::{
    PAYMENT_IDENTIFIER, PaymentPayload, PaymentRequired, PaymentRequirements, SettlementResponse, X402_VERSION,
};

/// The outcome of a purchase attempt.
#[derive(Debug, Clone)]
pub struct Purchase {
    pub status: u16,
    pub body: Value,
    pub payment_response: Option<SettlementResponse>,
    pub payment_required: Option<PaymentRequired>,
}

/// Picks the EVM exact requirement, signs it and returns the `PAYMENT-SIGNATURE` value.
/// `raw` is the decoded `PAYMENT-REQUIRED` JSON, kept verbatim for `accepted`.
pub fn payment_header_from(raw: &Value, signer: &PrivateKeySigner, now: u64) -> Result<String> {
    let accepts = raw.get("accepts").and_then(Value::as_array).context("PAYMENT-REQUIRED sin accepts")?;
    let accepted = accepts
        .iter()
        .find(|a| {
            a.get("scheme").and_then(Value::as_str) == Some("exact")
                && a.get("network").and_then(Value::as_str).is_some_and(|n| n.starts_with("eip155:"))
        })
        .context("el servicio no ofrece una red EVM con el esquema exact")?;
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone())?;
    let domain = domain_for(&requirements)?;
    let auth = client_authorization(&requirements, signer.address(), now, crate::x402::evm::random_nonce())?;
    let signature = sign_authorization(signer, &domain, &auth)?;
    let payload = PaymentPayload {
        x402_version: X402_VERSION,
        resource: raw.get("resource").cloned(),
        accepted: accepted.clone(),
        payload: exact_payload_json(&auth, &signature),
        extensions: echoed_extensions(raw),
    };
    Ok(encode_json(&payload))
}

/// The 402's extensions echoed back, as x402 asks, with a fresh `payment-identifier` id when
/// the server declares that extension (so a retry under the same id is recognised).
fn echoed_extensions(raw: &Value) -> Option<Value> {
    let mut extensions = raw.get("extensions").filter(|e| e.as_object().is_some_and(|m| !m.is_empty())).cloned()?;
    if let Some(declared) = extensions.get_mut(PAYMENT_IDENTIFIER).and_then(Value::as_object_mut) {
        let mut info = declared.get("info").cloned().unwrap_or_else(|| serde_json::json!({}));
        info["id"] = Value::String(new_payment_id());
        declared.insert("info".to_owned(), info);
    }
    Some(extensions)
}

/// `pay_` and 32 random hex digits, as the official helper generates them.
pub fn new_payment_id() -> String {
    format!("pay_{}", hex::encode(&crate::x402::evm::random_nonce()[..16]))
}

/// The first GET of a purchase or a re-access: its 402's `PAYMENT-REQUIRED` as sent and as
/// read, or (`Err`) any other answer, handed back as it came.
async fn first_402(client: &reqwest::Client, url: &str) -> Result<Result<(Value, PaymentRequired), Purchase>> {
    let first = client.get(url).send().await.with_context(|| format!("no se pudo pedir {url}"))?;
    let status = first.status().as_u16();
    if status != 402 {
        let body = json_body(first).await;
        return Ok(Err(Purchase { status, body, payment_response: None, payment_required: None }));
    }
    let header = first
        .headers()
        .get("payment-required")
        .and_then(|v| v.to_str().ok())
        .context("la respuesta 402 no trae el encabezado PAYMENT-REQUIRED")?
        .to_owned();
    let raw: Value = decode_json(&header)?;
    let required: PaymentRequired =
        serde_json::from_value(raw.clone()).context("PAYMENT-REQUIRED no es un objeto x402 v2")?;
    Ok(Ok((raw, required)))
}

/// GET → 402 → sign → GET with `PAYMENT-SIGNATURE`.
pub async fn buy(client: &reqwest::Client, url: &str, signer: &PrivateKeySigner, now: u64) -> Result<Purchase> {
    let (raw, required) = match first_402(client, url).await? {
        Ok(first) => first,
        Err(answer) => return Ok(answer),
    };
    let signature = payment_header_from(&raw, signer, now)?;
    let paid = client.get(url).header("PAYMENT-SIGNATURE", signature).send().await?;
    let status = paid.status().as_u16();
    let payment_response =
        paid.headers().get("payment-response").and_then(|v| v.to_str().ok()).and_then(|v| decode_json(v).ok());
    let body = json_body(paid).await;
    Ok(Purchase { status, body, payment_response, payment_required: Some(required) })
}

/// GET → 402 → sign its `sign-in-with-x` challenge → GET with `SIGN-IN-WITH-X`: a wallet that
/// bought the study gets it again without paying (the answer's `reacceso` names the sale).
///
/// Like the official client (`assertSIWxChallengeBoundToOrigin`), it signs only a challenge
/// whose `domain` is the host of `origin` and whose `uri` is on that origin: a server cannot
/// have the wallet sign in to another service. `origin` is the public address the study is
/// sold at (the URL's own origin, unless a proxy or a port mapping stands in between).
pub async fn reaccess(
    client: &reqwest::Client,
    url: &str,
    origin: &str,
    signer: &PrivateKeySigner,
) -> Result<Purchase> {
    let (raw, required) = match first_402(client, url).await? {
        Ok(first) => first,
        Err(answer) => return Ok(answer),
    };
    let declaration = raw
        .pointer(&format!("/extensions/{SIGN_IN_WITH_X}"))
        .context("el 402 no declara sign-in-with-x: este servicio no entrega de nuevo sin pago")?;
    bound_to_origin(declaration, origin)?;
    // The chain of the first payment requirement, when the server takes sign-ins on it (as
    // the official wrapFetchWithSIWx picks it), else its first EVM chain.
    let paid_on = required.accepts.first().map(|a| a.network.as_str());
    let listed = |chain: &str| {
        declaration["supportedChains"].as_array().is_some_and(|c| c.iter().any(|c| c["chainId"] == chain))
    };
    let chain = paid_on.filter(|chain| listed(chain));
    let proof = siwx::sign(declaration, chain, signer)?;
    let again = client.get(url).header(siwx::HEADER, siwx::encode_header(&proof)).send().await?;
    let status = again.status().as_u16();
    let payment_response =
        again.headers().get("payment-response").and_then(|v| v.to_str().ok()).and_then(|v| decode_json(v).ok());
    let body = json_body(again).await;
    Ok(Purchase { status, body, payment_response, payment_required: Some(required) })
}

/// The challenge's `domain` must be `origin`'s host and its `uri` on `origin`.
fn bound_to_origin(declaration: &Value, origin: &str) -> Result<()> {
    let origin = url::Url::parse(origin).with_context(|| format!("origen inválido: {origin}"))?;
    let info = &declaration["info"];
    let host = match (origin.host_str(), origin.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => bail!("el origen {origin} no tiene host"),
    };
    let domain = info["domain"].as_str().unwrap_or_default();
    if domain != host {
        bail!("el desafío sign-in-with-x es para {domain:?}, no para {host:?}: no se firma");
    }
    let uri = info["uri"].as_str().and_then(|u| url::Url::parse(u).ok());
    if uri.as_ref().map(url::Url::origin) != Some(origin.origin()) {
        bail!("la uri del desafío sign-in-with-x no está en {}: no se firma", origin.origin().ascii_serialization());
    }
    Ok(())
}

async fn json_body(response: reqwest::Response) -> Value {
    let bytes = response.bytes().await.unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
}

/// The signed receipt a paid answer carries in its `PAYMENT-RESPONSE` (x402 `offer-receipt`).
pub fn receipt_of(settlement: &SettlementResponse) -> Option<&Value> {
    settlement.extensions.as_ref()?.get(receipt::OFFER_RECEIPT)?.pointer("/info/receipt")
}

/// What checking a receipt found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptReport {
    /// The key that signed it (`did:key:…`).
    pub signer: String,
    /// Whether it was compared with a key the buyer gave; without one only the signature
    /// under the key the receipt names is checked.
    pub key_checked: bool,
    pub payload: ReceiptPayload,
    /// Each file the receipt names, by kind, and what the folder holds of it.
    pub files: Vec<(String, FileCheck)>,
}

impl ReceiptReport {
    /// Whether every file found matches (a missing file is no failure unless required).
    pub fn files_ok(&self) -> bool {
        self.files.iter().all(|(_, check)| matches!(check, FileCheck::Matches | FileCheck::Missing(_)))
    }
}

/// One delivered file against the receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileCheck {
    /// Same size and sha256 as the receipt says.
    Matches,
    /// Not in the folder.
    Missing(PathBuf),
    /// In the folder, with other contents: its sha256 (and size).
    Differs { path: PathBuf, sha256: String, bytes: u64 },
}

/// Checks a receipt (as `comprar` saved it, or anything that holds one: a decoded
/// `PAYMENT-RESPONSE`, an MCP result, a paid answer): its signature, the signing key when
/// `expected` is given, and the files it names that are in `files` (by their names). Any
/// signature problem is an error; file results are in the report.
pub fn check_receipt(document: &Value, expected: Option<&PublicKey>, files: Option<&Path>) -> Result<ReceiptReport> {
    let signed = receipt::find(document)
        .context("no hay un recibo firmado: se esperaba {\"format\": \"jws\", \"signature\": …} o una respuesta de pago que lo traiga")?;
    let verified = receipt::verify(signed, expected)?;
    let mut checks = Vec::new();
    if let Some(folder) = files {
        for (kind, file) in &verified.payload.files {
            let path = folder.join(&file.file);
            let check = match std::fs::read(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileCheck::Missing(path),
                Err(e) => return Err(anyhow::Error::new(e).context(format!("no se pudo leer {}", path.display()))),
                Ok(bytes) => {
                    let sha256 = hex::encode(Sha256::digest(&bytes));
                    if sha256.eq_ignore_ascii_case(&file.sha256) && bytes.len() as u64 == file.bytes {
                        FileCheck::Matches
                    } else {
                        FileCheck::Differs { path, sha256, bytes: bytes.len() as u64 }
                    }
                }
            };
            checks.push((kind.clone(), check));
        }
    }
    Ok(ReceiptReport {
        signer: verified.signer.did_key(),
        key_checked: expected.is_some(),
        payload: verified.payload,
        files: checks,
    })
}

/// Attempts per download before giving up on a link that keeps failing mid-way.
const DOWNLOAD_ATTEMPTS: u32 = 5;

/// A finished download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Downloaded {
    /// Size of the file, bytes.
    pub bytes: u64,
    /// How many times it was resumed with a `Range` after an interruption.
    pub resumes: u32,
}

/// Downloads to `dest` and checks its sha256.
///
/// The bytes go to `dest` + `.parcial` first. A connection that breaks mid-way is resumed
/// from the bytes already on disk with `Range` and `If-Range` (the file's ETag is its sha256,
/// so the gate sends the rest only of this very file), up to [`DOWNLOAD_ATTEMPTS`] times; a
/// partial file left by an earlier run is resumed the same way. The sha256 is checked over the
/// whole file before it is renamed to `dest`. Should a resumed file fail the check (a partial
/// file damaged on disk), it is downloaded once more from the first byte; a file that fails
/// it whole is refused and nothing is kept.
pub async fn download_verified(
    client: &reqwest::Client,
    url: &str,
    expected_sha256: &str,
    dest: &Path,
) -> Result<Downloaded> {
    let partial = partial_path(dest);
    let etag = format!("\"{}\"", expected_sha256.to_ascii_lowercase());
    let mut resumes = fetch_resuming(client, url, &etag, &partial).await?;
    let (mut bytes, mut actual) = sha256_of_file(&partial).await?;
    if !actual.eq_ignore_ascii_case(expected_sha256) && resumes > 0 {
        let _ = tokio::fs::remove_file(&partial).await;
        resumes += fetch_resuming(client, url, &etag, &partial).await?;
        (bytes, actual) = sha256_of_file(&partial).await?;
    }
    if !actual.eq_ignore_ascii_case(expected_sha256) {
        let _ = tokio::fs::remove_file(&partial).await;
        bail!("sha256 de {} es {actual}, la ficha dice {expected_sha256}", dest.display());
    }
    tokio::fs::rename(&partial, dest).await.with_context(|| format!("no se pudo escribir {}", dest.display()))?;
    Ok(Downloaded { bytes, resumes })
}

/// Fetches the file into `partial` until the server has sent all of it, resuming after each
/// interruption; returns how many requests resumed from bytes already on disk.
async fn fetch_resuming(client: &reqwest::Client, url: &str, etag: &str, partial: &Path) -> Result<u32> {
    let mut resumes = 0;
    for attempt in 1..=DOWNLOAD_ATTEMPTS {
        let had = tokio::fs::metadata(partial).await.map(|m| m.len()).unwrap_or(0);
        if had > 0 {
            resumes += 1;
        }
        match fetch_into(client, url, etag, partial, had).await {
            Ok(()) => return Ok(resumes),
            Err(Fetch::Refused(error)) => return Err(error),
            Err(Fetch::Interrupted(error)) if attempt == DOWNLOAD_ATTEMPTS => {
                return Err(error.context(format!("la descarga se cortó {attempt} veces; quedó {}", partial.display())));
            }
            Err(Fetch::Interrupted(_)) => {
                tokio::time::sleep(std::time::Duration::from_millis(200 * u64::from(attempt))).await;
            }
        }
    }
    Ok(resumes)
}

/// Where a download is written until its sha256 is checked.
fn partial_path(dest: &Path) -> std::path::PathBuf {
    let mut name = dest.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".parcial");
    dest.with_file_name(name)
}

/// Why one request of a download did not finish it.
enum Fetch {
    /// The server refused (a dead link, a missing file): retrying would not help.
    Refused(anyhow::Error),
    /// The connection failed or broke mid-way: what arrived is on disk, resume from there.
    Interrupted(anyhow::Error),
}

/// One request: the rest of the file after the `had` bytes already in `partial` (or the whole
/// file when the server answers 200), appended as it arrives.
async fn fetch_into(client: &reqwest::Client, url: &str, etag: &str, partial: &Path, had: u64) -> Result<(), Fetch> {
    let mut request = client.get(url);
    if had > 0 {
        request = request.header("Range", format!("bytes={had}-")).header("If-Range", etag);
    }
    let mut response = request.send().await.map_err(|e| Fetch::Interrupted(e.into()))?;
    let status = response.status().as_u16();
    let append = match status {
        206 if resumes_at(&response) == Some(had) => true,
        200 => false,
        // The partial file already holds every byte: the sha256 check decides.
        416 if had > 0 => return Ok(()),
        _ => {
            let body = json_body(response).await;
            return Err(Fetch::Refused(anyhow::anyhow!("la descarga respondió {status}: {body}")));
        }
    };
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(partial)
        .await
        .with_context(|| format!("no se pudo crear {}", partial.display()))
        .map_err(Fetch::Refused)?;
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => file.write_all(&chunk).await.map_err(|e| Fetch::Refused(e.into()))?,
            Ok(None) => break,
            Err(e) => {
                let _ = file.flush().await;
                return Err(Fetch::Interrupted(e.into()));
            }
        }
    }
    file.flush().await.map_err(|e| Fetch::Refused(e.into()))?;
    Ok(())
}

/// The first byte a 206 answer carries (`Content-Range: bytes first-last/total`).
fn resumes_at(response: &reqwest::Response) -> Option<u64> {
    let value = response.headers().get("content-range")?.to_str().ok()?;
    value.strip_prefix("bytes ")?.split('-').next()?.trim().parse().ok()
}

/// Size and sha256 (hex) of a file, read in chunks.
async fn sha256_of_file(path: &Path) -> Result<(u64, String)> {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(path).await.with_context(|| format!("no se pudo leer {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buffer).await?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        bytes += n as u64;
    }
    Ok((bytes, hex::encode(hasher.finalize())))
}
