//! The go-live checks of `gate verificar` that guard against a silent mistake rather than a
//! broken setting: money sent to a public development account, synthetic studies sold as
//! real, a TLS proxy in front that the gate does not know of, and local-mode test sales left
//! in the journal that the real ones will be counted with.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use alloy_primitives::Address;

use super::Report;
use crate::manifest::{Manifest, Mode};
use gate_http::client::TrustedProxies;

/// The first ten accounts of the standard development mnemonic of Hardhat and Anvil
/// (`test test test test test test test test test test test junk`, path m/44'/60'/0'/0/i):
/// (address, private key). Their keys are printed by `anvil` at every start and listed in
/// Hardhat Network's documentation, so anyone can spend what they receive. The list is checked
/// twice: each key derives its address (the unit test below) and the chain tier derives the
/// same accounts from the mnemonic (`tests/chain/cadena.mjs`, `tests/tests/cadena_compras.rs`).
pub const DEVELOPMENT_ACCOUNTS: [(&str, &str); 10] = [
    ("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
    ("0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"),
    ("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"),
    ("0x90F79bf6EB2c4f870365E785982E1f101E93b906", "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"),
    ("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"),
    ("0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"),
    ("0x976EA74026E726554dB657fA54763abd0C3a0aa9", "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"),
    ("0x14dC79964da2C08b23698B3D3cc7Ca32193d9955", "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"),
    ("0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"),
    ("0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"),
];

/// Which development account `payee` is (its index), in any letter case.
pub fn development_account(payee: &str) -> Option<usize> {
    let address = payee.parse::<Address>().ok()?;
    DEVELOPMENT_ACCOUNTS.iter().position(|(known, _)| known.parse::<Address>().ok() == Some(address))
}

/// A payee outside local mode must not be a development account: its private key is public.
pub fn check_not_development(mode: Mode, payee: &str) -> Result<String, String> {
    match development_account(payee) {
        Some(index) if mode != Mode::Local => Err(format!(
            "es la cuenta #{index} de desarrollo de Hardhat/Anvil (frase \"test test … junk\"): su clave privada es pública y cualquiera puede llevarse lo que reciba; ponga su propia dirección en pagar_a_evm de servicio.toml y corra `generator build`"
        )),
        Some(index) => Ok(format!("cuenta #{index} de desarrollo de Hardhat/Anvil: solo para el modo local")),
        None => Ok("no es una cuenta de desarrollo conocida".to_owned()),
    }
}

/// Words that say a study's data are not real: what `generator synth` writes in each study's
/// `nota` ("datos sintéticos de demostración generados con `generator synth`").
const SYNTHETIC_MARKS: [&str; 4] = ["sintétic", "sintetic", "synthetic", "generator synth"];

/// Whether a study's `nota` says its data are synthetic.
pub fn says_synthetic(note: &str) -> bool {
    let note = note.to_lowercase();
    SYNTHETIC_MARKS.iter().any(|mark| note.contains(mark))
}

/// Outside local mode no study on sale may say its data are synthetic: its sheet
/// (`/estudio/<slug>/ficha`, built from the study's `nota`) is read from `dist/`.
pub fn check_synthetic(mode: Mode, manifest: &Manifest, dist: &Path) -> Result<String, String> {
    let mut synthetic = Vec::new();
    for slug in manifest.studies.keys() {
        let Some(route) = manifest.routes.get(&format!("/estudio/{slug}/ficha")) else { continue };
        let sheet = std::fs::read(dist.join(&route.file))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
        let note = sheet.as_ref().and_then(|s| s.get("nota")).and_then(|n| n.as_str()).unwrap_or_default();
        if says_synthetic(note) {
            synthetic.push(slug.as_str());
        }
    }
    match (synthetic.is_empty(), mode) {
        (true, _) => Ok(format!("ninguno de los {} estudios dice ser sintético", manifest.studies.len())),
        (false, Mode::Local) => Ok(format!("{} estudios sintéticos (solo para el modo local)", synthetic.len())),
        (false, _) => Err(format!(
            "{} de {} estudios dicen en su nota que sus datos son sintéticos ({}): no se venden datos de demostración con dinero real; reemplace content/estudios por los suyos (docs/src/publicar/estudios-propios.md) y corra `generator build`",
            synthetic.len(),
            manifest.studies.len(),
            synthetic.join(", ")
        )),
    }
}

/// The serving flags that say where traffic comes from (`--escuchar`, `--proxies`, `--certificado-tls`).
#[derive(Debug, Clone, Default)]
pub struct Serving {
    pub listen: Option<String>,
    pub proxies: Option<String>,
    pub tls: bool,
}

/// The proxy setting against the traffic it implies. Outside local mode:
/// - an https `base_url` served without `--certificado-tls` means a TLS terminator in front, so every
///   request comes from its address: without `--proxies` every buyer shares it, and the refused
///   payments of a few lock everyone out (`--fallos-por-cliente`): refused;
/// - `--proxies` that trusts every address (`0.0.0.0/0`, `::/0`) lets any client choose the
///   address it is counted by: refused;
/// - with `--proxies`, listening on an address other than loopback and private networks serves
///   plain HTTP to the internet beside the proxy: a warning.
pub fn check_proxies(mode: Mode, base_url: &str, serving: &Serving, report: &mut Report) {
    const WHAT: &str = "proxies";
    let proxies = match serving.proxies.as_deref().map(TrustedProxies::parse).transpose() {
        Ok(proxies) => proxies.filter(|p| !p.is_empty()),
        Err(e) => {
            report.fail(WHAT, format!("--proxies: {e}"));
            return;
        }
    };
    let https = base_url.starts_with("https://");
    let listen = serving.listen.as_deref().and_then(|l| l.parse::<SocketAddr>().ok());
    if mode == Mode::Local {
        report.ok(WHAT, "modo local: sin comprobación del proxy");
        return;
    }
    if let Some(proxies) = &proxies
        && (proxies.trusts(IpAddr::from([8, 8, 8, 8])) && proxies.trusts(IpAddr::from([1, 1, 1, 1])))
    {
        report.fail(
            WHAT,
            "--proxies confía en cualquier dirección de internet: cualquiera podría elegir con qué dirección se lo cuenta en los límites (X-Forwarded-For); nombre solo la dirección o la red de su proxy",
        );
        return;
    }
    match (https, serving.tls, &proxies) {
        (true, false, None) => report.fail(
            WHAT,
            format!(
                "base_url es {base_url} y el gate sirve sin --certificado-tls, así que delante hay un terminador TLS: sin --proxies todos los compradores llegan con la dirección del proxy y los pagos rechazados de unos pocos bloquean a todos (--fallos-por-cliente); nombre el proxy con --proxies (p. ej. --proxies 127.0.0.1)"
            ),
        ),
        (true, false, Some(_)) if listen.is_some_and(|a| is_public(a.ip())) => report.warn(
            WHAT,
            format!(
                "--escuchar {} sin TLS es alcanzable desde internet además del proxy: escuche en 127.0.0.1 o en la red privada del proxy, o ciérrelo con un cortafuegos",
                serving.listen.as_deref().unwrap_or_default()
            ),
        ),
        (true, false, Some(_)) => report.ok(WHAT, "TLS en el proxy de --proxies, del que se cree X-Forwarded-For"),
        (_, true, _) => report.ok(WHAT, "el gate sirve TLS él mismo (--certificado-tls)"),
        (false, false, _) => report.ok(WHAT, "sin TLS (base_url no es https: lo dice su propia línea)"),
    }
}

/// An address reachable from the internet: not loopback, private, link-local or unique-local.
/// The unspecified address (`0.0.0.0`, `::`) listens on every interface, public ones included.
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !(v4.is_loopback() || v4.is_private() || v4.is_link_local()),
        IpAddr::V6(v6) => {
            let unique_local = (v6.segments()[0] & 0xfe00) == 0xfc00;
            let link_local = (v6.segments()[0] & 0xffc0) == 0xfe80;
            !(v6.is_loopback() || unique_local || link_local)
        }
    }
}

