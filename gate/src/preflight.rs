//! `gate verificar` (`preflight`): everything a go-live needs, checked without moving money.
//!
//! It reads the same `dist/`, flags and environment the gate serves with and prints one line
//! per check, `ok` or `FALLA` with what to fix: the manifest's mode against the one being
//! checked, its networks, assets and EIP-712 domains against [`contract::networks`], every
//! payee address, the link secret, the receipt key, `base_url`, which facilitator it would
//! use (never the local one or x402.org on mainnet), that facilitator's `/supported` under
//! the configured authentication, for our scheme on every network the manifest offers, and,
//! for each EVM network with an RPC, the chain itself: its id, that the node is current, that
//! the asset's `name()` and `version()` are the EIP-712 domain the 402 advertises, and what
//! payTo is there.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use alloy_primitives::Address;

use crate::chain::evm::RpcChain;
use crate::chain::{RPC_ENV_PREFIX, rpc_urls_from_env, rpc_urls_from_flags};
use crate::clock::now;
use crate::facilitator::Facilitator;
use crate::facilitator::cdp::{KEY_ID_ENV, KEY_SECRET_ENV};
use crate::links::SECRET_ENV;
use crate::manifest::{Manifest, Mode, Network};
use crate::settings::{Env, FACILITATOR_URL_ENV, FacilitatorChoice, build_facilitator, choose_facilitator};
use crate::x402::SupportedResponse;
use crate::x402::receipt::{KEY_ENV as RECEIPT_KEY_ENV, KEY_FILE as RECEIPT_KEY_FILE, ReceiptKey};

pub mod output;
pub use output::Serving;

/// The link secret's minimum length outside local mode, in bytes.
const MIN_LINK_SECRET_BYTES: usize = 32;

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub ok: bool,
    /// Passed, with something the publisher should look at (`AVISO`): not a failure.
    pub warning: bool,
    pub what: String,
    pub detail: String,
}

/// Every check, in order.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub lines: Vec<Line>,
}

impl Report {
    fn ok(&mut self, what: impl Into<String>, detail: impl Into<String>) {
        self.lines.push(Line { ok: true, warning: false, what: what.into(), detail: detail.into() });
    }

    fn warn(&mut self, what: impl Into<String>, detail: impl Into<String>) {
        self.lines.push(Line { ok: true, warning: true, what: what.into(), detail: detail.into() });
    }

    fn fail(&mut self, what: impl Into<String>, detail: impl Into<String>) {
        self.lines.push(Line { ok: false, warning: false, what: what.into(), detail: detail.into() });
    }

    fn check(&mut self, what: impl Into<String>, result: Result<String, String>) {
        match result {
            Ok(detail) => self.ok(what, detail),
            Err(detail) => self.fail(what, detail),
        }
    }

    pub fn failures(&self) -> usize {
        self.lines.iter().filter(|l| !l.ok).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            let tag = match (line.ok, line.warning) {
                (false, _) => "FALLA",
                (true, true) => "AVISO",
                (true, false) => "ok",
            };
            writeln!(f, "{tag:<5} {}: {}", line.what, line.detail)?;
        }
        match self.failures() {
            0 => writeln!(f, "{} comprobaciones, ninguna falla", self.lines.len()),
            n => writeln!(f, "{} comprobaciones, {n} con FALLA", self.lines.len()),
        }
    }
}

/// What to check: the serving flags that matter, the mode expected, and the environment. No
/// `Debug`: the facilitator URL and the RPC URLs may carry keys.
#[derive(Clone)]
pub struct Inputs<'a> {
    pub dist: &'a Path,
    pub data: &'a Path,
    pub facilitator_url: Option<String>,
    pub expected_mode: Option<Mode>,
    pub env: &'a Env,
    /// `--rpc RED=URL` values (beside the environment's `GATE_RPC_EIP155_<id>`).
    pub rpc_flags: Vec<String>,
    /// Where traffic comes from, as serving would be told (`--escuchar`, `--proxies`, TLS).
    pub serving: Serving,
}

