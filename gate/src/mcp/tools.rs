//! The MCP tools: their definitions (titles, Spanish and English descriptions, input schemas,
//! annotations) and what each call answers.
//!
//! The free tools answer from the same bytes the HTTP routes serve (the catalog, the sheets
//! and the metrics held in [`crate::statics`], the search of [`crate::search`]), so an agent
//! gets the same facts over MCP as over HTTP. Arguments are checked here against the schemas
//! the tools publish; a bad value is a tool error (`isError: true`) the model can read and fix.

use serde_json::{Map, Value, json};

use contract::View;

use super::result::{ToolError, success, success_value};
use super::{Endpoint, Era, McpServer, RpcError, Store};
use crate::manifest::Manifest;
use crate::payment::mcp::{self as purchase, BUY_TOOL, MCP_DEFAULT_VIEW};

/// The free tools, in the order they are listed.
pub const FREE_TOOLS: [&str; 5] = ["listar_estudios", "buscar_estudios", "ver_ficha", "ver_metricas", "como_comprar"];
/// Longest search accepted: the bound of `/buscar`.
use contract::search::MAX_QUERY_CHARS;

/// Tool names an endpoint offers, in list order.
pub fn names(endpoint: Endpoint) -> Vec<&'static str> {
    let mut names = FREE_TOOLS.to_vec();
    if endpoint == Endpoint::Full {
        names.push(BUY_TOOL);
    }
    names
}

