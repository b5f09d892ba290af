//! The surfaces an answer can come from, and what each one is and is not.
//!
//! Every answer says where it was seen (`superficie` in `respuestas.jsonl`, `api` when the line
//! does not say): a provider's API called by the collector, or a consumer surface people use
//! (an assistant's app, a search engine's AI answer). The category's first complaint is that
//! API answers differ from what people see, so the methodology of every study states which
//! surfaces its answers come from, and this table says what each known one measures. A
//! surface id the table does not know is accepted when it is well formed (the collector may
//! learn a new one before the generator does); the methodology then says the generator does
//! not describe it.

use crate::model::{API_SURFACE, Study};

/// A known surface: its id, its name and what it is and is not, in Spanish and English.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surface {
    pub id: &'static str,
    pub name: &'static str,
    pub name_en: &'static str,
    pub description: &'static str,
    pub description_en: &'static str,
}

/// The surfaces the generator describes, `api` first: the ones `recolector` writes
/// (`collector/src/surface.rs`, `docs/src/publicar/recoleccion.md`).
pub const KNOWN: [Surface; 3] = [
    Surface {
        id: API_SURFACE,
        name: "API del proveedor",
        name_en: "Provider's API",
        description: "La respuesta de la API de un proveedor (OpenAI, Anthropic, Google, Perplexity Sonar o un servidor compatible) con la búsqueda web activada, a la pregunta sola: sin cuenta, sin historial y sin las instrucciones propias de la app. Es lo que recibe un desarrollador que integra el modelo, medido igual para todos los modelos; no es lo que ve una persona en la app del asistente (ChatGPT, Claude.ai, la app de Gemini, Perplexity.ai), que usa otro modelo por defecto, otras instrucciones y otra búsqueda.",
        description_en: "The answer of a provider's API (OpenAI, Anthropic, Google, Perplexity Sonar or a compatible server) with web search on, to the question alone: no account, no history and none of the app's own instructions. It is what a developer who integrates the model receives, measured the same way for every model; it is not what a person sees in the assistant's app (ChatGPT, Claude.ai, the Gemini app, Perplexity.ai), which uses another default model, other instructions and another search.",
    },
    Surface {
        id: "google_ai_overview",
        name: "Google: visión general creada por IA (AI Overview)",
        name_en: "Google AI Overview",
        description: "La visión general creada por IA que Google muestra sobre los resultados de una búsqueda común, con sus enlaces, capturada por una API de resultados de búsqueda (SerpApi) desde el país, la ciudad y el idioma del estudio, sin sesión: lo que ve una persona que hace esa búsqueda en Google. Como fuentes consultadas se registran todos los enlaces que muestra, y como citadas los que su texto señala. No es una API de Google ni un modelo que se elige: Google decide en cada búsqueda si la muestra (muchas no la tienen) y con qué modelo, no hay conversación ni historial, y lo que ve cada persona puede cambiar con su sesión y su dispositivo; su versión dice la búsqueda (motor, id, fecha, ubicación, idioma), no un modelo.",
        description_en: "The AI-generated overview Google shows above an ordinary search's results, with its links, captured by a search-results API (SerpApi) from the study's country, city and language, signed out: what a person who runs that search on Google sees. Every link it shows is recorded as consulted, and those its text points to as cited. It is not a Google API nor a model one chooses: Google decides on every search whether to show it (many searches have none) and with which model, there is no conversation or history, and what each person sees can change with their session and device; its version names the search (engine, id, date, location, language), not a model.",
    },
    Surface {
        id: "google_ai_mode",
        name: "Google: Modo IA (AI Mode)",
        name_en: "Google AI Mode",
        description: "La respuesta del Modo IA de Google (la pestaña «Modo IA» del buscador) a la pregunta, con sus enlaces, capturada por una API de resultados de búsqueda (SerpApi) desde el país, la ciudad y el idioma del estudio, sin sesión. No es Gemini por API ni una visión general de IA: es otra superficie, con su propia búsqueda, sin repreguntas ni historial; su versión dice la búsqueda, no un modelo.",
        description_en: "The answer of Google's AI Mode (the search engine's «AI Mode» tab) to the question, with its links, captured by a search-results API (SerpApi) from the study's country, city and language, signed out. It is not Gemini through its API nor an AI Overview: it is another surface, with its own search, without follow-ups or history; its version names the search, not a model.",
    },
];

/// The known surface with this id.
pub fn known(id: &str) -> Option<&'static Surface> {
    KNOWN.iter().find(|s| s.id == id)
}