/// Runs every check (the facilitator's `/supported` is the only one that leaves the machine).
pub async fn run(inputs: Inputs<'_>) -> Report {
    let mut report = Report::default();
    let manifest = match crate::manifest::load(inputs.dist) {
        Ok(manifest) => {
            report.ok("manifiesto", format!("{} estudios en {}", manifest.studies.len(), inputs.dist.display()));
            manifest
        }
        Err(e) => {
            report.fail("manifiesto", format!("{e:#}"));
            return report;
        }
    };
    let mode = manifest.service.mode;
    report.check("modo", check_mode(mode, inputs.expected_mode));
    check_networks(&manifest, &mut report);
    check_offers(&manifest, &mut report);
    for payee in payees(&manifest) {
        report.check(format!("pagar_a {payee}"), check_payee(&payee));
        if payee.starts_with("0x") {
            report.check(format!("pagar_a {payee} propia"), output::check_not_development(mode, &payee));
        }
    }
    report.check("estudios", output::check_synthetic(mode, &manifest, inputs.dist));
    report.check("clave de enlaces", check_link_secret(mode, inputs.env.link_secret.as_deref()));
    report.check("clave de recibos", check_receipt_key(mode, inputs.env.receipt_key.as_deref()));
    report.check("base_url", check_base_url(mode, &manifest.service.base_url));
    output::check_proxies(mode, &manifest.service.base_url, &inputs.serving, &mut report);
    output::check_journal(mode, &manifest, inputs.data, &mut report);
    match choose_facilitator(mode, inputs.facilitator_url, inputs.data, inputs.env) {
        Err(e) => report.fail("facilitador", format!("{e:#}")),
        Ok(choice) => {
            let usable = describe_facilitator(mode, &choice);
            let good = usable.is_ok();
            report.check("facilitador", usable);
            if good {
                report.check("facilitador /supported", check_supported(&manifest, &choice).await);
            }
        }
    }
    let journal = (inputs.env.sales.as_deref().is_none_or(|url| url.trim().is_empty()))
        .then(|| inputs.data.join(crate::settings::PURCHASES_FILE));
    check_chains(&manifest, inputs.env, &inputs.rpc_flags, journal.as_deref(), &mut report).await;
    report
}

/// Seconds the RPC's newest block may lag the clock.
const MAX_RPC_LAG_SECONDS: u64 = 120;

/// Each EVM network's chain, read through its RPC when one is configured.
async fn check_chains(manifest: &Manifest, env: &Env, flags: &[String], journal: Option<&Path>, report: &mut Report) {
    let mut urls = match rpc_urls_from_env(env.rpc.iter().cloned()) {
        Ok(urls) => urls,
        Err(e) => {
            report.fail("RPC", e);
            return;
        }
    };
    match rpc_urls_from_flags(flags) {
        Ok(more) => urls.extend(more),
        Err(e) => report.fail("RPC", e),
    }
    for network in manifest.service.networks.iter().filter(|n| !n.is_solana()) {
        let what = format!("cadena {}", network.caip2);
        let Some(url) = urls.get(&network.caip2) else {
            let id = network.caip2.trim_start_matches("eip155:");
            report.ok(
                what,
                format!(
                    "sin RPC ({RPC_ENV_PREFIX}{id}): solo un éxito del facilitador con transacción entrega un estudio; lo incierto espera a `gate ventas conciliar`"
                ),
            );
            continue;
        };
        match RpcChain::new(&network.caip2, url, std::time::Duration::from_secs(10)) {
            Ok(chain) => {
                check_chain(&chain, network, report).await;
                if let Some(journal) = journal {
                    check_one_record(&chain, network, journal, report).await;
                }
            }
            Err(e) => report.fail(what, e.to_string()),
        }
    }
}