/// The `tools/list` entries of an endpoint.
pub fn definitions(slugs: &[&str], endpoint: Endpoint) -> Vec<Value> {
    let slug = |description: &str| json!({"type": "string", "enum": slugs, "description": description});
    let free = |name: &str, title: &str, es: &str, en: &str, properties: Value, required: &[&str]| {
        json!({
            "name": name,
            "title": title,
            "description": format!("{es}\n\nEN: {en}"),
            "inputSchema": schema(properties, required),
            "annotations": {"title": title, "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        })
    };
    let mut tools = vec![
        free(
            "listar_estudios",
            "Listar estudios",
            "Catálogo gratuito de los estudios de visibilidad en IA a la venta: slug, nombre, industria, país, idiomas, fechas, cantidad de preguntas, respuestas y modelos, precio y URLs; `corrida_anterior` (fechas y preguntas compartidas) en los estudios comparados con una corrida anterior, null en los demás.",
            "Free catalog of the AI-visibility studies for sale: slug, name, industry, country, languages, dates, number of questions, answers and models, price and URLs; `corrida_anterior` (dates and shared questions) for studies compared with a previous run, null for the others.",
            json!({}),
            &[],
        ),
        free(
            "buscar_estudios",
            "Buscar estudios",
            "Busca estudios por tema, industria, país o marca (sin distinguir tildes ni mayúsculas), con el mismo orden que /buscar y por qué coincidió cada uno. \"corrida anterior\" encuentra los estudios que se comparan con una corrida anterior.",
            "Searches studies by topic, industry, country or brand (accent- and case-insensitive), ranked as /buscar, with why each one matched. \"previous run\" finds the studies compared with a previous run.",
            json!({"q": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "pattern": contract::search::SEARCHABLE_PATTERN, "description": "Qué busca, p. ej. \"bancos argentina\" o \"Galicia\". / What to look for."}}),
            &["q"],
        ),
        free(
            "ver_ficha",
            "Ver ficha de un estudio",
            "Ficha gratuita de un estudio: diseño, universo de preguntas, modelos, índice de tablas, ejemplos, archivos con tamaño y sha256, precio y cómo comprarlo; si el estudio se compara con una corrida anterior, cuál es y cuántas preguntas comparten (el paquete trae las tablas de cambio: cada marca y métrica en las dos corridas, la diferencia, su intervalo al 95 % y si creció, cayó o no cambió más allá del ruido). Sin contenido pago.",
            "Free sheet of a study: design, question universe, models, table index, samples, files with size and sha256, price and how to buy it; when the study is compared with a previous run, which one and how many questions both share (the package carries the change tables: each brand and metric in both runs, the difference, its 95% interval and whether it grew, fell or did not change beyond the noise). No paid content.",
            json!({"slug": slug("Identificador del estudio (ver listar_estudios). / Study id.")}),
            &["slug"],
        ),
        free(
            "ver_metricas",
            "Ver definiciones de métricas",
            "Definiciones y fórmulas de las métricas de los estudios (mención, orden, citación, Protagonismo IA, Top1, share of voice, HHI, acuerdo entre modelos, tono) y del cambio entre corridas con su intervalo, en español e inglés.",
            "Definitions and formulas of the study metrics (mention, order, citation, AI prominence, Top1, share of voice, HHI, agreement between models, tone) and of the change between runs with its interval, in Spanish and English.",
            json!({}),
            &[],
        ),
        free(
            "como_comprar",
            "Cómo comprar",
            "Cómo se paga un estudio: protocolo x402 v2, precio, redes, pasos por HTTP y por MCP, vistas, cuándo no se cobra nada y el tope que debe admitir su cliente. Con slug, incluye el PaymentRequired exacto de ese estudio.",
            "How a study is paid: x402 v2, price, networks, steps over HTTP and MCP, views, when nothing is charged and the cap your client must allow. With a slug, includes that study's exact PaymentRequired.",
            json!({"slug": slug("Opcional: el estudio que quiere comprar. / Optional: the study to buy.")}),
            &[],
        ),
    ];
    if endpoint == Endpoint::Full {
        let title = "Comprar estudio";
        tools.push(json!({
            "name": BUY_TOOL,
            "title": title,
            "description": "Compra un estudio con x402 v2 (USDC). Llamado sin pago devuelve isError: true con el PaymentRequired de x402 en structuredContent (y el mismo JSON en content[0].text). Firme una autorización EIP-3009 por el monto exacto de una entrada de accepts y repita la llamada con params._meta[\"x402/payment\"] = PaymentPayload (objeto JSON, no base64) con accepted copiado sin cambios. Al liquidarse devuelve el estudio (vista resumen por defecto) con enlaces firmados al paquete completo (JSON y ZIP) y el recibo en _meta[\"x402/payment-response\"]. Si el pago falla no se cobra nada.\n\nEN: Buys a study with x402 v2 (USDC). Called without payment it returns isError: true with the x402 PaymentRequired in structuredContent (and the same JSON in content[0].text). Sign an EIP-3009 authorization for the exact amount of one accepts entry and call again with params._meta[\"x402/payment\"] = a PaymentPayload (JSON object, not base64) whose accepted is copied unchanged. Once settled it returns the study (summary view by default) with signed links to the full package (JSON and ZIP) and the receipt in _meta[\"x402/payment-response\"]. Nothing is charged if payment fails.",
            // The same schema the offers' `bazaar` extension declares for this tool.
            "inputSchema": contract::mcp::buy_tool_input_schema(slugs),
            "annotations": {"title": title, "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true},
        }));
    }
    tools
}

/// The `openapi.json` path whose 200 answer each tool's `structuredContent` is: the free tools
/// answer the very documents of those routes, and `comprar_estudio` the purchase's JSON.
const MIRRORED_ROUTES: [(&str, &str); 5] = [
    ("listar_estudios", "/catalogo"),
    ("buscar_estudios", "/buscar"),
    ("ver_ficha", "/estudio/{slug}/ficha"),
    ("ver_metricas", "/metricas"),
    (BUY_TOOL, "/estudio/{slug}"),
];

/// Adds to each tool of a `tools/list` its `outputSchema`, from the published contract
/// (`openapi.json`): any of the schema of the 200 answer of the route it mirrors (for
/// `como_comprar`, its own) and the contract's `Error`, which every tool error carries, and
/// for `comprar_estudio` also its `PaymentRequired`, which the payment-required answer carries
/// in `structuredContent` (x402's MCP binding). Clients check error results against it too (the
/// TypeScript SDK 1.x does), so it names every shape `structuredContent` takes. The `$ref`s to
/// `components.schemas` are written out: an output schema stands alone. A tool whose route the
/// contract lacks is left without one.
pub fn add_output_schemas(tools: &mut Value, openapi: &Value) {
    let components = &openapi["components"]["schemas"];
    let component = |name: &str| inline(&json!({"$ref": format!("#/components/schemas/{name}")}), components);
    for tool in tools.as_array_mut().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default();
        let schema = match name {
            "como_comprar" => Some(how_to_buy_schema(components)),
            _ => MIRRORED_ROUTES.iter().find(|(tool, _)| *tool == name).and_then(|(_, route)| {
                let schema = openapi.pointer(&format!(
                    "/paths/{}/get/responses/200/content/application~1json/schema",
                    route.replace('~', "~0").replace('/', "~1")
                ))?;
                Some(inline(schema, components))
            }),
        };
        let Some(answer) = schema.filter(|s| s["type"] == "object") else { continue };
        let mut shapes = vec![answer];
        if name == BUY_TOOL {
            shapes.push(component("PaymentRequired"));
        }
        shapes.push(component("Error"));
        tool["outputSchema"] = json!({"type": "object", "anyOf": shapes});
    }
}

/// `schema` with every `{"$ref": "#/components/schemas/X"}` replaced by X, recursively.
fn inline(schema: &Value, components: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(name) =
                map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                return inline(&components[name], components);
            }
            Value::Object(map.iter().map(|(k, v)| (k.clone(), inline(v, components))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, components)).collect()),
        other => other.clone(),
    }
}