/// The sales the journal of `--datos` already holds that were not made in `mode`: sales the
/// embedded local facilitator settled (its ledger, `libro-local.json`, names their
/// transactions) and sales on networks this build does not sell on. `gate ventas` would count
/// them with the real ones. A warning: the journal is the publisher's to move aside.
pub fn check_journal(mode: Mode, manifest: &Manifest, data: &Path, report: &mut Report) {
    const WHAT: &str = "diario de ventas";
    let path = data.join(crate::settings::PURCHASES_FILE);
    if mode == Mode::Local {
        report.ok(WHAT, "modo local");
        return;
    }
    let contents = match crate::sales::journal::read(&path) {
        Ok(contents) => contents,
        Err(e) => {
            report.fail(WHAT, format!("{e:#}"));
            return;
        }
    };
    let ledger = crate::sales::ledger::fold(&contents.records);
    let local_transactions = local_ledger_transactions(&data.join(crate::settings::LOCAL_LEDGER_FILE));
    let offered: BTreeSet<&str> = manifest.service.networks.iter().map(|n| n.caip2.as_str()).collect();
    let local = ledger.sales.iter().filter(|s| local_transactions.contains(&s.transaction.to_lowercase())).count();
    let elsewhere = ledger
        .sales
        .iter()
        .filter(|s| {
            !local_transactions.contains(&s.transaction.to_lowercase()) && !offered.contains(s.network.as_str())
        })
        .count();
    if local == 0 && elsewhere == 0 {
        report.ok(WHAT, format!("{} ventas en {}, ninguna de pruebas", ledger.sales.len(), path.display()));
        return;
    }
    let mut parts = Vec::new();
    if local > 0 {
        parts.push(format!("{local} del modo local (sin dinero real)"));
    }
    if elsewhere > 0 {
        parts.push(format!("{elsewhere} en redes que el modo {mode} no vende"));
    }
    report.warn(
        WHAT,
        format!(
            "{} tiene {} de {} ventas: `gate ventas` las contaría con las reales; mueva --datos a otra carpeta (o apártela) antes de salir",
            path.display(),
            parts.join(" y "),
            ledger.sales.len()
        ),
    );
}