/// Blocks back from the head in which payments to payTo are compared with the sales record
/// (about 5.5 hours on Base, a block every 2 s).
const RECORD_CHECK_BLOCKS: u64 = 10_000;

/// One sales record per payTo: the gate takes an authorization the chain shows paid to payTo,
/// and that no sale of its record holds, as its own (a buyer front-run by whoever submitted the
/// authorization first). Another gate with another record, or another service, paying into the
/// same payTo breaks that rule: its payments show on chain and this record does not know them.
async fn check_one_record(chain: &RpcChain, network: &Network, journal: &Path, report: &mut Report) {
    let what = format!("un registro de ventas por payTo ({})", network.caip2);
    let (Ok(asset), Ok(pay_to)) = (network.asset.parse::<Address>(), network.pay_to.parse::<Address>()) else {
        return;
    };
    let latest = match chain.rpc().latest().await {
        Ok(block) => block,
        Err(e) => return report.fail(what, e.to_string()),
    };
    let from = latest.number.saturating_sub(RECORD_CHECK_BLOCKS);
    let payments = match chain.payments_to(asset, pay_to, from, latest.number).await {
        Ok(payments) => payments,
        Err(e) => return report.fail(what, format!("no se pudieron leer los pagos a payTo: {e}")),
    };
    let records = match crate::sales::journal::read(journal) {
        Ok(contents) => contents.records,
        Err(e) => return report.fail(what, format!("{e:#}")),
    };
    let known: BTreeSet<String> = records.iter().map(|r| r.purchase.to_ascii_lowercase()).collect();
    let unknown: Vec<_> = payments
        .iter()
        .filter(|p| !known.contains(&format!("{}|{:#x}|{:#x}", network.caip2, p.payer, p.nonce).to_ascii_lowercase()))
        .collect();
    match unknown.first() {
        None => report.ok(
            what,
            format!(
                "los {} pagos por autorización a payTo de los últimos {} bloques están en {}",
                payments.len(),
                latest.number - from,
                journal.display()
            ),
        ),
        Some(first) => report.warn(
            what,
            format!(
                "{} de {} pagos por autorización a payTo de los últimos {} bloques no están en {} (p. ej. pagador {:#x}, transacción {:#x}): otro gate con otro registro, u otro servicio, cobra en la misma payTo. El gate toma como propio un pago en la cadena que su registro no conoce (un comprador adelantado por quien envió su autorización primero): use un solo registro de ventas por payTo (varios gates: PostgreSQL, --ventas), o una payTo propia para esta tienda",
                unknown.len(),
                payments.len(),
                latest.number - from,
                journal.display(),
                first.payer,
                first.transaction
            ),
        ),
    }
}