/// What `como_comprar` answers ([`how_to_buy`]).
fn how_to_buy_schema(components: &Value) -> Value {
    json!({
        "type": "object",
        "required": ["protocolo", "mcp", "http"],
        "properties": {
            "protocolo": {"type": "string"},
            "mcp": {"type": "object", "required": ["servidor", "herramienta", "pasos"], "properties": {
                "servidor": {"type": "string"},
                "herramienta": {"type": "string", "const": BUY_TOOL},
                "pasos": {"type": "array", "items": {"type": "string"}},
            }},
            "http": {"type": ["object", "null"], "description": "Los pasos por HTTP que publica el documento del servicio o la ficha del estudio."},
            "estudio": {"type": "string"},
            "precio_usd": {"type": "number"},
            "monto_atomico": {"type": "string", "pattern": "^[0-9]+$"},
            "pago_requerido": inline(&json!({"$ref": "#/components/schemas/PaymentRequired"}), components),
        },
    })
}

/// An input schema: an object with exactly these properties.
fn schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// What the instructions say of the prices (Spanish, English): the one price when every study
/// has it; otherwise the range, and where each study's own price is stated.
fn price_phrases(prices: impl Iterator<Item = contract::Price>) -> (String, String) {
    let prices: std::collections::BTreeMap<u64, String> = prices.map(|p| (p.atomic(), p.usd())).collect();
    let usd = |(_, text): (&u64, &String)| text.clone();
    match (prices.first_key_value(), prices.last_key_value()) {
        (Some(low), Some(high)) if low.0 != high.0 => (
            format!(
                "de USD {} a USD {} según el estudio (el precio de cada uno está en listar_estudios, ver_ficha y como_comprar)",
                usd(low),
                usd(high)
            ),
            format!(
                "from USD {} to USD {} depending on the study (each one's price is in listar_estudios, ver_ficha and como_comprar)",
                usd(low),
                usd(high)
            ),
        ),
        (Some(one), _) => (format!("cada uno a USD {}", usd(one)), format!("USD {} each", usd(one))),
        _ => (String::new(), String::new()),
    }
}