/// The transactions the embedded local facilitator recorded (lowercase hex), if it ran here.
fn local_ledger_transactions(path: &Path) -> BTreeSet<String> {
    let Ok(bytes) = std::fs::read(path) else { return BTreeSet::new() };
    let Ok(ledger) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return BTreeSet::new() };
    ledger
        .get("pagos")
        .and_then(|p| p.as_object())
        .map(|payments| {
            payments
                .values()
                .filter_map(|p| p.get("transaccion").and_then(|t| t.as_str()))
                .map(str::to_lowercase)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_development_key_signs_for_its_listed_address() {
        for (index, (address, key)) in DEVELOPMENT_ACCOUNTS.iter().enumerate() {
            let signer: alloy_signer_local::PrivateKeySigner = key.parse().expect("a private key");
            assert_eq!(signer.address().to_checksum(None), *address, "account #{index}");
            assert_eq!(development_account(&address.to_lowercase()), Some(index));
        }
        assert_eq!(development_account("0x000000000000000000000000000000000000dEaD"), None);
        assert!(check_not_development(Mode::Mainnet, DEVELOPMENT_ACCOUNTS[1].0).unwrap_err().contains("#1"));
        assert!(check_not_development(Mode::Testnet, DEVELOPMENT_ACCOUNTS[0].0).is_err());
        assert!(check_not_development(Mode::Local, DEVELOPMENT_ACCOUNTS[1].0).is_ok());
    }

    #[test]
    fn synthetic_notes_are_told_apart() {
        assert!(says_synthetic(
            "Las respuestas de este estudio son datos sintéticos de demostración generados con `generator synth` (semilla 2026)"
        ));
        assert!(says_synthetic("Synthetic demo data."));
        assert!(!says_synthetic("Respuestas recogidas entre el 2 y el 9 de abril de 2026."));
    }

    fn proxies(mode: Mode, base_url: &str, listen: &str, proxies: Option<&str>, tls: bool) -> Report {
        let serving = Serving { listen: Some(listen.to_owned()), proxies: proxies.map(str::to_owned), tls };
        let mut report = Report::default();
        check_proxies(mode, base_url, &serving, &mut report);
        report
    }

    #[test]
    fn the_proxy_setting_must_match_where_the_traffic_comes_from() {
        let https = "https://estudios.example.com";
        let behind = proxies(Mode::Mainnet, https, "127.0.0.1:8080", None, false);
        assert_eq!(behind.failures(), 1, "{behind}");
        assert!(behind.lines[0].detail.contains("--proxies"), "{behind}");
        let named = proxies(Mode::Mainnet, https, "127.0.0.1:8080", Some("127.0.0.1"), false);
        assert!(named.lines[0].ok && !named.lines[0].warning, "{named}");
        let exposed = proxies(Mode::Mainnet, https, "0.0.0.0:8080", Some("10.0.0.0/8"), false);
        assert!(exposed.lines[0].ok && exposed.lines[0].warning, "{exposed}");
        let private = proxies(Mode::Mainnet, https, "10.0.0.5:8080", Some("10.0.0.0/8"), false);
        assert!(!private.lines[0].warning, "{private}");
        let everyone = proxies(Mode::Testnet, https, "127.0.0.1:8080", Some("0.0.0.0/0"), false);
        assert!(everyone.lines[0].detail.contains("cualquier dirección"), "{everyone}");
        assert_eq!(everyone.failures(), 1);
        assert_eq!(proxies(Mode::Mainnet, https, "0.0.0.0:443", None, true).failures(), 0);
        assert_eq!(proxies(Mode::Local, "http://127.0.0.1:8080", "127.0.0.1:8080", None, false).failures(), 0);
        assert_eq!(proxies(Mode::Mainnet, https, "127.0.0.1:8080", Some("no-es-ip"), false).failures(), 1);
    }
}
