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

/// The surfaces the generator describes, `api` first.
pub const KNOWN: [Surface; 6] = [
    Surface {
        id: API_SURFACE,
        name: "API del proveedor",
        name_en: "Provider's API",
        description: "La respuesta que da la API del proveedor (OpenAI, Anthropic, Google, Perplexity) con la búsqueda web activada, a la pregunta sola: sin cuenta, sin historial, sin memoria y sin las instrucciones propias de la app. Es lo que recibe un desarrollador que integra el modelo, medido igual para todos los modelos; no es lo que ve una persona en la app del asistente, que agrega sus propias instrucciones, su ubicación y su historial, y puede usar otro modelo u otra búsqueda.",
        description_en: "The answer the provider's API (OpenAI, Anthropic, Google, Perplexity) gives with web search on, to the question alone: no account, no history, no memory and none of the app's own instructions. It is what a developer who integrates the model receives, measured the same way for every model; it is not what a person sees in the assistant's app, which adds its own instructions, location and history, and may use another model or another search.",
    },
    Surface {
        id: "google_ai_overview",
        name: "Google: resumen creado con IA (AI Overviews)",
        name_en: "Google AI Overviews",
        description: "El resumen creado con IA que Google muestra arriba de los resultados de una búsqueda, con sus enlaces, capturado por una API de resultados de búsqueda (SerpApi, DataForSEO) desde el país y el idioma del estudio, sin sesión. Es lo que ve una persona que hace esa búsqueda en Google; no es una conversación (no hay seguimiento ni historial), Google decide en cada búsqueda si muestra el resumen, y lo que ve cada persona puede cambiar con su sesión, su dispositivo y su ubicación exacta. Google no informa qué páginas consultó: solo se registran los enlaces que muestra.",
        description_en: "The AI-generated summary Google shows above a search's results, with its links, captured by a search-results API (SerpApi, DataForSEO) from the study's country and language, signed out. It is what a person who runs that search on Google sees; it is not a conversation (no follow-up, no history), Google decides on every search whether to show the summary, and what each person sees can change with their session, device and exact location. Google does not say which pages it consulted: only the links it shows are recorded.",
    },
    Surface {
        id: "google_ai_mode",
        name: "Google: Modo IA (AI Mode)",
        name_en: "Google AI Mode",
        description: "La respuesta del Modo IA de Google (la pestaña de conversación del buscador) a la pregunta, con sus enlaces, capturada por una API de resultados de búsqueda desde el país y el idioma del estudio, sin sesión. Es lo que ve una persona que le hace esa pregunta al Modo IA sin haber iniciado sesión; no incluye repreguntas, historial ni personalización, y Google no informa qué páginas consultó: solo se registran los enlaces que muestra.",
        description_en: "The answer of Google's AI Mode (the search engine's conversation tab) to the question, with its links, captured by a search-results API from the study's country and language, signed out. It is what a signed-out person who asks AI Mode that question sees; it includes no follow-ups, history or personalisation, and Google does not say which pages it consulted: only the links it shows are recorded.",
    },
    Surface {
        id: "chatgpt",
        name: "ChatGPT (app, con búsqueda)",
        name_en: "ChatGPT (app, with search)",
        description: "La respuesta que muestra la app de ChatGPT con la búsqueda activada, capturada sin memoria ni historial. Es lo que ve una persona en ChatGPT; no es la API de OpenAI (la app usa sus propias instrucciones y puede elegir otro modelo), y cambia con la cuenta, el plan y la ubicación.",
        description_en: "The answer the ChatGPT app shows with search on, captured without memory or history. It is what a person sees in ChatGPT; it is not OpenAI's API (the app uses its own instructions and may pick another model), and it changes with the account, plan and location.",
    },
    Surface {
        id: "copilot",
        name: "Microsoft Copilot (app)",
        name_en: "Microsoft Copilot (app)",
        description: "La respuesta que muestra Microsoft Copilot (la app o el panel de Bing) a la pregunta, con sus enlaces. Es lo que ve una persona en Copilot; no es la API de ningún modelo, y cambia con la cuenta y la ubicación.",
        description_en: "The answer Microsoft Copilot (the app or Bing's panel) shows for the question, with its links. It is what a person sees in Copilot; it is not any model's API, and it changes with the account and location.",
    },
    Surface {
        id: "perplexity",
        name: "Perplexity (app)",
        name_en: "Perplexity (app)",
        description: "La respuesta que muestra la app o el sitio de Perplexity, con sus fuentes. Es lo que ve una persona en Perplexity; no es la API Sonar (que se registra como `api`), y cambia con la cuenta y el modo de búsqueda elegido.",
        description_en: "The answer the Perplexity app or site shows, with its sources. It is what a person sees in Perplexity; it is not the Sonar API (recorded as `api`), and it changes with the account and the search mode chosen.",
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
        for bad in ["", "API", "Google AI", "1api", "api.x", "ñandú", &"a".repeat(41)] {
            assert!(!is_well_formed(bad), "{bad}");
        }
        assert!(is_well_formed("bing-chat_2"));
    }
}