/// True for a surface id the generator accepts: a known one, or a lowercase ASCII word
/// (letters, digits, `_` and `-`, starting with a letter, up to 40 characters).
pub fn is_well_formed(id: &str) -> bool {
    id.len() <= 40
        && id.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// The ids of the known surfaces, for messages (`api, google_ai_overview, …`).
pub fn known_ids() -> String {
    KNOWN.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

/// The generated methodology section on surfaces and consulted sources, in both languages:
/// which surfaces the study's answers come from (with what each is and is not) and how many
/// answers record the sources the provider consulted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfacesText {
    pub title: &'static str,
    pub title_en: &'static str,
    /// One paragraph per surface, then one on consulted sources.
    pub paragraphs: Vec<String>,
    pub paragraphs_en: Vec<String>,
}

/// The answers of a study per surface, in first-appearance order of the surfaces (`api`
/// first when present), each with how many of them record their consulted sources.
pub fn counts(study: &Study) -> Vec<(String, usize, usize)> {
    let mut counts: Vec<(String, usize, usize)> = Vec::new();
    for a in &study.answers {
        let recorded = usize::from(a.consulted.is_some());
        match counts.iter_mut().find(|(id, _, _)| id == a.surface()) {
            Some(c) => {
                c.1 += 1;
                c.2 += recorded;
            }
            None => counts.push((a.surface().to_owned(), 1, recorded)),
        }
    }
    counts.sort_by_key(|(id, _, _)| id != API_SURFACE);
    counts
}

/// See [`SurfacesText`].
pub fn methodology(study: &Study) -> SurfacesText {
    let counts = counts(study);
    let total = study.answers.len();
    let mut paragraphs = Vec::new();
    let mut paragraphs_en = Vec::new();
    let n_surfaces = counts.len();
    paragraphs.push(match n_surfaces {
        1 => format!("Las {total} respuestas del estudio vienen de una sola superficie."),
        n => format!("Las {total} respuestas del estudio vienen de {n} superficies, que no miden lo mismo: compárelas con cuidado."),
    });
    paragraphs_en.push(match n_surfaces {
        1 => format!("The study's {total} answers come from a single surface."),
        n => format!("The study's {total} answers come from {n} surfaces, which do not measure the same thing: compare them with care."),
    });
    for (id, n, _) in &counts {
        match known(id) {
            Some(s) => {
                paragraphs.push(format!("{} (`{id}`, {n} respuestas): {}", s.name, s.description));
                paragraphs_en.push(format!("{} (`{id}`, {n} answers): {}", s.name_en, s.description_en));
            }
            None => {
                paragraphs.push(format!(
                    "`{id}` ({n} respuestas): una superficie que el generador no describe; qué es y qué no es lo dice la metodología del estudio."
                ));
                paragraphs_en.push(format!(
                    "`{id}` ({n} answers): a surface the generator does not describe; the study's methodology says what it is and is not."
                ));
            }
        }
    }
    let recorded: usize = counts.iter().map(|(_, _, r)| r).sum();
    let missing: Vec<String> =
        counts.iter().filter(|(_, n, r)| r < n).map(|(id, n, r)| format!("{id}: {} de {n}", n - r)).collect();
    let missing_en: Vec<String> =
        counts.iter().filter(|(_, n, r)| r < n).map(|(id, n, r)| format!("{id}: {} of {n}", n - r)).collect();
    let (es, en) = if recorded == 0 {
        (
            "Ninguna respuesta registra las fuentes que consultó el proveedor, solo las que citó: «consultada y no citada» no se puede calcular y sale vacía (no registrada, que no es 0).".to_owned(),
            "No answer records the sources the provider consulted, only those it cited: «consultada y no citada» (consulted, not cited) cannot be computed and is empty (not recorded, which is not 0).".to_owned(),
        )
    } else if recorded == total {
        (
            "Todas las respuestas registran, además de las fuentes que citan, todas las que el proveedor dice haber consultado: de ahí sale «consultada y no citada», la marca que el asistente leyó y no mostró.".to_owned(),
            "Every answer records, besides the sources it cites, every source the provider says it consulted: hence «consultada y no citada» (consulted, not cited), the brand the assistant read and did not show.".to_owned(),
        )
    } else {
        (
            format!(
                "{recorded} de {total} respuestas registran, además de las fuentes que citan, todas las que el proveedor dice haber consultado; «consultada y no citada» se calcula sobre ellas. Las demás no las registran ({}) y quedan fuera de su base: no registrado no es 0.",
                missing.join("; ")
            ),
            format!(
                "{recorded} of {total} answers record, besides the sources they cite, every source the provider says it consulted; «consultada y no citada» (consulted, not cited) is computed over them. The others do not record them ({}) and are left out of its base: not recorded is not 0.",
                missing_en.join("; ")
            ),
        )
    };
    paragraphs.push(es);
    paragraphs_en.push(en);
    SurfacesText {
        title: "Superficies y fuentes consultadas",
        title_en: "Surfaces and consulted sources",
        paragraphs,
        paragraphs_en,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_surfaces_are_well_formed_and_unique() {
        let mut ids: Vec<&str> = KNOWN.iter().map(|s| s.id).collect();
        assert!(ids.iter().all(|id| is_well_formed(id)));
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), KNOWN.len());
        assert_eq!(known("api").map(|s| s.name_en), Some("Provider's API"));
        assert_eq!(known("chatgpt"), None, "a well-formed id the generator does not describe");
        for bad in ["", "API", "Google AI", "1api", "api.x", "ñandú", &"a".repeat(41)] {
            assert!(!is_well_formed(bad), "{bad}");
        }
        assert!(is_well_formed("bing-chat_2"));
    }
}
