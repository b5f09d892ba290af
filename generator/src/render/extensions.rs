//! The x402 v2 extensions every offer declares in its 402, built once here at build time so the
//! HTTP and MCP answers carry the same set:
//!
//! - `payment-identifier` (not required): official clients send an idempotency id only when the
//!   server declares it; the gate uses it to recognise a retry of a paid purchase.
//! - `bazaar`: discovery info a facilitator can index the offer by: for the HTTP route, the
//!   `GET` with its `vista` query parameter and an example of the answer; for the MCP tool
//!   `comprar_estudio`, its input schema and an example call.
//!
//! The shapes are those the official `@x402/extensions` package declares (`declarePaymentIdentifierExtension`,
//! `declareDiscoveryExtension` enriched for `GET`); the interop suite checks them with it.

use contract::View;
use contract::x402::{BAZAAR, PAYMENT_IDENTIFIER};
use serde_json::{Map, Value, json};

const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// `payment-identifier`, optional: exactly what `declarePaymentIdentifierExtension(false)` returns.
pub fn payment_identifier() -> Value {
    json!({
        "info": {"required": false},
        "schema": {
            "$schema": SCHEMA_DIALECT,
            "type": "object",
            "properties": {
                "required": {"type": "boolean"},
                "id": {"type": "string", "minLength": 16, "maxLength": 128, "pattern": "^[a-zA-Z0-9_-]+$"},
            },
            "required": ["required"],
        },
    })
}

/// `bazaar` for `GET /estudio/{slug}?vista=`: the query this offer is bought with and an example
/// of the answer, with the schema of both.
pub fn bazaar_http(view: View, example: &Value) -> Value {
    let input = json!({"type": "http", "queryParams": {"vista": view}, "method": "GET"});
    let input_schema = json!({
        "type": {"type": "string", "const": "http"},
        "method": {"type": "string", "enum": ["GET"]},
        "queryParams": {"type": "object", "properties": {"vista": {"type": "string", "enum": View::NAMES}}},
    });
    bazaar(input, input_schema, &["type", "method"], example)
}

/// `bazaar` for the MCP tool `comprar_estudio`: its input schema and the call that buys this offer.
pub fn bazaar_mcp(slugs: &[&str], slug: &str, view: View, description: &str, example: &Value) -> Value {
    let input = json!({
        "type": "mcp",
        "toolName": contract::mcp::BUY_TOOL,
        "description": description,
        "transport": "streamable-http",
        "inputSchema": contract::mcp::buy_tool_input_schema(slugs),
        "example": {"slug": slug, "vista": view},
    });
    let input_schema = json!({
        "type": {"type": "string", "const": "mcp"},
        "toolName": {"type": "string"},
        "description": {"type": "string"},
        "transport": {"type": "string", "enum": ["streamable-http"]},
        "inputSchema": {"type": "object"},
        "example": {"type": "object"},
    });
    bazaar(input, input_schema, &["type", "toolName", "inputSchema"], example)
}

/// A `bazaar` declaration: `info` (how to call, an example answer) and the JSON Schema of `info`.
fn bazaar(input: Value, input_properties: Value, required: &[&str], example: &Value) -> Value {
    json!({
        "info": {"input": input, "output": {"type": "json", "example": example}},
        "schema": {
            "$schema": SCHEMA_DIALECT,
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "properties": input_properties,
                    "required": required,
                    "additionalProperties": false,
                },
                "output": {
                    "type": "object",
                    "properties": {"type": {"type": "string"}, "example": shape_of(example)},
                    "required": ["type"],
                },
            },
            "required": ["input"],
        },
    })
}

/// The extensions of one 402: `bazaar` and `payment-identifier`, keyed by name.
pub fn declared(bazaar: Value) -> Value {
    let mut extensions = Map::new();
    extensions.insert(BAZAAR.to_owned(), bazaar);
    extensions.insert(PAYMENT_IDENTIFIER.to_owned(), payment_identifier());
    Value::Object(extensions)
}

/// A JSON Schema that an example satisfies: its types, with every object key required.
fn shape_of(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let properties: Map<String, Value> = map.iter().map(|(k, v)| (k.clone(), shape_of(v))).collect();
            json!({"type": "object", "properties": properties, "required": map.keys().collect::<Vec<_>>()})
        }
        Value::Array(items) => match items.first() {
            Some(first) => json!({"type": "array", "items": shape_of(first)}),
            None => json!({"type": "array"}),
        },
        Value::String(_) => json!({"type": "string"}),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Null => json!({"type": "null"}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_bazaar_names_the_view_and_describes_the_answer() {
        let example = json!({"estudio": "banca-2026", "acceso": {"vence_unix": 1}, "extra": [1.5]});
        let bazaar = bazaar_http(View::Summary, &example);
        assert_eq!(
            bazaar["info"]["input"],
            json!({"type": "http", "queryParams": {"vista": "resumen"}, "method": "GET"})
        );
        let shape = &bazaar["schema"]["properties"]["output"]["properties"]["example"];
        assert_eq!(shape["properties"]["acceso"]["properties"]["vence_unix"]["type"], "integer");
        assert_eq!(shape["properties"]["extra"]["items"]["type"], "number");
        assert_eq!(shape["required"], json!(["acceso", "estudio", "extra"]));
    }

    #[test]
    fn the_mcp_bazaar_carries_the_tools_own_schema() {
        let bazaar = bazaar_mcp(&["a", "b"], "b", View::Full, "Compra b", &json!({}));
        let input = &bazaar["info"]["input"];
        assert_eq!(input["toolName"], "comprar_estudio");
        assert_eq!(input["inputSchema"], contract::mcp::buy_tool_input_schema(&["a", "b"]));
        assert_eq!(input["example"], json!({"slug": "b", "vista": "completo"}));
        let declared = declared(bazaar);
        assert_eq!(declared["payment-identifier"]["info"]["required"], false);
    }
}
