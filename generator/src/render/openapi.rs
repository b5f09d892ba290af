//! `openapi.json` (OpenAPI 3.1) and the x402 discovery document (`/.well-known/x402`).
//!
//! Agents and x402 indexers (x402scan prefers OpenAPI) discover the paid route here, so both
//! documents carry the same networks, pay-to addresses and prices as the 402 answers: they
//! are all derived from [`crate::render::offer`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use contract::x402::{PaymentRequired, ResourceInfo, X402_VERSION};
use contract::{Price, View};

use crate::model::Study;
use crate::paths;
use crate::render::site::Site;
use crate::render::{extensions, offer};

/// The OpenAPI 3.1 description of every public endpoint.
pub fn openapi(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    let slugs: Vec<&str> = site.content.studies.iter().map(|s| s.slug.as_str()).collect();
    let networks = offer::networks(service);
    let prices: BTreeMap<&str, f64> =
        site.content.studies.iter().map(|s| (s.slug.as_str(), site.price_of(s).usd_number())).collect();
    let pay_to: BTreeMap<&str, &str> = networks.iter().map(|n| (n.caip2.as_str(), n.pay_to.as_str())).collect();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": service.name,
            "version": "1.0.0",
            "description": format!("{}\n\n{}", service.description, service.description_en),
            "contact": {"email": service.contact, "url": service.web},
            "x-guidance": guidance(site),
        },
        "x-discovery": {"llmsTxtUrl": site.url("/llms.txt")},
        "servers": [{"url": site.base_url, "description": format!("modo {}", service.mode.as_str())}],
        "x-x402": {
            "version": X402_VERSION,
            "currency": service.currency,
            "mode": service.mode.as_str(),
            "networks": networks.iter().map(|n| n.caip2.as_str()).collect::<Vec<_>>(),
            "payTo": pay_to,
            "prices_usd": prices,
        },
        "paths": free_by_default(paths(site, &slugs)),
        "components": components(),
    })
}

/// `info.x-guidance`: how an agent buys, in a few lines (Spanish, then English), from the same
/// steps every other document shows ([`offer::how_to_buy`]).
fn guidance(site: &Site<'_>) -> String {
    let how = site.how_to_buy(None);
    let mcp = site.url("/mcp");
    let tool = contract::mcp::BUY_TOOL;
    // Each study's own price: one figure when they all cost the same, else every study's.
    let (price_es, price_en) = match site.common_price() {
        Some(price) => (format!("{} USD", price.usd()), format!("{} USD", price.usd())),
        None => {
            let list = site.prices().iter().map(|(slug, p)| format!("{slug} {} USD", p.usd())).collect::<Vec<_>>();
            (
                format!("cada estudio a su precio: {};", list.join(", ")),
                format!("each study at its own price: {};", list.join(", ")),
            )
        }
    };
    let mut lines = vec![format!(
        "Cómo comprar un estudio ({price_es} en {}, x402 v2). Gratis y sin pago: /catalogo, /buscar?q=, /estudio/{{slug}}/ficha, /metricas, /llms.txt.",
        how.currency
    )];
    lines.extend(how.steps.iter().cloned());
    lines.push(format!(
        "Alternativa MCP: {mcp} (Streamable HTTP, sin sesión), herramienta {tool}: sin pago devuelve el PaymentRequired en structuredContent; repita la llamada con el PaymentPayload en params._meta[\"x402/payment\"] y recibe el estudio con los mismos enlaces."
    ));
    lines.push(how.mpp.summary.clone());
    lines.push(String::new());
    lines.push(format!("How to buy a study ({price_en} in {}, x402 v2):", how.currency));
    lines.extend(how.en.steps.iter().cloned());
    lines.push(format!(
        "MCP alternative: {mcp}, tool {tool}, with the PaymentPayload in params._meta[\"x402/payment\"]."
    ));
    lines.join("\n")
}