/// The server instructions (Spanish, then English): what is sold and how to pay.
pub fn instructions(manifest: &Manifest, base_url: &str, endpoint: Endpoint) -> String {
    let (price_es, price_en) = price_phrases(manifest.studies.values().map(|s| s.price.0));
    let networks =
        manifest.service.networks.iter().map(|n| format!("{} ({})", n.name, n.caip2)).collect::<Vec<_>>().join(", ");
    let n = manifest.studies.len();
    let local = if manifest.service.mode == contract::Mode::Local {
        " Modo local: un facilitador local verifica firmas reales pero no se mueve dinero real. / Local mode: real signatures, no real money moves."
    } else {
        ""
    };
    let common_es = format!(
        "{name}: {n} estudios de visibilidad en IA (qué marcas nombran los asistentes de IA al responder preguntas de consumidores, en qué orden y con qué fuentes), {price_es} en USDC con x402 v2 ({networks}). Herramientas gratuitas: listar_estudios (catálogo), buscar_estudios {{q}}, ver_ficha {{slug}} (ficha sin contenido pago), ver_metricas (definiciones) y como_comprar {{slug?}}.",
        name = manifest.service.name,
    );
    let common_en = format!(
        "EN: {n} AI-visibility studies (which brands AI assistants name when answering consumer questions, in what order, citing which sources), {price_en} in USDC over x402 v2. Free tools: listar_estudios (catalog), buscar_estudios {{q}}, ver_ficha {{slug}}, ver_metricas, como_comprar {{slug?}}."
    );
    match endpoint {
        Endpoint::Full => format!(
            "{common_es} Para comprar: llame a comprar_estudio {{slug, vista?}} sin pago; el resultado (isError: true) trae el PaymentRequired de x402 en structuredContent. Firme una autorización EIP-3009 por el monto exacto de una entrada de accepts y repita la misma llamada con params._meta[\"x402/payment\"] = PaymentPayload (objeto JSON, no base64) con accepted copiado sin cambios. Se liquida recién con el estudio listo: recibe el resumen (o el paquete completo con vista=completo) y enlaces firmados de descarga (JSON y ZIP, válidos {days} días); el recibo va en _meta[\"x402/payment-response\"]. Si la firma, el monto o la liquidación fallan, vuelve el PaymentRequired con error y no se cobra nada.{local}\n\n{common_en} To buy: call comprar_estudio {{slug, vista?}} without payment to get the PaymentRequired (isError: true, structuredContent), sign an EIP-3009 authorization for one accepts entry and call again with params._meta[\"x402/payment\"] = the PaymentPayload object. You get the study with signed download links; the receipt is in _meta[\"x402/payment-response\"]. Nothing is charged if anything fails.",
            days = manifest.service.link_validity_days,
        ),
        Endpoint::Catalog => format!(
            "{common_es} Este servidor es solo de catálogo: para comprar use el servidor MCP completo en {base_url}/mcp (herramienta comprar_estudio) o GET {base_url}/estudio/{{slug}} con x402.{local}\n\n{common_en} This server is catalog-only: buy through the full MCP server at {base_url}/mcp (tool comprar_estudio) or GET {base_url}/estudio/{{slug}} with x402."
        ),
    }
}

