//! The six models and their answering styles.
//!
//! The same model ids, names and tiers in every study, so the studies are comparable; the
//! styles (how many brands, how many sources, which layouts, how sharp the preference for
//! leaders) are what makes each model's answers read and measure differently.

use generator::model::Tier;

/// How a model tends to answer. Values are probabilities unless noted.
pub(crate) struct Estilo {
    /// Chance of a second argument per brand (longer answers).
    pub verbosidad: f64,
    /// Brands per list answer (min, max).
    pub marcas: (usize, usize),
    /// Media sources per answer (min, max).
    pub fuentes: (usize, usize),
    /// Multiplier on the study's brandless-answer rate.
    pub sin_marca: f64,
    /// Chance of citing the site of a named brand.
    pub cita_marca: f64,
    /// Chance of citing a brand site whose brand is not named.
    pub fantasma: f64,
    /// Multiplier on the chance of a caveat per brand.
    pub contra: f64,
    /// Exponent on brand weights: above 1 concentrates on the leaders.
    pub nitidez: f64,
    /// Chance of using the display name rather than an alias.
    pub nombre_completo: f64,
    /// Chance of an opening line in the provider's manner.
    pub apertura: f64,
    /// Chance of a closing block of practical advice.
    pub extension: f64,
    /// Weights of the fifteen list layouts (see [`crate::engine::redaccion::LISTAS`]).
    pub estructuras: [f64; 15],
}

/// One model: its identity in `estudio.toml` and its style.
pub(crate) struct Modelo {
    pub id: &'static str,
    pub nombre: &'static str,
    pub proveedor: &'static str,
    pub nivel: Tier,
    /// Versions: the second one is used after a mid-run update.
    pub versiones: [&'static str; 2],
    pub estilo: Estilo,
}

//                       Num  Gui  Pro  Fav  Per  Chk  Tab  Enc  Cor  Acl  Faq  Rnk  PyC  Res  For
const ESTR_GPT_MINI: [f64; 15] = [5.0, 2.0, 1.0, 2.0, 1.5, 1.0, 1.0, 1.0, 2.0, 1.0, 0.5, 0.5, 0.5, 1.5, 0.5];
const ESTR_GPT: [f64; 15] = [4.0, 1.5, 1.5, 2.0, 2.5, 1.5, 2.0, 1.5, 0.5, 1.5, 1.0, 1.0, 1.5, 2.0, 0.5];
const ESTR_FLASH: [f64; 15] = [2.0, 3.0, 0.5, 1.0, 1.0, 1.0, 1.0, 3.0, 2.0, 0.5, 1.0, 1.5, 0.5, 0.5, 0.5];
const ESTR_PRO: [f64; 15] = [2.0, 2.0, 1.0, 1.0, 1.5, 1.5, 3.0, 3.5, 0.5, 1.0, 1.5, 1.0, 1.5, 1.0, 1.0];
const ESTR_HAIKU: [f64; 15] = [2.0, 1.0, 3.0, 1.5, 1.0, 1.0, 0.5, 0.5, 3.0, 1.5, 0.5, 0.2, 1.0, 0.5, 1.5];
const ESTR_SONNET: [f64; 15] = [1.5, 1.0, 4.0, 1.5, 2.5, 2.0, 1.0, 1.0, 0.5, 2.5, 1.0, 0.2, 2.0, 1.0, 1.5];

/// The six models, in the order every `estudio.toml` declares them.
pub(crate) fn modelos() -> Vec<Modelo> {
    vec![
        Modelo {
            id: "gpt-5-mini",
            nombre: "GPT-5 mini",
            proveedor: "OpenAI",
            nivel: Tier::Standard,
            versiones: ["gpt-5-mini-2025-08-07", "gpt-5-mini-2025-08-07"],
            estilo: Estilo {
                verbosidad: 0.45,
                marcas: (3, 5),
                fuentes: (0, 2),
                sin_marca: 0.9,
                cita_marca: 0.12,
                fantasma: 0.04,
                contra: 0.9,
                nitidez: 1.25,
                nombre_completo: 0.55,
                apertura: 0.35,
                extension: 0.2,
                estructuras: ESTR_GPT_MINI,
            },
        },
        Modelo {
            id: "gpt-5",
            nombre: "GPT-5",
            proveedor: "OpenAI",
            nivel: Tier::Advanced,
            versiones: ["gpt-5-2025-08-07", "gpt-5-2025-08-07"],
            estilo: Estilo {
                verbosidad: 0.85,
                marcas: (3, 6),
                fuentes: (1, 4),
                sin_marca: 0.8,
                cita_marca: 0.2,
                fantasma: 0.06,
                contra: 1.1,
                nitidez: 0.95,
                nombre_completo: 0.6,
                apertura: 0.4,
                extension: 0.8,
                estructuras: ESTR_GPT,
            },
        },
        Modelo {
            id: "gemini-2.5-flash",
            nombre: "Gemini 2.5 Flash",
            proveedor: "Google",
            nivel: Tier::Standard,
            versiones: ["gemini-2.5-flash-001", "gemini-2.5-flash-002"],
            estilo: Estilo {
                verbosidad: 0.45,
                marcas: (3, 5),
                fuentes: (1, 4),
                sin_marca: 0.75,
                cita_marca: 0.3,
                fantasma: 0.1,
                contra: 0.8,
                nitidez: 1.4,
                nombre_completo: 0.7,
                apertura: 0.6,
                extension: 0.25,
                estructuras: ESTR_FLASH,
            },
        },
        Modelo {
            id: "gemini-2.5-pro",
            nombre: "Gemini 2.5 Pro",
            proveedor: "Google",
            nivel: Tier::Advanced,
            versiones: ["gemini-2.5-pro-001", "gemini-2.5-pro-002"],
            estilo: Estilo {
                verbosidad: 0.8,
                marcas: (4, 6),
                fuentes: (2, 6),
                sin_marca: 0.7,
                cita_marca: 0.35,
                fantasma: 0.12,
                contra: 1.0,
                nitidez: 1.05,
                nombre_completo: 0.65,
                apertura: 0.55,
                extension: 0.8,
                estructuras: ESTR_PRO,
            },
        },
        Modelo {
            id: "claude-haiku-4-5",
            nombre: "Claude Haiku 4.5",
            proveedor: "Anthropic",
            nivel: Tier::Standard,
            versiones: ["claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001"],
            estilo: Estilo {
                verbosidad: 0.2,
                marcas: (2, 4),
                fuentes: (0, 2),
                sin_marca: 1.35,
                cita_marca: 0.08,
                fantasma: 0.03,
                contra: 1.2,
                nitidez: 1.1,
                nombre_completo: 0.4,
                apertura: 0.45,
                extension: 0.15,
                estructuras: ESTR_HAIKU,
            },
        },
        Modelo {
            id: "claude-sonnet-4-5",
            nombre: "Claude Sonnet 4.5",
            proveedor: "Anthropic",
            nivel: Tier::Advanced,
            versiones: ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"],
            estilo: Estilo {
                verbosidad: 0.8,
                marcas: (3, 5),
                fuentes: (1, 3),
                sin_marca: 1.25,
                cita_marca: 0.15,
                fantasma: 0.05,
                contra: 1.4,
                nitidez: 0.85,
                nombre_completo: 0.5,
                apertura: 0.5,
                extension: 0.75,
                estructuras: ESTR_SONNET,
            },
        },
    ]
}
