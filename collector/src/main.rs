//! `recolector`: the publisher's command line for collecting a study's answers.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use collector::client::{Stop, StopReason};
use collector::config::CollectionFile;
use collector::journal::COLLECTION;
use collector::run::{self, Options};
use collector::simulator::{Behaviour, Simulator};

#[derive(Parser)]
#[command(
    name = "recolector",
    version,
    about = "Pregunta a los asistentes de IA (con búsqueda web) cada pregunta de un estudio y escribe respuestas.jsonl"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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

fn main() -> ExitCode {
    let cli: Cli = cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: no se pudo iniciar: {e}");
            return ExitCode::from(1);
        }
    };
    match cli.command {
        Command::Collect { study, file, plan, progress, yes, batches } => {
            runtime.block_on(collect(&study, file.as_deref(), plan, progress, yes, batches))
        }
        Command::Tone { study, file, plan } => runtime.block_on(tone(&study, file.as_deref(), plan)),
        Command::ImportTone { study, labels } => match collector::tone::import(&study, &labels) {
            Ok(n) => {
                println!("{n} respuestas con etiquetas de personas importadas.");
                ExitCode::SUCCESS
            }
            Err(problems) => fail(&problems),
        },
        Command::Simulator { listen, brands } => runtime.block_on(simulate(&listen, brands.as_deref())),
    }
}

fn fail(problems: &[String]) -> ExitCode {
    for problem in problems {
        eprintln!("error: {problem}");
    }
    ExitCode::from(1)
}

async fn collect(
    study: &Path,
    file: Option<&Path>,
    only_plan: bool,
    progress: bool,
    yes: bool,
    batches: bool,
) -> ExitCode {
    let path = file.map_or_else(|| study.join(COLLECTION), Path::to_path_buf);
    let settings = match CollectionFile::read(&path) {
        Ok(settings) => settings,
        Err(problems) => return fail(&problems),
    };
    let plan = match run::plan(study, &settings) {
        Ok(plan) => plan,
        Err(problem) => return fail(&[problem]),
    };
    if only_plan {
        print!("{}", run::render_plan(&plan, &settings));
        return ExitCode::SUCCESS;
    }
    let keys = match run::keys_from_env(&settings, &plan, batches) {
        Ok(keys) => keys,
        Err(problems) => return fail(&problems),
    };
    // The cost, before anything is asked; then the question, unless --si.
    println!("{}", run::cost_line(&plan, batches));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    if plan.calls() > 0 && !yes {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "error: recolectar hace llamadas pagas y no hay una terminal donde preguntar si seguir: agregue --si (o --yes) para seguir sin preguntar, o mire el plan con --plan."
            );
            return ExitCode::from(2);
        }
        if !confirmed() {
            println!("No se hizo ninguna llamada.");
            return ExitCode::from(1);
        }
    }
    let stop = Stop::default();
    let watcher = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nDeteniendo: se terminan las llamadas en curso y se escriben (Ctrl-C otra vez corta ya).");
            watcher.trigger(StopReason::Interrupted);
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("Cortado. Lo ya escrito queda; vuelva a correr para seguir.");
                std::process::exit(130);
            }
        }
    });
    let budget = settings.budget_usd;
    let options =
        Options { study: study.to_path_buf(), progress: progress || run::stderr_is_terminal(), keys, batches };
    match run::collect(settings, plan, options, stop).await {
        Ok(summary) => {
            print!("{}", summary.render(budget));
            if !summary.complete() {
                println!("{}", resume_advice(&summary.stop, &path));
            }
            match summary.stop {
                Some(StopReason::Interrupted) => ExitCode::from(130),
                _ if summary.complete() => ExitCode::SUCCESS,
                _ => ExitCode::from(3),
            }
        }
        Err(problem) => fail(&[problem]),
    }
}

/// Asks on the terminal whether to go on; only «s», «si», «sí», «y» or «yes» say yes.
fn confirmed() -> bool {
    eprint!("¿Hacer estas llamadas? Escriba «s» y Enter para seguir; cualquier otra cosa no hace ninguna [s/N]: ");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_lowercase().as_str(), "s" | "si" | "sí" | "y" | "yes")
}

/// What to do after a run that left something: the exact command to run again.
fn resume_advice(stop: &Option<StopReason>, file: &Path) -> String {
    let command = std::env::args().map(|a| shell_quoted(&a)).collect::<Vec<_>>().join(" ");
    match stop {
        Some(StopReason::Budget) => {
            format!("Para seguir: suba presupuesto_usd en {} y vuelva a correr:\n  {command}", file.display())
        }
        Some(StopReason::Fatal(_)) => {
            format!("Para seguir, corrija lo que dice arriba y vuelva a correr:\n  {command}")
        }
        _ => format!(
            "Para seguir donde quedó (pregunta solo lo que falta, y lo gastado cuenta para el mismo presupuesto):\n  {command}"
        ),
    }
}

/// An argument as a POSIX shell reads it back.
fn shell_quoted(argument: &str) -> String {
    let plain = !argument.is_empty() && argument.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,:=@+%".contains(c));
    if plain { argument.to_owned() } else { format!("'{}'", argument.replace('\'', "'\\''")) }
}

async fn tone(study: &Path, file: Option<&Path>, only_plan: bool) -> ExitCode {
    let path = file.map_or_else(|| study.join(COLLECTION), Path::to_path_buf);
    let settings = match CollectionFile::read(&path) {
        Ok(settings) => settings,
        Err(problems) => return fail(&problems),
    };
    if only_plan {
        return match collector::tone::plan(study, &settings) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(problem) => fail(&[problem]),
        };
    }
    let Some(judge) = settings.judge.as_ref() else { return fail(&["recoleccion.toml no tiene [juez]".to_owned()]) };
    let used = std::collections::BTreeSet::from([judge.provider.as_str()]);
    let key = match run::keys_for(&settings, &used) {
        Ok(mut keys) => keys.remove(&judge.provider).flatten(),
        Err(problems) => return fail(&problems),
    };
    let stop = Stop::default();
    let watcher = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            watcher.trigger(StopReason::Interrupted);
        }
    });
    match collector::tone::label(study, &settings, key, &stop).await {
        Ok(summary) => {
            println!(
                "Tono: {} respuestas; {} por etiquetar; {} etiquetadas; {} sin etiqueta legible o con falla; {:.4} USD.",
                summary.answers, summary.to_label, summary.labelled, summary.failed, summary.cost
            );
            if summary.labelled > 0 {
                println!(
                    "Para la metodología: «El tono de cada marca nombrada en cada respuesta (positivo, neutro o negativo) lo etiquetó el modelo {} (versión {}), sin búsqueda web.»",
                    judge.model,
                    summary.versions.iter().cloned().collect::<Vec<_>>().join(", ")
                );
            }
            if summary.labelled + summary.failed < summary.to_label || summary.failed > 0 {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(problem) => fail(&[problem]),
    }
}

async fn simulate(listen: &str, brands: Option<&Path>) -> ExitCode {
    let mut behaviour = Behaviour::default();
    if let Some(path) = brands {
        match collector::journal::brands(path) {
            Ok(list) => behaviour.brands = list,
            Err(problem) => return fail(&[problem]),
        }
    }
    match Simulator::start(listen, behaviour, false).await {
        Ok(simulator) => {
            println!("Simulador escuchando en {} (Ctrl-C para terminar)", simulator.url());
            let _ = tokio::signal::ctrl_c().await;
            ExitCode::SUCCESS
        }
        Err(e) => fail(&[format!("no se pudo escuchar en {listen}: {e}")]),
    }
}