/// Declares `security: []` (no credentials) on every operation that does not carry
/// `x-payment-info`: discovery crawlers read it as "free to call".
fn free_by_default(mut paths: Value) -> Value {
    for operation in paths
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut())
        .flat_map(|item| item.as_object_mut().into_iter().flat_map(|methods| methods.values_mut()))
    {
        if operation.get("x-payment-info").is_none() {
            operation["security"] = json!([]);
        }
    }
    paths
}

/// `x-payment-info` of the paid operation, in the two shapes discovery reads: x402scan's (a
/// fixed price in USD when every study costs the same, and the protocols as objects) and the
/// MPP discovery draft's (`draft-payment-discovery-00`: `offers`, one per MPP challenge the 402
/// carries, `evm` `charge` in the token's smallest unit, `null` when prices differ).
fn payment_info(site: &Site<'_>) -> Value {
    let prices: BTreeSet<Price> = site.content.studies.iter().map(|s| site.price_of(s)).collect();
    let single = match (prices.first(), prices.len()) {
        (Some(only), 1) => Some(*only),
        (None, _) => Some(site.content.service.price_usd),
        _ => None,
    };
    let price = match single {
        Some(price) => json!({"mode": "fixed", "currency": "USD", "amount": price.usd()}),
        None => json!({"mode": "dynamic", "currency": "USD"}),
    };
    let offers: Vec<Value> = offer::networks(&site.content.service)
        .iter()
        .filter(|n| !n.is_solana())
        .map(|n| {
            json!({
                "intent": "charge",
                "method": "evm",
                "amount": single.map(|p| p.atomic_string()),
                "currency": n.asset,
                "description": format!("USDC en {} ({}), EIP-3009", n.name, n.caip2),
            })
        })
        .collect();
    json!({"price": price, "protocols": [{"x402": {}}, {"mpp": {}}], "offers": offers})
}

fn json_response(description: &str, schema: &str) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}})
}

fn error_response(description: &str) -> Value {
    json_response(description, "Error")
}