/// `tools/call`: unknown tools and a malformed call are JSON-RPC errors; everything else is a
/// tool result.
pub async fn call(
    server: &McpServer,
    store: &Store<'_>,
    endpoint: Endpoint,
    era: Era,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("tools/call: falta params.name (el nombre de la herramienta)."));
    };
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err(RpcError::invalid_params("tools/call: params.arguments debe ser un objeto.")),
    };
    if !names(endpoint).contains(&name) {
        let message = match (endpoint, name == BUY_TOOL) {
            (Endpoint::Catalog, true) => {
                format!("Unknown tool: {name}. Este servidor es solo de catálogo; compre en {}/mcp.", server.base_url())
            }
            _ => format!("Unknown tool: {name}"),
        };
        return Err(RpcError::invalid_params(message).with_data(json!({"herramientas": names(endpoint)})));
    }
    tracing::debug!(target: "mcp", herramienta = name, "tools/call");
    let outcome = match name {
        "listar_estudios" => no_arguments(arguments).and_then(|()| static_json(store, "/catalogo")),
        "buscar_estudios" => search_studies(store, arguments),
        "ver_ficha" => only(arguments, &["slug"])
            .and_then(|()| required_slug(store, arguments))
            .and_then(|slug| static_json(store, &format!("/estudio/{slug}/ficha"))),
        "ver_metricas" => no_arguments(arguments).and_then(|()| static_json(store, "/metricas")),
        "como_comprar" => how_to_buy(server, store, arguments),
        BUY_TOOL => {
            let checked = only(arguments, &["slug", "vista"])
                .and_then(|()| required_slug(store, arguments))
                .and_then(|slug| Ok((slug, view(arguments)?)));
            match checked {
                Ok((slug, view)) => {
                    let meta = params.get("_meta");
                    let capabilities = meta.and_then(|m| m.get(super::modern::keys::CLIENT_CAPABILITIES));
                    let bindings = purchase::Bindings::of(era == Era::Modern, capabilities);
                    let preferences = purchase::preferences_of(meta, store.accept_payment.as_ref());
                    return purchase::buy(
                        store.offers,
                        store.shop,
                        store.mpp,
                        store.client,
                        slug,
                        view,
                        meta,
                        bindings,
                        preferences.as_ref(),
                    )
                    .await
                    .map_err(|e| RpcError::new(200, e.code, e.message).with_data(e.data));
                }
                Err(e) => Err(e),
            }
        }
        _ => Err(ToolError::new("herramienta_desconocida", format!("Herramienta desconocida: {name}."))),
    };
    Ok(outcome.unwrap_or_else(|e| e.result()))
}

fn no_arguments(arguments: &Map<String, Value>) -> Result<(), ToolError> {
    only(arguments, &[])
}

/// Refuses arguments the schema does not list (`additionalProperties: false`).
fn only(arguments: &Map<String, Value>, allowed: &[&str]) -> Result<(), ToolError> {
    let unknown: Vec<&str> = arguments.keys().map(String::as_str).filter(|k| !allowed.contains(k)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let accepted = if allowed.is_empty() { "ninguno".to_owned() } else { allowed.join(", ") };
    Err(ToolError::new(
        "argumento_desconocido",
        format!("Argumentos no admitidos: {}. Esta herramienta acepta: {accepted}.", unknown.join(", ")),
    )
    .with(json!({"admitidos": allowed})))
}

/// A string argument; `Ok(None)` when absent (or null).
fn string_argument<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ToolError> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => {
            Err(ToolError::new("argumento_invalido", format!("El argumento {key} debe ser un texto; llegó {other}.")))
        }
    }
}

fn valid_slugs<'a>(store: &Store<'a>) -> Vec<&'a str> {
    store.manifest.studies.keys().map(String::as_str).collect()
}

/// A known study slug.
fn known_slug<'a>(store: &Store<'_>, slug: &'a str) -> Result<&'a str, ToolError> {
    if store.manifest.studies.contains_key(slug) {
        return Ok(slug);
    }
    let slugs = valid_slugs(store);
    Err(ToolError::new(
        "estudio_desconocido",
        format!("No hay un estudio {slug:?}. Los estudios válidos son: {}.", slugs.join(", ")),
    )
    .with(json!({"slugs_validos": slugs})))
}

fn required_slug<'a>(store: &Store<'_>, arguments: &'a Map<String, Value>) -> Result<&'a str, ToolError> {
    match string_argument(arguments, "slug")? {
        Some(slug) => known_slug(store, slug),
        None => Err(ToolError::new(
            "falta_argumento",
            format!("Falta el argumento slug. Los estudios válidos son: {}.", valid_slugs(store).join(", ")),
        )
        .with(json!({"slugs_validos": valid_slugs(store)}))),
    }
}

