//! The `generator` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// What `generator`'s exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Terminó bien (check sin problemas; build escribió dist/ entero)."),
    ("1", "Problemas en content/ (archivo y campo de cada uno) o un error: dist/ queda como estaba."),
    ("2", "La línea de comando está mal escrita."),
];

#[derive(Parser)]
#[command(
    name = "generator",
    version,
    about = "Construye dist/ a partir de content/ (estudios de visibilidad en IA)",
    after_help = cli::epilogue(&[], EXIT_STATUS)
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Valida content/ y calcula todas las tablas sin escribir nada.
    Check {
        /// Carpeta de contenido.
        #[arg(long = "contenido", alias = "content", value_name = "CARPETA", default_value = "content")]
        content: PathBuf,
    },
    /// Construye dist/: documentos públicos, paquetes, ZIP, manifiesto.
    Build {
        /// Carpeta de contenido.
        #[arg(long = "contenido", alias = "content", value_name = "CARPETA", default_value = "content")]
        content: PathBuf,
        /// Carpeta de salida (se reemplaza entera solo si todo salió bien).
        #[arg(long = "salida", alias = "out", value_name = "CARPETA", default_value = "dist")]
        out: PathBuf,
        /// No imprimir las etapas.
        #[arg(long = "silencioso", alias = "quiet")]
        quiet: bool,
        /// No conservar los archivos pagos de la construcción que ya está en --salida. Sin esta
        /// opción, un paquete o ZIP que cambió recibe un nombre nuevo y el anterior sigue
        /// abriendo con los enlaces y recibos ya emitidos. Úsela cuando pasó la vigencia de los
        /// enlaces desde el último cambio: los enlaces a los archivos descartados dejan de abrir.
        #[arg(long = "descartar-anteriores")]
        discard_previous: bool,
    },
    /// Genera los informes PDF (es y en) en content/estudios/<slug>/informes/. Necesita un
    /// binario compilado con `--features pdf`.
    #[command(name = "informes")]
    Reports {
        /// Carpeta de contenido.
        #[arg(long = "contenido", alias = "content", value_name = "CARPETA", default_value = "content")]
        content: PathBuf,
        /// Estudio a informar (se puede repetir). Sin esta opción, se regeneran los informes de
        /// los estudios que ya los tienen.
        #[arg(long = "estudio", value_name = "SLUG")]
        studies: Vec<String>,
        /// Plantilla typst propia en lugar de la incluida (templates/informe.typ); recibe el
        /// mismo modelo del informe en /datos.json.
        #[arg(long = "plantilla", value_name = "ARCHIVO")]
        template: Option<PathBuf>,
    },
}