fn paths(site: &Site<'_>, slugs: &[&str]) -> Value {
    let slug_param = json!({
        "name": "slug", "in": "path", "required": true,
        "description": "Identificador del estudio (ver /catalogo).",
        "schema": {"type": "string", "enum": slugs},
    });
    let price = match site.common_price() {
        Some(price) => format!("por {} USDC", price.usd()),
        None => "a su precio (x-x402.prices_usd; de cada estudio en /catalogo)".to_owned(),
    };
    let payment_info = payment_info(site);
    json!({
        "/": {"get": {
            "operationId": "indiceServicio",
            "summary": "Índice del servicio: qué se vende, cómo comprar y todos los endpoints.",
            "responses": {"200": {"description": "Índice del servicio", "content": {"application/json": {"schema": {"type": "object"}}}}},
        }},
        "/catalogo": {"get": {
            "operationId": "catalogo",
            "summary": "Catálogo gratuito de los estudios a la venta.",
            "responses": {"200": json_response("Catálogo", "Catalogo")},
        }},
        "/metricas": {"get": {
            "operationId": "metricas",
            "summary": "Definiciones y fórmulas de las métricas (es/en).",
            "responses": {"200": {"description": "Métricas", "content": {"application/json": {"schema": {"type": "object"}}}}},
        }},
        "/estudio/{slug}/ficha": {"get": {
            "operationId": "fichaEstudio",
            "summary": "Ficha gratuita de un estudio: diseño, universo, índice de tablas, ejemplos, archivos y cómo comprar. Sin contenido pago.",
            "parameters": [slug_param.clone()],
            "responses": {
                "200": json_response("Ficha del estudio", "Ficha"),
                "404": error_response("Estudio desconocido"),
            },
        }},
        "/buscar": {"get": {
            "operationId": "buscar",
            "summary": "Busca estudios por tema, industria, país o marca (sin distinguir tildes ni mayúsculas).",
            "parameters": [{
                "name": "q", "in": "query", "required": true,
                "description": format!(
                    "Consulta con algo más que signos, espacios y controles ASCII (si no, 400 q_sin_terminos) y hasta {} caracteres \
                     (si no, 400 q_demasiado_larga). Una consulta de solo palabras muy comunes (\"de la\") u otros signos \
                     (\"¿…?\") no encuentra nada: 200 con 0 resultados.",
                    contract::search::MAX_QUERY_CHARS
                ),
                "schema": {"type": "string", "minLength": 1, "maxLength": contract::search::MAX_QUERY_CHARS, "pattern": contract::search::SEARCHABLE_PATTERN},
            }],
            "responses": {
                "200": json_response("Resultados ordenados por relevancia", "Busqueda"),
                "400": error_response("Falta q (falta_q), solo tiene signos ASCII (q_sin_terminos) o es demasiado larga (q_demasiado_larga)"),
            },
        }},
        "/estudio/{slug}": {"get": {
            "operationId": "comprarEstudio",
            "summary": format!("Compra un estudio completo {price} con x402 v2."),
            "description": "Sin el encabezado PAYMENT-SIGNATURE responde 402 con PAYMENT-REQUIRED (base64 del objeto PaymentRequired, repetido en el campo x402 del cuerpo). Con un pago válido verifica, arma el estudio, liquida y solo entonces responde 200 con PAYMENT-RESPONSE (con el recibo firmado de la extensión offer-receipt) y enlaces de descarga firmados. Quien ya compró el estudio lo recibe de nuevo sin pagar con el encabezado SIGN-IN-WITH-X (extensión sign-in-with-x: firma el desafío que trae cada 402). Además de las extensiones que declara gate.json, el gate agrega a cada 402 las ofertas firmadas (offer-receipt) y un desafío nuevo de sign-in-with-x por pedido.",
            "parameters": [
                slug_param,
                {"name": "vista", "in": "query", "required": false,
                 "description": "completo (por defecto) o resumen; mismo precio.",
                 "schema": {"type": "string", "enum": View::NAMES, "default": View::ALL[0]}},
                {"name": "PAYMENT-SIGNATURE", "in": "header", "required": false,
                 "description": "base64 (alfabeto estándar, con relleno) del JSON del PaymentPayload x402 v2; otra cosa es 400 pago_mal_formado.",
                 "schema": base64_header()},
                {"name": "SIGN-IN-WITH-X", "in": "header", "required": false,
                 "description": "base64 (alfabeto estándar, con relleno) de la prueba sign-in-with-x (mensaje EIP-4361 firmado por la billetera que compró): reacceso sin cobro. Una prueba que no decodifica o no vale recibe 402 con el motivo y un desafío nuevo (como el servidor oficial), no 400; con PAYMENT-SIGNATURE al lado, sigue el pago.",
                 "schema": {"type": "string"}},
            ],
            "x-payment-info": payment_info,
            "responses": {
                "200": {
                    "description": "Estudio pagado, con enlaces de descarga firmados.",
                    "headers": {"PAYMENT-RESPONSE": {"description": "base64 del SettlementResponse", "schema": {"type": "string"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Compra"}}},
                },
                "400": error_response("Vista desconocida o pago mal formado"),
                "402": {
                    "description": "Pago requerido, o pago rechazado (no se cobró nada).",
                    "headers": {
                        "PAYMENT-REQUIRED": {"description": "base64 del PaymentRequired", "schema": {"type": "string"}},
                        "PAYMENT-RESPONSE": {"description": "base64 del SettlementResponse fallido, cuando hubo intento de liquidación", "schema": {"type": "string"}},
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PagoRequerido"}}},
                },
                "404": error_response("Estudio desconocido"),
                "405": error_response("Método no admitido (solo GET, HEAD y OPTIONS)"),
                "409": error_response("Pago ya usado para otra compra, en curso, o payment-identifier de otro pago (no se cobró nada)"),
                "429": {
                    "description": "Demasiados intentos de pago rechazados desde esa dirección, de esa billetera o en el servicio; no se cobró nada.",
                    "headers": {"Retry-After": {"description": "segundos hasta poder reintentar", "schema": {"type": "integer"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
                "500": error_response("No se pudo armar el estudio (error_interno); no se cobró nada"),
                "502": error_response("El facilitador rechazó el pedido sin una respuesta x402 o, al verificar, respondió con un error (facilitador_con_error); no se cobró nada"),
                "503": {
                    "description": "Facilitador no disponible (facilitador_no_disponible, no se cobró nada), diario de ventas no disponible (diario_no_disponible), demasiadas conexiones, o liquidacion_incierta: no se entregó nada y el pago pudo haberse movido; repita el mismo pedido con la misma PAYMENT-SIGNATURE antes de que venza, sin firmar un pago nuevo.",
                    "headers": {"Retry-After": {"description": "segundos hasta reintentar, cuando se sabe", "schema": {"type": "integer"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        }},
        "/descarga/{archivo}": {"get": {
            "operationId": "descargar",
            "summary": "Descarga un archivo comprado con un enlace firmado (válido 7 días).",
            "parameters": [
                {"name": "archivo", "in": "path", "required": true, "schema": {"type": "string"}, "description": "Nombre del archivo (slug.json o slug.zip)."},
                {"name": "vence", "in": "query", "required": true, "schema": {"type": "integer"}, "description": "Vencimiento, segundos Unix."},
                {"name": "firma", "in": "query", "required": true, "schema": {"type": "string"}, "description": "HMAC-SHA256 del nombre y el vencimiento."},
            ],
            "responses": {
                "200": {"description": "El archivo entero", "headers": download_headers(false), "content": download_content()},
                "206": {"description": "La parte pedida con Range (un solo rango de bytes), para reanudar una descarga", "headers": download_headers(true), "content": download_content()},
                "403": error_response("Firma inválida, enlace vencido o archivo desconocido"),
                "405": error_response("Método no admitido (solo GET, HEAD y OPTIONS)"),
                "416": {
                    "description": "El rango pedido empieza después del final del archivo.",
                    "headers": {
                        "Content-Range": {"description": "bytes */TAMAÑO", "schema": {"type": "string"}},
                        "Accept-Ranges": {"schema": {"type": "string", "const": "bytes"}},
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        }},
        "/.well-known/did.json": {"get": {
            "operationId": "documentoDid",
            "summary": "Documento did:web con la clave pública que firma las ofertas y los recibos (extensión offer-receipt).",
            "responses": {"200": {"description": "Documento DID", "content": {"application/did+json": {"schema": {"$ref": "#/components/schemas/DocumentoDid"}}}}},
        }},
        "/salud": {"get": {
            "operationId": "salud",
            "summary": "Vida (liveness): el gate responde.",
            "responses": {"200": json_response("Vivo", "Salud")},
        }},
        "/listo": {"get": {
            "operationId": "listo",
            "summary": "Disponibilidad (readiness): dist/ y sus archivos están, y el registro de ventas responde.",
            "responses": {
                "200": json_response("Listo para vender", "Listo"),
                "503": json_response("No listo: comprobaciones dice qué falla", "Listo"),
            },
        }},
        "/llms.txt": {"get": {
            "operationId": "llmsTxt",
            "summary": "Guía en texto plano para modelos de lenguaje.",
            "responses": {"200": {"description": "Texto", "content": {"text/plain": {"schema": {"type": "string"}}}}},
        }},
        "/mcp": {"post": mcp_operation(
            "mcp",
            "Servidor MCP (Streamable HTTP, sin sesión; MCP 2026-07-28 sin initialize y 2025-03-26 a 2025-11-25 con initialize): listar_estudios, buscar_estudios, ver_ficha, ver_metricas, como_comprar y comprar_estudio, que cobra con el binding x402 de MCP (PaymentRequired en structuredContent; pago en params._meta[\"x402/payment\"]; recibo en result._meta[\"x402/payment-response\"]).",
        )},
        "/mcp/catalogo": {"post": mcp_operation(
            "mcpCatalogo",
            "Servidor MCP solo de catálogo: las herramientas gratuitas, sin comprar_estudio.",
        )},
    })
}

/// The headers of a download (a part, with `partial`).
fn download_headers(partial: bool) -> Value {
    let mut headers = json!({
        "ETag": {"description": "sha256 del archivo entre comillas (validador fuerte; sirve en If-Range)", "schema": {"type": "string"}},
        "Accept-Ranges": {"schema": {"type": "string", "const": "bytes"}},
        "Content-Disposition": {"description": "attachment; filename=\"ARCHIVO\"", "schema": {"type": "string"}},
    });
    if partial {
        headers["Content-Range"] = json!({"description": "bytes INICIO-FIN/TAMAÑO", "schema": {"type": "string"}});
    }
    headers
}

fn download_content() -> Value {
    json!({
        "application/json": {"schema": {"type": "string", "format": "binary", "description": "El paquete JSON (slug.json), o una parte de él."}},
        "application/zip": {"schema": {"type": "string", "format": "binary"}},
    })
}

/// A header holding standard base64 with its padding, as the gate decodes it.
fn base64_header() -> Value {
    json!({
        "type": "string",
        "minLength": 4,
        "maxLength": contract::x402::MAX_PAYMENT_HEADER_BYTES,
        "pattern": contract::x402::PAYMENT_HEADER_PATTERN,
    })
}

/// One JSON-RPC 2.0 message as `/mcp` parses it: a request or notification (a `method`, text;
/// `params`, if any, an object) or a response (an `id` and a `result` or an `error`, no
/// `method`). An `id` is text or an integer that fits 64 bits, never null. Batches are refused.
fn json_rpc_message() -> Value {
    let id = json!({"oneOf": [
        {"type": "string"},
        {"type": "integer", "minimum": i64::MIN, "maximum": u64::MAX},
    ]});
    json!({
        "type": "object",
        "properties": {"jsonrpc": {"const": "2.0"}, "id": id, "method": {"type": "string"}, "params": {"type": "object"}},
        "oneOf": [
            {"title": "Pedido o notificación", "required": ["jsonrpc", "method"]},
            {"title": "Respuesta", "required": ["jsonrpc", "id"], "not": {"required": ["method"]},
             "anyOf": [{"required": ["result"]}, {"required": ["error"]}]},
        ],
    })
}

/// A POST of one JSON-RPC message to an MCP endpoint (GET and DELETE answer 405).
fn mcp_operation(operation_id: &str, summary: &str) -> Value {
    json!({
        "operationId": operation_id,
        "summary": summary,
        "description": "Un mensaje JSON-RPC 2.0 por POST, con Accept: application/json, text/event-stream. Respuestas JSON, nunca un Mcp-Session-Id; sin lotes.",
        "requestBody": {"required": true, "content": {"application/json": {"schema": json_rpc_message()}}},
        "responses": {
            "200": {"description": "Respuesta JSON-RPC", "content": {"application/json": {"schema": {"type": "object"}}}},
            "202": {"description": "Notificación o respuesta aceptada, sin cuerpo"},
            "400": {"description": "JSON inválido, lote, mensaje mal formado o MCP-Protocol-Version no admitida"},
            "403": {"description": "Origin u Host no permitidos"},
            "406": {"description": "Accept no admite application/json ni text/event-stream"},
            "413": {"description": "Cuerpo demasiado grande"},
            "415": {"description": "Content-Type no es application/json"},
        },
    })
}

fn components() -> Value {
    json!({"schemas": {
        "Error": {
            "type": "object",
            "required": ["error", "mensaje"],
            "properties": {
                "error": {"type": "string", "description": "Código estable del error."},
                "mensaje": {"type": "string", "description": "Explicación en español."},
                "message": {"type": "string", "description": "Explanation in English."},
            },
        },
        "Catalogo": {
            "type": "object",
            "required": ["estudios", "total"],
            "properties": {
                "total": {"type": "integer"},
                "estudios": {"type": "array", "items": {"type": "object", "required": ["slug", "nombre", "precio_usd", "ficha", "comprar"], "properties": {
                    "slug": {"type": "string"}, "nombre": {"type": "string"}, "nombre_en": {"type": "string"},
                    "precio_usd": {"type": "number"}, "ficha": {"type": "string", "format": "uri"}, "comprar": {"type": "string", "format": "uri"},
                }}},
            },
        },
        "Ficha": {
            "type": "object",
            "required": ["slug", "nombre", "precio_usd", "moneda", "n_preguntas", "n_respuestas", "archivos", "como_comprar"],
            "properties": {
                "slug": {"type": "string"}, "nombre": {"type": "string"}, "precio_usd": {"type": "number"},
                "moneda": {"type": "string"}, "n_preguntas": {"type": "integer"}, "n_respuestas": {"type": "integer"},
                "archivos": {"type": "object"}, "como_comprar": {"type": "object"},
            },
        },
        "Busqueda": {
            "type": "object",
            "required": ["q", "resultados"],
            "properties": {
                "q": {"type": "string"},
                "resultados": {"type": "array", "items": {"type": "object", "properties": {
                    "slug": {"type": "string"}, "nombre": {"type": "string"}, "puntaje": {"type": "number"},
                    "coincide_en": {"type": "array", "items": {"type": "string"}},
                }}},
            },
        },
        "PaymentRequired": {
            "type": "object",
            "required": ["x402Version", "resource", "accepts"],
            "properties": {
                "x402Version": {"type": "integer", "const": 2},
                "error": {"type": "string"},
                "resource": {"type": "object", "required": ["url"], "properties": {
                    "url": {"type": "string"}, "description": {"type": "string"}, "mimeType": {"type": "string"}}},
                "accepts": {"type": "array", "items": {"type": "object",
                    "required": ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"],
                    "properties": {
                        "scheme": {"type": "string"}, "network": {"type": "string"}, "amount": {"type": "string"},
                        "asset": {"type": "string"}, "payTo": {"type": "string"}, "maxTimeoutSeconds": {"type": "integer"},
                        "extra": {"type": "object"},
                    }}},
                "extensions": {"type": "object"},
            },
        },
        "PagoRequerido": {
            "type": "object",
            "required": ["error", "mensaje", "x402"],
            "properties": {
                "error": {"type": "string"}, "mensaje": {"type": "string"}, "message": {"type": "string"},
                "x402": {"$ref": "#/components/schemas/PaymentRequired"},
                "como_comprar": {"type": "object", "description": "Lo esencial para pagar (precio, redes, pasos de x402, MPP en una línea); guia_completa.url es la ficha, cuyo como_comprar es la guía entera."},
            },
        },
        "Compra": {
            "type": "object",
            "required": ["estudio", "nombre", "vista", "acceso", "pago", "liquidacion"],
            "properties": {
                "estudio": {"type": "string"},
                "nombre": {"type": "string"},
                "vista": {"type": "string", "enum": View::NAMES},
                "acceso": {"type": "object", "required": ["descargas", "vence", "vence_unix"], "properties": {
                    "descargas": {"type": "object", "required": ["json", "zip"], "properties": {
                        "json": {"$ref": "#/components/schemas/Descarga"},
                        "zip": {"$ref": "#/components/schemas/Descarga"},
                    }},
                    "vence": {"type": "string", "format": "date-time"},
                    "vence_unix": {"type": "integer", "description": "El mismo vencimiento, segundos Unix."},
                    "nota": {"type": "string"},
                }},
                "pago": {"type": "object", "required": ["red", "pagador", "monto", "activo"], "properties": {
                    "red": {"type": "string", "description": "CAIP-2"}, "pagador": {"type": "string"},
                    "monto": {"type": "string", "description": "Unidades atómicas del activo."}, "activo": {"type": "string"},
                }},
                "liquidacion": {"type": "object", "required": ["transaccion", "red"], "properties": {
                    "transaccion": {"type": "string"}, "red": {"type": "string"},
                    "recibo": {"type": "object", "description": "Recibo firmado (extensión offer-receipt)."},
                }},
                "paquete": {"type": "object", "description": "Vista completo."},
                "resumen": {"type": "object", "description": "Vista resumen."},
            },
        },
        "Descarga": {
            "type": "object",
            "required": ["url", "archivo", "tipo", "bytes", "sha256"],
            "properties": {
                "url": {"type": "string", "format": "uri", "description": "Enlace firmado a /descarga/{archivo}."},
                "archivo": {"type": "string"},
                "tipo": {"type": "string", "description": "Content-Type del archivo."},
                "bytes": {"type": "integer", "minimum": 0},
                "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            },
        },
        "DocumentoDid": {
            "type": "object",
            "required": ["id", "verificationMethod"],
            "properties": {
                "@context": {}, "id": {"type": "string"},
                "verificationMethod": {"type": "array", "items": {"type": "object"}},
                "assertionMethod": {"type": "array"},
            },
        },
        "Salud": {"type": "object", "required": ["estado"], "properties": {"estado": {"type": "string", "const": "vivo"}}},
        "Listo": {
            "type": "object",
            "required": ["listo", "comprobaciones"],
            "properties": {
                "listo": {"type": "boolean"},
                "comprobaciones": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["ok", "detalle"],
                    "properties": {"ok": {"type": "boolean"}, "detalle": {"type": "string"}},
                }},
            },
        },
    }})
}

/// The paid route as x402 Bazaar writes a dynamic route (`specs/extensions/bazaar.md`,
/// "`routeTemplate` Wire Format": `:param` segments).
///
/// The 402s themselves leave `routeTemplate` out of their `bazaar` extension on purpose: a
/// facilitator folds every concrete URL of a template into one catalog entry, and each study
/// is a product of its own (its own description, tags and price), so each stays its own entry
/// (the spec's "absent for static routes": the concrete URL is the key). Discovery documents,
/// which describe the route as a whole, name the template.
pub const ROUTE_TEMPLATE: &str = "/estudio/:slug";

/// The paid resource URL of a study view.
pub fn resource_url(site: &Site<'_>, slug: &str, view: View) -> String {
    site.url(&format!("/estudio/{slug}?vista={view}"))
}

/// The `PaymentRequired` object the gate answers a study view with over HTTP (without
/// `error`). With [`payment_required_mcp`], the one place a 402 object is built; the gate
/// derives its HTTP, HTML and MCP 402 answers from these two.
pub fn payment_required(site: &Site<'_>, study: &Study, view: View) -> PaymentRequired {
    let resource = ResourceInfo {
        url: resource_url(site, &study.slug, view),
        description: Some(format!("{} ({view})", study.design.name)),
        ..discovery_metadata(site, study)
    };
    let extensions = extensions::declared(extensions::bazaar_http(view, &purchase_example(site, study, view)));
    required_with(site, study, resource, extensions)
}

/// The `PaymentRequired` object of a study view bought through the MCP tool `comprar_estudio`:
/// the same requirements, a resource that names the tool, the tool's discovery info.
pub fn payment_required_mcp(site: &Site<'_>, study: &Study, view: View) -> PaymentRequired {
    let description =
        format!("{} (vista {view}) vía la herramienta MCP {}", study.design.name, contract::mcp::BUY_TOOL);
    let resource = ResourceInfo {
        url: contract::mcp::resource_url(&study.slug, view),
        description: Some(description.clone()),
        ..discovery_metadata(site, study)
    };
    let slugs: Vec<&str> = site.content.studies.iter().map(|s| s.slug.as_str()).collect();
    let example = purchase_example(site, study, view);
    let bazaar = extensions::bazaar_mcp(&slugs, &study.slug, view, &description, &example);
    required_with(site, study, resource, extensions::declared(bazaar))
}

fn required_with(site: &Site<'_>, study: &Study, resource: ResourceInfo, extensions: Value) -> PaymentRequired {
    PaymentRequired {
        x402_version: X402_VERSION,
        error: None,
        resource,
        accepts: offer::accepts(&site.content.service, site.price_of(study)),
        extensions: Some(extensions),
    }
}

/// What a discovery catalog shows of a resource: the service's short name and the study's tags,
/// within the bazaar limits (printable ASCII; a name of at most 32 characters, at most 5 tags of
/// at most 32), everything else folded or left out.
fn discovery_metadata(site: &Site<'_>, study: &Study) -> ResourceInfo {
    let ascii = |text: &str| -> String {
        contract::fold::strip_accents(text)
            .chars()
            .filter(|c| (' '..='~').contains(c))
            .collect::<String>()
            .trim()
            .to_owned()
    };
    let mut name = String::new();
    for word in ascii(&site.content.service.name_en).split_whitespace() {
        if name.len() + usize::from(!name.is_empty()) + word.len() > 32 {
            break;
        }
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(word);
    }
    let mut tags: Vec<String> = Vec::new();
    for tag in study.design.tags.iter().map(|t| ascii(t)) {
        let fresh = !tags.iter().any(|t| t.eq_ignore_ascii_case(&tag));
        if !tag.is_empty() && tag.len() <= 32 && fresh && tags.len() < 5 {
            tags.push(tag);
        }
    }
    ResourceInfo {
        mime_type: Some("application/json".to_owned()),
        service_name: Some(name).filter(|n| !n.is_empty()),
        tags: Some(tags).filter(|t| !t.is_empty()),
        icon_url: site.content.service.icon_url.clone(),
        ..ResourceInfo::default()
    }
}

/// An example of the answer a purchase gets (links and transaction shown as placeholders).
fn purchase_example(site: &Site<'_>, study: &Study, view: View) -> Value {
    let link = |name: String| json!({"archivo": name, "url": site.url(&format!("/descarga/{name}?vence=<unix>&firma=<hmac-sha256>"))});
    let network = offer::networks(&site.content.service).first().map(|n| n.caip2.clone()).unwrap_or_default();
    let content_key = match view {
        View::Full => "paquete",
        View::Summary => "resumen",
    };
    json!({
        "estudio": study.slug,
        "nombre": study.design.name,
        "vista": view,
        "acceso": {
            "descargas": {"json": link(paths::json_download(&study.slug)), "zip": link(paths::zip_download(&study.slug))},
            "vence": "<ISO 8601>",
        },
        content_key: {"ficha": {"slug": study.slug}},
        "liquidacion": {"red": network, "transaccion": "<hash>"},
    })
}

/// `/.well-known/x402`: the x402scan convention (version 1, resource list) plus the full
/// v2 items so a client can read requirements without probing.
pub fn discovery(site: &Site<'_>) -> Value {
    let resources: Vec<String> =
        site.content.studies.iter().flat_map(|s| View::ALL.map(|v| resource_url(site, &s.slug, v))).collect();
    let items: Vec<Value> = site
        .content
        .studies
        .iter()
        .flat_map(|s| {
            View::ALL.map(|v| {
                let required = payment_required(site, s, v);
                json!({
                    "type": "http",
                    "resource": required.resource,
                    "accepts": required.accepts,
                    "input": {"method": "GET", "routeTemplate": ROUTE_TEMPLATE, "queryParams": {"vista": v}},
                    "precio_usd": site.price_of(s).usd_number(),
                })
            })
        })
        .collect();
    json!({
        "version": 1,
        "x402Version": X402_VERSION,
        "modo": site.content.service.mode.as_str(),
        "resources": resources,
        "items": items,
        "mcp": {"completo": site.url("/mcp"), "solo_catalogo": site.url("/mcp/catalogo"), "herramienta_pago": "comprar_estudio"},
        "instructions": "Cada estudio se vende completo por el precio indicado en USDC con x402 v2 (esquema exact). GET sin pago → 402 con PAYMENT-REQUIRED; repita con PAYMENT-SIGNATURE. Ver /llms.txt y /openapi.json.",
    })
}