/// The `vista` argument of comprar_estudio (default: the summary).
fn view(arguments: &Map<String, Value>) -> Result<View, ToolError> {
    let Some(view) = string_argument(arguments, "vista")? else { return Ok(MCP_DEFAULT_VIEW) };
    View::parse(view).ok_or_else(|| {
        ToolError::new(
            "vista_desconocida",
            format!("La vista {view:?} no existe; use completo o resumen (mismo precio)."),
        )
        .with(json!({"vistas": View::NAMES}))
    })
}

/// A free JSON document the gate serves, as a tool result (its bytes sent as they are).
fn static_json(store: &Store<'_>, path: &str) -> Result<Value, ToolError> {
    let internal = || ToolError::new("error_interno", format!("El documento {path} no está disponible."));
    let file = store.statics.get(path).ok_or_else(internal)?;
    let value: Value = serde_json::from_slice(&file.bytes).map_err(|_| internal())?;
    let text = String::from_utf8(file.bytes.to_vec()).map_err(|_| internal())?;
    Ok(success(text, value))
}

fn search_studies(store: &Store<'_>, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    only(arguments, &["q"])?;
    let q = string_argument(arguments, "q")?.map(str::trim).filter(|q| !q.is_empty()).ok_or_else(|| {
        ToolError::new(
            "falta_q",
            "Indique qué busca en el argumento q, por ejemplo \"bancos argentina\" o \"hoteles\".",
        )
    })?;
    let bytes = store.search.results(q).map_err(|refused| ToolError::new(refused.code, refused.message))?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|_| ToolError::new("error_interno", "La búsqueda no pudo responder."))?;
    Ok(success(String::from_utf8_lossy(&bytes).into_owned(), value))
}

