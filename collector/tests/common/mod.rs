//! A small study and its collection file, pointed at a local simulator.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;

use collector::client::Stop;
use collector::config::CollectionFile;
use collector::run::{self, Options, Summary};

/// (id, provider name, kind, provider's model id).
pub const SIX_MODELS: [(&str, &str, &str, &str); 6] = [
    ("gpt-5-mini", "openai", "openai", "gpt-5-mini"),
    ("gpt-5", "openai", "openai", "gpt-5"),
    ("claude-haiku-4-5", "anthropic", "anthropic", "claude-haiku-4-5"),
    ("claude-sonnet-4-5", "anthropic", "anthropic", "claude-sonnet-4-5"),
    ("gemini-2.5-flash", "google", "google", "gemini-2.5-flash"),
    ("sonar", "perplexity", "compatible", "sonar"),
];

/// Perplexity's Sonar API as a provider of its own, and Google's consumer surfaces through
/// SerpApi: (id, provider name, kind, model id or surface).
pub const SURFACE_MODELS: [(&str, &str, &str, &str); 3] = [
    ("sonar-perplexity", "perplexity", "perplexity", "sonar"),
    ("google-ai-overview", "serpapi", "serpapi", "google_ai_overview"),
    ("google-ai-mode", "serpapi", "serpapi", "google_ai_mode"),
];

/// USD per SerpApi search, and Perplexity's prices (per million tokens, and per request).
pub const SEARCH_PRICE: f64 = 0.015;
pub const PERPLEXITY_CALL: f64 = 1000.0 * 1.0 / 1e6 + 300.0 * 1.0 / 1e6 + 0.005;

pub const BRANDS: &str = r#"[[marcas]]
id = "movistar"
nombre = "Movistar"
dominios = ["movistar.com.ar"]

[[marcas]]
id = "claro"
nombre = "Claro"
excluir = ["claro que"]
dominios = ["claro.com.ar"]

[[marcas]]
id = "personal"
nombre = "Personal"
excluir = ["uso personal"]
dominios = ["personal.com.ar"]
"#;

pub fn write_questions(dir: &Path, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let mut text = String::new();
    for i in 1..=count {
        let topic = if i % 2 == 0 { "planes" } else { "cobertura" };
        text.push_str(&format!(
            "{{\"id\":\"P{i:03}\",\"texto\":\"¿Qué compañía de celular me conviene? (caso {i})\",\"idioma\":\"es\",\"modelo\":\"estándar\",\"tema\":\"{topic}\"}}\n"
        ));
    }
    std::fs::write(dir.join("preguntas.jsonl"), text).unwrap();
}

pub struct FileSpec<'a> {
    pub url: &'a str,
    pub models: &'a [(&'a str, &'a str, &'a str, &'a str)],
    pub repetitions: u32,
    pub budget: f64,
    pub attempts: u32,
    pub timeout_s: u64,
    pub concurrency: u32,
    pub rpm: u32,
    /// Key variable per provider name.
    pub key_variables: bool,
}

impl<'a> FileSpec<'a> {
    pub fn new(url: &'a str) -> FileSpec<'a> {
        FileSpec {
            url,
            models: &SIX_MODELS,
            repetitions: 3,
            budget: 100.0,
            attempts: 4,
            timeout_s: 10,
            concurrency: 4,
            rpm: 60_000,
            key_variables: true,
        }
    }

    /// Prices: 0.25 and 2.00 USD per million tokens, 0.01 per search; with the simulator's usage
    /// (1000 in, 300 out, 1 search) a call costs 0.00025 + 0.0006 + 0.01 = 0.01085 USD, and the
    /// estimate is set to the same so the budget's reservations are exact.
    pub fn render(&self) -> String {
        let mut text = format!(
            "repeticiones = {}\npresupuesto_usd = {}\n\n[lotes]\nsondeo_s = 0.05\n\n[estimacion]\ntokens_entrada = 1000\ntokens_salida = 300\nbusquedas = 1\n\n[reintentos]\nintentos = {}\nespera_inicial_ms = 50\nespera_maxima_s = 2\ntiempo_limite_s = {}\n\n[ubicacion]\npais = \"AR\"\nciudad = \"Buenos Aires\"\n\n",
            self.repetitions, self.budget, self.attempts, self.timeout_s
        );
        let mut providers: BTreeMap<&str, &str> = BTreeMap::new();
        for (_, name, kind, _) in self.models {
            providers.insert(name, kind);
        }
        for (name, kind) in providers {
            text.push_str(&format!(
                "[proveedores.{name}]\ntipo = \"{kind}\"\nurl_base = \"{}\"\nconcurrencia = {}\nsolicitudes_por_minuto = {}\n",
                self.url, self.concurrency, self.rpm
            ));
            if kind == "compatible" && self.key_variables {
                text.push_str("clave_env = \"PERPLEXITY_API_KEY\"\n");
            }
            text.push('\n');
        }
        for (id, name, kind, model) in self.models {
            match *kind {
                "serpapi" => text.push_str(&format!(
                    "[[modelos]]\nid = \"{id}\"\nproveedor = \"{name}\"\nsuperficie = \"{model}\"\nnivel = \"estándar\"\nprecio = {{ busqueda = {SEARCH_PRICE} }}\n\n"
                )),
                "perplexity" => text.push_str(&format!(
                    "[[modelos]]\nid = \"{id}\"\nproveedor = \"{name}\"\nmodelo = \"{model}\"\nnivel = \"estándar\"\ncontexto_busqueda = \"low\"\nprecio = {{ entrada = 1.0, salida = 1.0, solicitud = 0.005 }}\n\n"
                )),
                _ => text.push_str(&format!(
                    "[[modelos]]\nid = \"{id}\"\nproveedor = \"{name}\"\nmodelo = \"{model}\"\nnivel = \"estándar\"\nbusquedas_max = 3\nprecio = {{ entrada = 0.25, salida = 2.0, busqueda = 0.01 }}\n\n"
                )),
            }
        }
        text
    }
}

pub const CALL_COST: f64 = 0.01085;

/// Keys for every provider of a file, made up (the simulator takes any).
pub fn keys(file: &CollectionFile, key: &str) -> BTreeMap<String, Option<String>> {
    file.providers.keys().map(|name| (name.clone(), Some(format!("{key}-{name}")))).collect()
}

/// Plans and collects a study in-process.
pub async fn collect(dir: &Path, key: &str) -> Summary {
    collect_with(dir, key, false).await
}

/// Plans and collects a study in-process, in batches where the provider has them (`--lote`).
pub async fn collect_with(dir: &Path, key: &str, batches: bool) -> Summary {
    let file = CollectionFile::read(&dir.join("recoleccion.toml")).unwrap();
    let plan = run::plan(dir, &file).unwrap();
    let keys = keys(&file, key);
    run::collect(file, plan, Options { study: dir.to_path_buf(), progress: false, keys, batches }, Stop::default())
        .await
        .unwrap()
}

pub fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
