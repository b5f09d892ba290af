//! The `recolector` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod bench;

/// The environment variables `recolector` reads (a provider's key variable can also be named
/// in recoleccion.toml).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "Clave de OpenAI (proveedor tipo openai), salvo otra variable en recoleccion.toml."),
    ("ANTHROPIC_API_KEY", "Clave de Anthropic (tipo anthropic)."),
    ("GEMINI_API_KEY", "Clave de Gemini (tipo google)."),
    ("PERPLEXITY_API_KEY", "Clave de Perplexity (tipo perplexity)."),
    ("SERPAPI_API_KEY", "Clave de SerpApi (tipo serpapi, las superficies de Google)."),
    (
        "RECOLECTOR_URL_<NOMBRE>",
        "URL base del proveedor <NOMBRE> de recoleccion.toml (en mayúsculas), antes que url_base: p. ej. el simulador.",
    ),
];

/// What `recolector`'s exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Terminó: no falta ninguna llamada (o etiqueta)."),
    ("1", "Un error, o no se confirmó el gasto."),
    (
        "2",
        "La línea de comando está mal escrita, o recolectar necesita --si porque no hay una terminal donde preguntar.",
    ),
    ("3", "Quedaron llamadas o etiquetas por hacer (presupuesto, fallas): vuelva a correr para seguir."),
    ("130", "Cortado con Ctrl-C: lo ya escrito queda."),
];

#[derive(Parser)]
#[command(
    name = "recolector",
    version,
    about = "Pregunta a los asistentes de IA (con búsqueda web) cada pregunta de un estudio y escribe respuestas.jsonl",
    after_help = cli::epilogue(ENVIRONMENT, EXIT_STATUS)
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Hace las llamadas que faltan (pregunta × modelo × repetición) y agrega cada respuesta a
    /// respuestas.jsonl apenas llega. Se puede cortar y volver a correr: sigue donde quedó.
    #[command(name = "recolectar")]
    Collect {
        /// Carpeta del estudio (content/estudios/<slug>), con preguntas.jsonl y recoleccion.toml.
        #[arg(value_name = "ESTUDIO")]
        study: PathBuf,
        /// Archivo de recolección (por defecto, recoleccion.toml dentro del estudio).
        #[arg(long = "archivo", value_name = "ARCHIVO")]
        file: Option<PathBuf>,
        /// Solo muestra el plan (llamadas, tokens y costo esperados) sin preguntar nada.
        #[arg(long)]
        plan: bool,
        /// Dibuja la barra de progreso aunque stderr no sea una terminal.
        #[arg(long = "progreso")]
        progress: bool,
        /// No pregunta antes de gastar: para scripts. Sin esta opción, recolectar muestra las
        /// llamadas y el costo esperado y pregunta en la terminal; sin terminal, no sigue.
        #[arg(long = "si", visible_alias = "yes")]
        yes: bool,
        /// Manda las llamadas como lotes donde el proveedor los tiene (OpenAI, Anthropic,
        /// Gemini: la mitad del precio de los tokens; tardan de minutos a 24 horas), espera y
        /// escribe cada respuesta; recoge también los lotes que mandó una corrida anterior.
        #[arg(long = "lote")]
        batches: bool,
    },
    /// Etiqueta el tono (pos, neu, neg) de cada marca nombrada en cada respuesta con el juez de
    /// [juez] en recoleccion.toml, y anota el modelo y la versión del juez.
    #[command(name = "tono")]
    Tone {
        /// Carpeta del estudio, con respuestas.jsonl, marcas.toml y recoleccion.toml.
        #[arg(value_name = "ESTUDIO")]
        study: PathBuf,
        /// Archivo de recolección (por defecto, recoleccion.toml dentro del estudio).
        #[arg(long = "archivo", value_name = "ARCHIVO")]
        file: Option<PathBuf>,
        /// Solo muestra cuántas respuestas faltan etiquetar y el costo esperado.
        #[arg(long)]
        plan: bool,
    },
    /// Importa etiquetas de tono hechas por personas (JSON Lines: {"id": "...", "tono": {"marca": "pos"}});
    /// reemplazan las del juez en esas respuestas.
    #[command(name = "importar-tono")]
    ImportTone {
        /// Carpeta del estudio.
        #[arg(value_name = "ESTUDIO")]
        study: PathBuf,
        /// Archivo de etiquetas.
        #[arg(value_name = "ETIQUETAS")]
        labels: PathBuf,
    },
    /// Sirve en local un simulador de las APIs (OpenAI, Anthropic, Gemini, Perplexity y
    /// compatibles, y SerpApi para las superficies de Google) para ensayar un estudio sin claves ni
    /// costo: apunte url_base (o RECOLECTOR_URL_<NOMBRE>) a él.
    #[command(name = "simulador")]
    Simulator {
        /// Dirección donde escuchar.
        #[arg(long = "escuchar", value_name = "IP:PUERTO", default_value = "127.0.0.1:8089")]
        listen: String,
        /// Marcas que nombran las respuestas simuladas: marcas.toml de un estudio.
        #[arg(long = "marcas", value_name = "MARCAS_TOML")]
        brands: Option<PathBuf>,
    },
}