/// `como_comprar {slug?}`: the HTTP steps the documents publish, the MCP steps, and with a
/// slug the exact PaymentRequired `comprar_estudio` answers for it.
fn how_to_buy(server: &McpServer, store: &Store<'_>, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    only(arguments, &["slug"])?;
    let slug = string_argument(arguments, "slug")?.map(|s| known_slug(store, s)).transpose()?;
    let source = match slug {
        Some(slug) => format!("/estudio/{slug}/ficha"),
        None => "/".to_owned(),
    };
    let http = store
        .statics
        .get(&source)
        .and_then(|f| serde_json::from_slice::<Value>(&f.bytes).ok())
        .and_then(|doc| doc.get("como_comprar").cloned())
        .unwrap_or(Value::Null);
    let mut answer = json!({
        "protocolo": "x402 v2 (esquema exact, EIP-3009, USDC)",
        "mcp": purchase::mcp_steps(server.base_url()),
        "http": http,
    });
    if let Some(slug) = slug {
        answer["estudio"] = json!(slug);
        if let Some(study) = store.manifest.studies.get(slug) {
            answer["precio_usd"] = json!(study.price.0.usd_number());
            answer["monto_atomico"] = json!(study.price.0.atomic_string());
        }
        if let Ok(offer) = store.offers.find(slug, Some(MCP_DEFAULT_VIEW.as_str())) {
            answer["pago_requerido"] = purchase::payment_required(
                offer,
                "Payment required: call comprar_estudio with _meta[\"x402/payment\"]",
            );
        }
    }
    Ok(success_value(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_state_one_price_or_the_range_and_where_each_is() {
        let price = |usd: &str| contract::Price::from_usd(usd).expect("price");
        let (es, en) = price_phrases([price("0.99"), price("0.99")].into_iter());
        assert_eq!((es.as_str(), en.as_str()), ("cada uno a USD 0.99", "USD 0.99 each"));
        let (es, en) = price_phrases([price("1.49"), price("0.99"), price("2.50")].into_iter());
        assert!(es.starts_with("de USD 0.99 a USD 2.50 según el estudio") && es.contains("como_comprar"), "{es}");
        assert!(en.starts_with("from USD 0.99 to USD 2.50 depending on the study"), "{en}");
    }

    #[test]
    fn tool_lists_are_well_formed() {
        let slugs = ["a-2026", "b-2026"];
        let full = definitions(&slugs, Endpoint::Full);
        let catalog = definitions(&slugs, Endpoint::Catalog);
        let names_of =
            |tools: &[Value]| tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
        assert_eq!(names_of(&full), names(Endpoint::Full));
        assert_eq!(names_of(&catalog), FREE_TOOLS);
        for tool in &full {
            let name = tool["name"].as_str().unwrap();
            assert!(name.len() <= 128 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)));
            assert!(tool["title"].as_str().is_some_and(|t| !t.is_empty()));
            assert!(tool["description"].as_str().is_some_and(|d| d.contains("\n\nEN: ")), "{name}: es + en");
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert_eq!(tool["inputSchema"]["additionalProperties"], false);
            assert!(tool.get("outputSchema").is_none(), "{name}: only from the contract (add_output_schemas)");
            let paid = name == BUY_TOOL;
            assert_eq!(tool["annotations"]["readOnlyHint"], !paid, "{name}");
            assert_eq!(tool["annotations"]["destructiveHint"], false, "{name}");
        }
        assert_eq!(full[5]["inputSchema"]["required"], json!(["slug"]));
        assert_eq!(full[5]["inputSchema"]["properties"]["slug"]["enum"], json!(slugs));
        assert!(full[0]["inputSchema"].get("required").is_none());
    }

    #[test]
    fn output_schemas_come_from_the_contract_written_out() {
        let openapi = json!({
            "paths": {
                "/catalogo": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Catalogo"}}}}}}},
                "/metricas": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"type": "object"}}}}}}},
            },
            "components": {"schemas": {
                "Catalogo": {"type": "object", "properties": {"uno": {"$ref": "#/components/schemas/Uno"}}},
                "Uno": {"type": "integer"},
                "PaymentRequired": {"type": "object"},
                "Error": {"type": "object", "required": ["error"]},
            }},
        });
        let mut tools = json!(definitions(&["a-2026"], Endpoint::Full));
        add_output_schemas(&mut tools, &openapi);
        let schema =
            |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["outputSchema"].clone();
        let error = json!({"type": "object", "required": ["error"]});
        assert_eq!(
            schema("listar_estudios"),
            json!({"type": "object", "anyOf": [{"type": "object", "properties": {"uno": {"type": "integer"}}}, error]})
        );
        assert_eq!(schema("ver_metricas"), json!({"type": "object", "anyOf": [{"type": "object"}, error]}));
        assert_eq!(schema("como_comprar")["anyOf"][0]["properties"]["pago_requerido"], json!({"type": "object"}));
        assert_eq!(schema("ver_ficha"), Value::Null, "no route in this contract, no schema");
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let args = |v: Value| v.as_object().unwrap().clone();
        assert!(only(&args(json!({"slug": "x"})), &["slug"]).is_ok());
        assert_eq!(only(&args(json!({"slug": "x", "otro": 1})), &["slug"]).unwrap_err().code, "argumento_desconocido");
        assert_eq!(no_arguments(&args(json!({"x": 1}))).unwrap_err().code, "argumento_desconocido");
        assert_eq!(string_argument(&args(json!({"q": 5})), "q").unwrap_err().code, "argumento_invalido");
        assert_eq!(string_argument(&args(json!({"q": null})), "q").unwrap(), None);
        assert_eq!(view(&args(json!({}))).unwrap(), MCP_DEFAULT_VIEW);
        assert_eq!(view(&args(json!({"vista": "completo"}))).unwrap(), View::Full);
        assert_eq!(view(&args(json!({"vista": "todo"}))).unwrap_err().code, "vista_desconocida");
    }
}
