//! Where an answer was seen (`superficie` of each line of `respuestas.jsonl`): a provider's API,
//! or a consumer surface people use, captured through a SERP API. This is the one list of the
//! surface ids the collector writes; `docs/src/publicar/recoleccion.md` («Superficies») shows the same
//! table for publishers, and the generator validates `superficie` against it.

/// One surface the collector knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surface {
    /// The id written in `superficie`.
    pub id: &'static str,
    /// What it is (Spanish, as the docs and messages say it).
    pub what: &'static str,
    /// What it is not.
    pub what_not: &'static str,
}

/// A provider's API asked with web search on: OpenAI, Anthropic, Gemini, Perplexity's Sonar API
/// and any OpenAI-compatible server. A line without `superficie` means this.
pub const API: &str = "api";
/// Google's AI Overview over an ordinary search's results, captured by SerpApi.
pub const GOOGLE_AI_OVERVIEW: &str = "google_ai_overview";
/// Google's AI Mode (the «Modo IA» tab), captured by SerpApi.
pub const GOOGLE_AI_MODE: &str = "google_ai_mode";

/// Every surface id the collector writes, in the order the docs list them.
pub const SURFACES: [Surface; 3] = [
    Surface {
        id: API,
        what: "La respuesta de la API de un proveedor (OpenAI Responses, Anthropic Messages, Gemini API, Perplexity Sonar API o un servidor compatible) con búsqueda web, pedida por `recolector`. Una línea sin `superficie` es `api`.",
        what_not: "No es lo que ve una persona en la app del asistente (ChatGPT, Claude.ai, la app de Gemini, Perplexity.ai): la app usa otro modelo por defecto, otras instrucciones y otra búsqueda.",
    },
    Surface {
        id: GOOGLE_AI_OVERVIEW,
        what: "La visión general creada por IA (AI Overview) que Google muestra sobre los resultados de una búsqueda común, capturada por SerpApi (`engine=google`, bloque `ai_overview`; cuando Google la difiere, el pedido aparte `engine=google_ai_overview` con su `page_token`).",
        what_not: "No es una API de Google ni un modelo que se elige: Google decide si la muestra (muchas búsquedas no la tienen) y con qué modelo. No tiene versión de modelo: `version` dice la búsqueda (motor, id, fecha, ubicación, idioma).",
    },
    Surface {
        id: GOOGLE_AI_MODE,
        what: "La respuesta del Modo IA de Google (la pestaña «Modo IA» del buscador), capturada por SerpApi (`engine=google_ai_mode`).",
        what_not: "No es Gemini por API ni una AI Overview: es otra superficie, con su propia búsqueda. Tampoco tiene versión de modelo: `version` dice la búsqueda (motor, id, fecha, ubicación, idioma).",
    },
];

/// Whether `id` is a surface the collector knows.
pub fn known(id: &str) -> bool {
    SURFACES.iter().any(|s| s.id == id)
}

/// The ids, for messages ("api, google_ai_overview, google_ai_mode").
pub fn ids() -> String {
    SURFACES.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

/// The table of `docs/src/publicar/recoleccion.md`, as Markdown (the docs test compares them).
pub fn markdown_table() -> String {
    let mut out = String::from("| `superficie` | qué es | qué no es |\n|---|---|---|\n");
    for surface in SURFACES {
        out.push_str(&format!("| `{}` | {} | {} |\n", surface.id, surface.what, surface.what_not));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_publishers_guide_shows_this_very_table() {
        let guide = include_str!("../../docs/src/publicar/recoleccion.md");
        assert!(
            guide.contains(&markdown_table()),
            "docs/src/publicar/recoleccion.md must hold the table of collector/src/surface.rs:\n{}",
            markdown_table()
        );
        assert!(known("api") && known("google_ai_mode") && !known("chatgpt"));
    }
}
