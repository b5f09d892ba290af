//! The shapes of an MCP tool result (`CallToolResult`): a success carries the JSON in
//! `structuredContent` and the same text in `content[0]`; an error is a result too, with
//! `isError: true` and a code and Spanish message the model can read and act on.

use serde_json::{Value, json};

/// A tool execution error: shown to the model with `isError: true`.
#[derive(Debug, Clone)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
    pub extra: Value,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError { code, message: message.into(), extra: Value::Null }
    }

    /// Adds fields to the error's JSON (e.g. the valid values).
    pub fn with(mut self, extra: Value) -> ToolError {
        self.extra = extra;
        self
    }

    /// The `CallToolResult` of this error.
    pub fn result(&self) -> Value {
        let mut body = json!({"error": self.code, "mensaje": self.message});
        if let (Some(map), Value::Object(extra)) = (body.as_object_mut(), &self.extra) {
            map.extend(extra.clone());
        }
        json!({"content": [{"type": "text", "text": body.to_string()}], "structuredContent": body, "isError": true})
    }
}

/// A successful `CallToolResult` from JSON text already serialized (sent as is) and its value.
pub fn success(text: String, value: Value) -> Value {
    json!({"content": [{"type": "text", "text": text}], "structuredContent": value, "isError": false})
}

/// A successful `CallToolResult` from a value.
pub fn success_value(value: Value) -> Value {
    success(value.to_string(), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_errors_mirror_their_json_in_the_text() {
        let result = ToolError::new("x", "mensaje").with(json!({"slugs_validos": ["a"]})).result();
        assert_eq!(result["isError"], true);
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        assert_eq!(text["slugs_validos"], json!(["a"]));
    }
}