async fn check_chain(chain: &RpcChain, network: &Network, report: &mut Report) {
    let at = chain.rpc().describe();
    let expected_id = network.caip2.trim_start_matches("eip155:").parse::<u64>().unwrap_or(0);
    match chain.rpc().chain_id().await {
        Ok(id) if id == expected_id => {
            report.ok(format!("cadena {}", network.caip2), format!("{at} sirve la cadena {id}"))
        }
        Ok(id) => {
            report.fail(
                format!("cadena {}", network.caip2),
                format!(
                    "{at} sirve la cadena {id}, y la red ofrecida es {}: revise GATE_RPC_EIP155_{expected_id}",
                    network.caip2
                ),
            );
            return;
        }
        Err(e) => {
            report.fail(format!("cadena {}", network.caip2), e.to_string());
            return;
        }
    }
    report.check(
        format!("cadena {} al día", network.caip2),
        match chain.rpc().latest().await {
            Ok(block) if block.timestamp + MAX_RPC_LAG_SECONDS >= now() => {
                Ok(format!("bloque {} de hace {} s", block.number, now().saturating_sub(block.timestamp)))
            }
            Ok(block) => Err(format!(
                "el bloque más nuevo ({}) es de hace {} s: el nodo está atrasado o detenido",
                block.number,
                now().saturating_sub(block.timestamp)
            )),
            Err(e) => Err(e.to_string()),
        },
    );
    let Ok(asset) = network.asset.parse::<Address>() else {
        report.fail(format!("activo {}", network.asset), "no es una dirección EVM");
        return;
    };
    let advertised = network.eip712_name.clone().zip(network.eip712_version.clone());
    report.check(
        format!("dominio EIP-712 de {}", network.asset),
        match chain.token_domain(asset).await {
            Ok(domain) if Some(&domain) == advertised.as_ref() => {
                Ok(format!("name() \"{}\" y version() \"{}\", los del 402", domain.0, domain.1))
            }
            Ok(domain) => Err(format!(
                "el contrato dice name() \"{}\" y version() \"{}\", y el 402 anuncia {}: las firmas de los compradores no valdrían",
                domain.0,
                domain.1,
                domain_text(advertised)
            )),
            Err(e) => Err(format!("no se pudo leer el contrato del activo: {e}")),
        },
    );
    if let Ok(pay_to) = network.pay_to.parse::<Address>() {
        let code = chain.rpc().code(pay_to).await.map(|c| c.is_empty());
        let balance = chain.balance_of(asset, pay_to).await;
        report.check(
            format!("payTo {}", network.pay_to),
            match (code, balance) {
                (Ok(plain), Ok(balance)) => Ok(format!(
                    "{}, saldo {} USDC: confirme que es la cuenta del editor",
                    if plain { "cuenta externa (sin código)" } else { "contrato (billetera inteligente)" },
                    crate::sales::report::usdc(u128::try_from(balance).unwrap_or(u128::MAX))
                )),
                (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
            },
        );
    }
}

fn check_mode(mode: Mode, expected: Option<Mode>) -> Result<String, String> {
    match expected {
        None => Ok(format!("{mode} (de gate.json; indique --modo para exigirlo)")),
        Some(expected) if expected == mode => Ok(format!("{mode}, como se pidió")),
        Some(expected) => Err(format!(
            "dist/ se construyó en modo {mode} y se verifica el modo {expected}: ponga modo = \"{expected}\" en servicio.toml y corra `generator build` de nuevo"
        )),
    }
}

/// The manifest's networks against the canonical ones of its mode, one line each.
fn check_networks(manifest: &Manifest, report: &mut Report) {
    let mode = manifest.service.mode;
    let evm = contract::networks::evm(mode);
    let solana = contract::networks::solana(mode);
    for network in &manifest.service.networks {
        let what = format!("red {}", network.caip2);
        let canonical = [Some(evm), solana].into_iter().flatten().find(|c| c.caip2 == network.caip2);
        let result = match canonical {
            None => Err(format!(
                "el modo {mode} no ofrece esta red (ofrece {}{})",
                evm.caip2,
                match solana {
                    Some(s) => format!(" y, con pagar_a_solana, {}", s.caip2),
                    None => String::new(),
                }
            )),
            Some(c) if c.matches(network) => Ok(match c.eip712 {
                Some((name, version)) => {
                    format!("{}, USDC {}, dominio EIP-712 \"{name}\" versión {version}", c.name, c.asset)
                }
                None => format!("{}, USDC {}", c.name, c.asset),
            }),
            Some(c) => Err(format!(
                "no es la red canónica del modo {mode}: se esperaba activo {} y dominio {}, y gate.json dice activo {} y dominio {}",
                c.asset,
                domain_text(c.eip712.map(|(n, v)| (n.to_owned(), v.to_owned()))),
                network.asset,
                domain_text(network.eip712_name.clone().zip(network.eip712_version.clone())),
            )),
        };
        report.check(what, result);
    }
    if !manifest.service.networks.iter().any(|n| n.caip2 == evm.caip2) {
        report.fail(
            format!("red {}", evm.caip2),
            format!("el modo {mode} vende en {} y gate.json no la ofrece", evm.name),
        );
    }
}

fn domain_text(domain: Option<(String, String)>) -> String {
    match domain {
        Some((name, version)) => format!("\"{name}\" versión {version}"),
        None => "ninguno".to_owned(),
    }
}

/// Every 402 requirement of every study against the network it names.
fn check_offers(manifest: &Manifest, report: &mut Report) {
    let mut problems = Vec::new();
    let mut count = 0;
    for (slug, study) in &manifest.studies {
        for (view, offer) in &study.views {
            for requirement in &offer.payment_required.accepts {
                count += 1;
                let at = format!("{slug}/{}", view.as_str());
                let Some(network) = manifest.service.networks.iter().find(|n| n.caip2 == requirement.network) else {
                    problems.push(format!("{at}: la red {} no está en servicio.redes", requirement.network));
                    continue;
                };
                if requirement.scheme != "exact" {
                    problems.push(format!("{at}: esquema {:?}, se espera \"exact\"", requirement.scheme));
                }
                if requirement.asset != network.asset {
                    problems.push(format!(
                        "{at}: activo {} y la red {} dice {}",
                        requirement.asset, network.caip2, network.asset
                    ));
                }
                if requirement.pay_to != network.pay_to {
                    problems.push(format!("{at}: payTo {} y la red cobra en {}", requirement.pay_to, network.pay_to));
                }
                let domain = requirement.extra_str("name").zip(requirement.extra_str("version"));
                if !network.is_solana()
                    && domain != network.eip712_name.as_deref().zip(network.eip712_version.as_deref())
                {
                    problems.push(format!("{at}: dominio EIP-712 {domain:?} distinto del de la red"));
                }
            }
        }
    }
    match problems.len() {
        0 => report.ok(
            "requisitos de pago",
            format!("{count} en {} estudios, todos en las redes de arriba", manifest.studies.len()),
        ),
        n => report.fail(
            "requisitos de pago",
            format!("{n} no coinciden con su red: {}", problems.iter().take(3).cloned().collect::<Vec<_>>().join("; ")),
        ),
    }
}

/// Every payee the manifest names, in the networks and in the requirements.
fn payees(manifest: &Manifest) -> BTreeSet<String> {
    let offered = manifest
        .studies
        .values()
        .flat_map(|s| s.views.values())
        .flat_map(|o| o.payment_required.accepts.iter().map(|r| r.pay_to.clone()));
    manifest.service.networks.iter().map(|n| n.pay_to.clone()).chain(offered).collect()
}

/// An EVM address must carry its EIP-55 checksum (a typo then fails instead of paying a
/// stranger); a Solana one must be base58 of 32 bytes.
fn check_payee(payee: &str) -> Result<String, String> {
    if payee.starts_with("0x") {
        return match Address::parse_checksummed(payee, None) {
            Ok(_) => Ok("dirección EVM con checksum EIP-55".to_owned()),
            Err(_) => match payee.parse::<Address>() {
                Ok(address) => Err(format!(
                    "la dirección EVM no lleva el checksum EIP-55 (mayúsculas y minúsculas): escriba {} en pagar_a_evm si es la suya",
                    address.to_checksum(None)
                )),
                Err(_) => Err("no es una dirección EVM (0x y 40 dígitos hexadecimales)".to_owned()),
            },
        };
    }
    match bs58::decode(payee).into_vec() {
        Ok(bytes) if bytes.len() == 32 => Ok("dirección de Solana (32 bytes en base58)".to_owned()),
        Ok(bytes) => Err(format!("no es una dirección de Solana: base58 de {} bytes, se esperan 32", bytes.len())),
        Err(_) => Err("no es una dirección EVM (0x…) ni de Solana (base58)".to_owned()),
    }
}

fn check_link_secret(mode: Mode, secret: Option<&str>) -> Result<String, String> {
    match secret.filter(|s| !s.is_empty()) {
        Some(s) if s.len() >= MIN_LINK_SECRET_BYTES => Ok(format!("{SECRET_ENV} definida ({} bytes)", s.len())),
        Some(s) => Err(format!(
            "{SECRET_ENV} mide {} bytes y debe tener al menos {MIN_LINK_SECRET_BYTES} (por ejemplo: openssl rand -hex 32)",
            s.len()
        )),
        None if mode == Mode::Local => {
            Ok(format!("modo local: sin {SECRET_ENV}, el gate genera la clave en --datos/clave-enlaces"))
        }
        None => Err(format!(
            "falta {SECRET_ENV}: fuera del modo local la clave de los enlaces viene del entorno, al menos {MIN_LINK_SECRET_BYTES} bytes (por ejemplo: openssl rand -hex 32), la misma en cada gate"
        )),
    }
}

/// The key that signs receipts: required outside local mode; its public `did:key` is what the
/// publisher publishes (the gate also serves it at `/.well-known/did.json`).
fn check_receipt_key(mode: Mode, key: Option<&str>) -> Result<String, String> {
    match key.filter(|k| !k.trim().is_empty()) {
        Some(text) => match ReceiptKey::parse(text) {
            Ok(key) => Ok(format!("{RECEIPT_KEY_ENV} definida: firma como {}", key.did_key())),
            Err(e) => Err(format!("{RECEIPT_KEY_ENV}: {e}")),
        },
        None if mode == Mode::Local => Ok(format!(
            "modo local: sin {RECEIPT_KEY_ENV}, el gate firma con una clave de desarrollo en --datos/{RECEIPT_KEY_FILE}"
        )),
        None => Err(format!(
            "falta {RECEIPT_KEY_ENV}: fuera del modo local los recibos se firman con la clave del editor, 32 bytes en hexadecimal (por ejemplo: openssl rand -hex 32), la misma en cada gate"
        )),
    }
}

fn check_base_url(mode: Mode, base_url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(base_url).map_err(|_| format!("{base_url:?} no es una URL"))?;
    match (mode, parsed.scheme()) {
        (_, "https") | (Mode::Local, _) => Ok(base_url.to_owned()),
        _ => Err(format!(
            "{base_url} no es https: fuera del modo local los enlaces de descarga y los documentos deben apuntar a https (base_url en servicio.toml)"
        )),
    }
}

/// Which facilitator serving would use, refused on mainnet when it cannot move real money.
fn describe_facilitator(mode: Mode, choice: &FacilitatorChoice) -> Result<String, String> {
    match choice {
        FacilitatorChoice::Local { .. } => {
            if mode == Mode::Mainnet {
                Err("modo mainnet con el facilitador local, que no mueve dinero".to_owned())
            } else {
                Ok("local embebido (sin cadena, sin dinero real)".to_owned())
            }
        }
        FacilitatorChoice::Http { url, auth, cdp, .. } => {
            let host = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
            if mode == Mode::Mainnet && (host == "x402.org" || host.ends_with(".x402.org")) {
                return Err(format!(
                    "{url}: x402.org liquida solo redes de prueba (Base Sepolia, Solana devnet); en mainnet use el facilitador de Coinbase CDP ({KEY_ID_ENV} y {KEY_SECRET_ENV}) u otro con {FACILITATOR_URL_ENV}"
                ));
            }
            let how = match (cdp, auth) {
                (Some(key), _) => format!("JWT de CDP por pedido, clave {} ({})", key.id(), key.kind().as_str()),
                (None, Some((name, _))) => format!("encabezado {name}"),
                (None, None) => "sin credenciales".to_owned(),
            };
            Ok(format!("{url}, {how}"))
        }
    }
}

/// The facilitator's `/supported`, under the configured authentication, must list `exact`
/// on every network the manifest offers (with a fee payer on Solana).
async fn check_supported(manifest: &Manifest, choice: &FacilitatorChoice) -> Result<String, String> {
    let facilitator: std::sync::Arc<dyn Facilitator> = build_facilitator(choice).map_err(|e| format!("{e:#}"))?;
    let supported = facilitator.supported().await.map_err(|e| match e {
        crate::facilitator::FacilitatorError::Status { status, body } => {
            format!("el facilitador respondió {status}: {}", body.chars().take(200).collect::<String>())
        }
        other => other.to_string(),
    })?;
    let missing: Vec<String> = manifest.service.networks.iter().filter_map(|n| missing_kind(&supported, n)).collect();
    if missing.is_empty() {
        let networks: Vec<&str> = manifest.service.networks.iter().map(|n| n.caip2.as_str()).collect();
        Ok(format!("admite exact (x402 v2) en {}", networks.join(", ")))
    } else {
        Err(missing.join("; "))
    }
}

fn missing_kind(supported: &SupportedResponse, network: &Network) -> Option<String> {
    let kind = supported
        .kinds
        .iter()
        .find(|k| k.x402_version == crate::x402::X402_VERSION && k.scheme == "exact" && k.network == network.caip2);
    match kind {
        None => Some(format!("no admite exact (x402 v2) en {}", network.caip2)),
        Some(k)
            if network.is_solana()
                && k.extra.as_ref().and_then(|e| e.get("feePayer")).and_then(|v| v.as_str()).is_none() =>
        {
            Some(format!("admite {} sin feePayer: el gate retiraría esa red", network.caip2))
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payees_evm_with_checksum_solana_as_32_bytes_of_base58() {
        assert!(check_payee("0x70997970C51812dc3A010C7d01b50e0d17dc79C8").is_ok());
        let error = check_payee("0x70997970c51812dc3a010c7d01b50e0d17dc79c8").unwrap_err();
        assert!(error.contains("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), "{error}");
        assert!(check_payee("0x70997970C51812dc3A010C7d01b50e0d17dc79c8").is_err(), "one wrong letter case");
        assert!(check_payee("0x1234").unwrap_err().contains("40 dígitos"));
        assert!(check_payee("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM").is_ok());
        assert!(check_payee("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGY").unwrap_err().contains("se esperan 32"));
        assert!(check_payee("0OIl-no-es-base58").is_err());
    }

    #[test]
    fn link_secret_and_base_url_are_strict_outside_local_mode() {
        assert!(check_link_secret(Mode::Local, None).is_ok());
        assert!(check_link_secret(Mode::Local, Some("corta")).is_err());
        assert!(check_link_secret(Mode::Testnet, None).is_err());
        assert!(check_link_secret(Mode::Mainnet, Some(&"x".repeat(32))).is_ok());
        assert!(check_receipt_key(Mode::Local, None).is_ok());
        assert!(check_receipt_key(Mode::Mainnet, None).is_err());
        assert!(check_receipt_key(Mode::Testnet, Some("corta")).is_err());
        let good = check_receipt_key(Mode::Mainnet, Some(&"07".repeat(32))).expect("a 32-byte hex key");
        assert!(good.contains("did:key:z6Mk") && !good.contains(&"07".repeat(32)), "shows the public key only: {good}");
        assert!(check_base_url(Mode::Local, "http://127.0.0.1:8080").is_ok());
        assert!(check_base_url(Mode::Testnet, "http://estudios.example.com").is_err());
        assert!(check_base_url(Mode::Mainnet, "https://estudios.example.com").is_ok());
        assert!(check_base_url(Mode::Mainnet, "estudios.example.com").is_err());
    }

    #[test]
    fn the_mode_asked_for_must_be_the_built_one() {
        assert!(check_mode(Mode::Mainnet, None).is_ok());
        assert!(check_mode(Mode::Mainnet, Some(Mode::Mainnet)).is_ok());
        assert!(check_mode(Mode::Testnet, Some(Mode::Mainnet)).unwrap_err().contains("modo = \"mainnet\""));
    }
}
