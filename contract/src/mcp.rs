//! The paid MCP tool, as both halves describe it: the gate lists it in `tools/list` and the
//! generator declares it in the x402 `bazaar` extension of each offer's MCP 402, from the
//! same input schema.

use serde_json::{Value, json};

use crate::view::View;

/// The tool that buys a study.
pub const BUY_TOOL: &str = "comprar_estudio";
/// The view sold over MCP when none is asked: the summary keeps an agent's context small, and
/// the links reach the full package anyway.
pub const DEFAULT_VIEW: View = View::Summary;

/// The resource URL an MCP 402 names: the tool and what it sells.
pub fn resource_url(slug: &str, view: View) -> String {
    format!("mcp://tool/{BUY_TOOL}?slug={slug}&vista={view}")
}

/// `comprar_estudio`'s input schema (JSON Schema 2020-12): a study of `slugs` and a view.
pub fn buy_tool_input_schema(slugs: &[&str]) -> Value {
    let other = View::ALL.into_iter().find(|v| *v != DEFAULT_VIEW).unwrap_or(View::ALL[0]);
    json!({
        "type": "object",
        "properties": {
            "slug": {"type": "string", "enum": slugs, "description": "Estudio a comprar (ver listar_estudios). / Study to buy."},
            "vista": {"type": "string", "enum": [DEFAULT_VIEW, other], "default": DEFAULT_VIEW,
                      "description": "resumen (por defecto: ficha, diseño, hallazgos, métricas e índice de tablas) o completo (además todas las tablas y respuestas, puede pesar varios MB); mismo precio y mismos enlaces. / resumen (default) or completo (full package inline); same price and links."},
        },
        "required": ["slug"],
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_lists_the_studies_and_both_views_default_first() {
        let schema = buy_tool_input_schema(&["a-2026", "b-2026"]);
        assert_eq!(schema["properties"]["slug"]["enum"], json!(["a-2026", "b-2026"]));
        assert_eq!(schema["properties"]["vista"]["enum"], json!(["resumen", "completo"]));
        assert_eq!(schema["required"], json!(["slug"]));
        assert_eq!(resource_url("a-2026", View::Full), "mcp://tool/comprar_estudio?slug=a-2026&vista=completo");
    }
}
