//! Where each output lives in `dist/`, and the URLs of the pages that link each other.
//!
//! The stage that renders a file and the manifest that routes a URL to it read the same names
//! here, so the two cannot disagree. Paths are relative to `dist/`: the gate (and any static
//! host) serves `public/` as it is; `private/` only the gate serves, after payment or to a
//! browser as its 402 page.

/// The JSON index of the service: what `/` answers an agent, and `/index.json`.
pub const SERVICE_INDEX: &str = "public/index.json";
/// The home page for people: what `/` answers a browser, and `/index.html`.
pub const HOME_PAGE: &str = "public/index.html";
pub const CATALOG: &str = "public/catalogo.json";
pub const METRICS: &str = "public/metricas.json";
pub const OPENAPI: &str = "public/openapi.json";
/// The x402 discovery document, served at `/.well-known/x402`.
pub const DISCOVERY: &str = "public/.well-known/x402.json";
pub const LLMS_TXT: &str = "public/llms.txt";
/// The MCP registry's `server.json` (schema 2025-12-11), served at [`MCP_SERVER_URL`].
pub const MCP_SERVER: &str = "public/server.json";
/// URL of the MCP registry's `server.json`: where the registry's publisher tool reads it
/// (`./server.json`), and a name no `.well-known` convention claims with another format.
pub const MCP_SERVER_URL: &str = "/server.json";
pub const PRIVACY_PAGE: &str = "public/privacidad.html";

/// The catalog's Croissant 1.1 description, and its URL.
pub const CROISSANT_CATALOG: &str = "public/croissant.jsonld";
pub const CROISSANT_CATALOG_URL: &str = "/croissant.jsonld";
/// The entry for MPP's service directory, and its URL.
pub const MPP_DIRECTORY: &str = "public/directorios/mpp.json";
pub const MPP_DIRECTORY_URL: &str = "/directorios/mpp.json";

/// A study's Croissant 1.1 description.
pub fn croissant(slug: &str) -> String {
    format!("public/estudio/{slug}/croissant.jsonld")
}

/// URL of a study's Croissant 1.1 description.
pub fn croissant_url(slug: &str) -> String {
    format!("/estudio/{slug}/croissant.jsonld")
}

/// URL of the stylesheet every page links.
pub const STYLESHEET_URL: &str = "/recursos/estilo.css";
/// URL of the catalog's script.
pub const SCRIPT_URL: &str = "/recursos/catalogo.js";
/// URL of the site's icon, where browsers ask for it unprompted.
pub const FAVICON_URL: &str = "/favicon.ico";
/// URL of the checkout script of the study pages and the browser's 402 (pay with a wallet).
pub const CHECKOUT_SCRIPT_URL: &str = "/recursos/billetera.js";

/// Where the paid downloads live: only the gate serves them, through signed links.
const DOWNLOADS_DIR: &str = "private/descargas";

/// The file that serves a public URL as it is (the stylesheet, the script).
pub fn public_file(url: &str) -> String {
    format!("public{url}")
}

/// A study's free sheet (JSON), served at `/estudio/{slug}/ficha`.
pub fn sheet(slug: &str) -> String {
    format!("public/estudio/{slug}/ficha.json")
}

/// URL of a study's page for people (the sheet stays JSON at `/estudio/{slug}/ficha`).
pub fn study_page_url(slug: &str) -> String {
    format!("/estudios/{slug}")
}

/// File of a study's page for people.
pub fn study_page(slug: &str) -> String {
    format!("public/estudios/{slug}.html")
}

/// File of the HTML the gate sends a browser with the 402 of a study (only the gate serves it).
pub fn payment_page(slug: &str) -> String {
    format!("private/paginas/pago-{slug}.html")
}

/// A study's summary view (JSON), sold at `/estudio/{slug}?vista=resumen`.
pub fn summary(slug: &str) -> String {
    format!("private/estudio/{slug}/resumen.json")
}

/// Download name of a study's full package (JSON); also its view `completo`.
pub fn json_download(slug: &str) -> String {
    format!("{slug}.json")
}

/// Download name of a study's ZIP.
pub fn zip_download(slug: &str) -> String {
    format!("{slug}.zip")
}

/// The file behind a download name.
pub fn download(name: &str) -> String {
    format!("{DOWNLOADS_DIR}/{name}")
}

/// File of a study's full package (JSON).
pub fn package(slug: &str) -> String {
    download(&json_download(slug))
}

/// File of a study's ZIP.
pub fn zip(slug: &str) -> String {
    download(&zip_download(slug))
}
