//! The operators' language on every command line.
//!
//! The people who run these programs are the Spanish-speaking publisher and their operators, so
//! every binary of the workspace speaks Spanish on its command line: the descriptions of its
//! options (each binary's doc comments), and the words clap adds itself (headings, `[default:
//! …]`, the help and version flags, and its error messages), which clap only writes in English.
//! [`parse`] replaces `Parser::parse` in every `main`: it sets the headings and flags once for a
//! command and all its subcommands, and translates what clap prints (help and errors) through one
//! table of phrases.

use clap::error::ErrorKind;
use clap::{Arg, ArgAction, Command, CommandFactory, FromArgMatches};

/// Parses the process arguments into `T`, with help and errors in Spanish. Help and version go
/// to stdout (exit 0); a usage error goes to stderr (exit 2), as with `Parser::parse`.
pub fn parse<T: CommandFactory + FromArgMatches>() -> T {
    match try_parse_from::<T, _, _>(std::env::args_os()) {
        Ok(value) => value,
        Err(failure) => failure.exit(),
    }
}

/// A parse that did not give settings: help or version to print, or a usage error.
#[derive(Debug)]
pub struct Failure {
    /// What to print, already in Spanish.
    pub text: String,
    /// 0 for help and version, 2 for a usage error.
    pub code: i32,
}

impl Failure {
    /// Prints the text where it belongs and ends the process with its code.
    pub fn exit(&self) -> ! {
        if self.code == 0 {
            print!("{}", self.text);
        } else {
            eprint!("{}", self.text);
        }
        std::process::exit(self.code)
    }
}

/// [`parse`] on given arguments (the first is the program's name), without exiting.
pub fn try_parse_from<T, I, S>(args: I) -> Result<T, Failure>
where
    T: CommandFactory + FromArgMatches,
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let matches = command::<T>().try_get_matches_from(args).map_err(failure)?;
    T::from_arg_matches(&matches).map_err(failure)
}

/// The command of `T` as it is shown: Spanish headings and flags, in it and every subcommand.
pub fn command<T: CommandFactory>() -> Command {
    in_spanish(T::command())
}

/// The help of `T` (what `--help` prints), for tests and documentation.
pub fn help<T: CommandFactory>() -> String {
    translate(&command::<T>().render_long_help().to_string())
}

/// The end of a program's `--help`: the environment variables it reads and what its exit status
/// means, laid out like clap's own lists (entry at two spaces, description at ten), so the book's
/// command reference and man page, generated from the same definition, show them too.
pub fn epilogue(environment: &[(&str, &str)], exit_status: &[(&str, &str)]) -> String {
    let mut text = String::new();
    for (heading, entries) in [(ENVIRONMENT_HEADING, environment), (EXIT_STATUS_HEADING, exit_status)] {
        if entries.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(heading);
        text.push_str(":\n");
        for (name, meaning) in entries {
            text.push_str(&format!("  {name}\n          {meaning}\n"));
        }
    }
    text
}

/// The heading of the environment variables in an [`epilogue`].
pub const ENVIRONMENT_HEADING: &str = "Variables de entorno";
/// The heading of the exit statuses in an [`epilogue`].
pub const EXIT_STATUS_HEADING: &str = "Estado de salida";

/// The entries of one list of an [`epilogue`] (`heading` without its colon): name, meaning.
pub fn epilogue_entries(epilogue: &str, heading: &str) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in epilogue.lines() {
        if !line.starts_with(' ') {
            inside = line.trim_end() == format!("{heading}:");
            continue;
        }
        if !inside || line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        match entries.last_mut() {
            Some((_, meaning)) if indent >= 10 => {
                if !meaning.is_empty() {
                    meaning.push(' ');
                }
                meaning.push_str(line.trim());
            }
            _ => entries.push((line.trim().to_owned(), String::new())),
        }
    }
    entries
}

fn in_spanish(command: Command) -> Command {
    let has_version = command.get_version().is_some();
    let mut command = command
        .disable_help_flag(true)
        .disable_help_subcommand(true)
        .next_line_help(true)
        .subcommand_help_heading("Comandos")
        .subcommand_value_name("COMANDO")
        .help_template("{before-help}{about-with-newline}\nUso: {usage}\n\n{all-args}{after-help}")
        .mut_args(|arg| {
            let heading = if arg.is_positional() { "Argumentos" } else { "Opciones" };
            arg.help_heading(heading)
        })
        .arg(
            Arg::new("ayuda")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help("Muestra esta ayuda")
                .help_heading("Opciones"),
        );
    if has_version {
        command = command.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help("Muestra la versión")
                .help_heading("Opciones"),
        );
    }
    command.mut_subcommands(in_spanish)
}

fn failure(error: clap::Error) -> Failure {
    let code = match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
        _ => 2,
    };
    Failure { text: translate(&error.render().to_string()), code }
}

/// What clap writes in English, and what the operators read instead. Longer phrases first: a
/// phrase is replaced before any shorter one it contains.
const PHRASES: &[(&str, &str)] = &[
    ("For more information, try '--help'.", "Para más información, pruebe '--help'."),
    ("the following required arguments were not provided:", "faltan argumentos obligatorios:"),
    ("the argument '", "el argumento '"),
    ("' cannot be used with '", "' no se puede usar con '"),
    ("' cannot be used multiple times", "' no se puede repetir"),
    ("unexpected argument '", "argumento inesperado '"),
    ("unrecognized subcommand '", "comando desconocido '"),
    ("a value is required for '", "falta un valor para '"),
    ("invalid value '", "valor inválido '"),
    ("' found", "'"),
    ("' for '", "' para '"),
    ("but none was supplied", "pero no se dio ninguno"),
    ("to pass '", "para pasar '"),
    ("' as a value, use '", "' como valor, use '"),
    ("a similar argument exists: '", "hay un argumento parecido: '"),
    ("some similar arguments exist: '", "hay argumentos parecidos: '"),
    ("a similar value exists: '", "hay un valor parecido: '"),
    ("a similar subcommand exists: '", "hay un comando parecido: '"),
    ("invalid digit found in string", "no es un número entero válido"),
    ("cannot parse integer from empty string", "está vacío, se esperaba un número"),
    ("number too large to fit in target type", "número demasiado grande"),
    ("invalid float literal", "no es un número válido"),
    ("equal sign is needed when assigning values to '", "hace falta un signo igual para dar valores a '"),
    ("unexpected value '", "valor inesperado '"),
    ("[possible values: ", "[valores posibles: "),
    ("possible values: ", "valores posibles: "),
    ("[default: ", "[por defecto: "),
    ("[aliases: ", "[alias: "),
    ("[env: ", "[variable: "),
    ("[OPTIONS]", "[OPCIONES]"),
    ("<COMMAND>", "<COMANDO>"),
    ("[COMMAND]", "[COMANDO]"),
    ("Usage:", "Uso:"),
    ("tip:", "sugerencia:"),
];

/// What is wrong with a `--help` text: an option, argument or command without a description,
/// or a word of clap's English left. Each binary's tests run it on the binary's real output.
pub fn help_problems(help: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for english in
        ["Usage", "Options:", "Arguments:", "Commands:", "Print help", "Print version", "[default", "[possible"]
    {
        if help.contains(english) {
            problems.push(format!("English left: {english:?}"));
        }
    }
    let lines: Vec<&str> = help.lines().collect();
    let mut in_list = false;
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with(' ') {
            in_list = ["Opciones:", "Argumentos:", "Comandos:", "Variables de entorno:", "Estado de salida:"]
                .contains(&line.trim_end());
            continue;
        }
        // An entry sits at two to six spaces; its description (next_line_help) at ten, below it.
        let indent = |text: &str| text.len() - text.trim_start().len();
        if !in_list || line.trim().is_empty() || indent(line) > 6 {
            continue;
        }
        let next = lines.get(i + 1).copied().unwrap_or_default();
        if indent(next) < 10 || next.trim().is_empty() || next.trim().starts_with('[') {
            problems.push(format!("no description: {}", line.trim()));
        }
    }
    for line in &lines {
        let padded = format!(" {} ", line.trim().to_lowercase());
        for word in [" the ", " of ", " and ", " with ", " when ", " file "] {
            if padded.contains(word) {
                problems.push(format!("English description? {:?}", line.trim()));
            }
        }
    }
    problems
}

/// Runs a binary with `args` and `--help` and returns [`help_problems`] of what it printed
/// (or why it could not be read). For each binary's own tests.
pub fn binary_help_problems(exe: &std::path::Path, args: &[&str]) -> Vec<String> {
    let output = match std::process::Command::new(exe).args(args).arg("--help").output() {
        Ok(output) => output,
        Err(e) => return vec![format!("{} does not run: {e}", exe.display())],
    };
    let help = String::from_utf8_lossy(&output.stdout);
    let mut problems: Vec<String> =
        help_problems(&help).into_iter().map(|p| format!("{} {}: {p}", exe.display(), args.join(" "))).collect();
    if !output.status.success() || help.trim().is_empty() {
        problems.push(format!("{} {} --help: exit {:?}, no help", exe.display(), args.join(" "), output.status.code()));
    }
    problems
}

/// An error and its causes on one line, `: `-separated, as `{:#}` prints an `anyhow::Error`,
/// but with the operating system's reasons (which Rust prints in English) in Spanish.
pub fn error_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = Vec::new();
    let mut next = Some(error);
    while let Some(current) = next {
        parts.push(match current.downcast_ref::<std::io::Error>() {
            Some(io) => io_reason(io),
            None => current.to_string(),
        });
        next = current.source();
    }
    parts.join(": ")
}

/// What an I/O error means, for the kinds an operator meets.
fn io_reason(error: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    let reason = match error.kind() {
        NotFound => "no existe",
        PermissionDenied => "sin permiso",
        AlreadyExists => "ya existe",
        NotADirectory => "no es una carpeta",
        IsADirectory => "es una carpeta",
        DirectoryNotEmpty => "la carpeta no está vacía",
        ReadOnlyFilesystem => "el sistema de archivos es de solo lectura",
        StorageFull => "no queda espacio en el disco",
        AddrInUse => "la dirección ya está en uso",
        AddrNotAvailable => "la dirección no es de esta máquina",
        ConnectionRefused => "conexión rechazada",
        ConnectionReset => "conexión cortada por el otro extremo",
        TimedOut => "se agotó el tiempo de espera",
        _ => return error.to_string(),
    };
    match error.raw_os_error() {
        Some(code) => format!("{reason} (error {code} del sistema)"),
        None => reason.to_owned(),
    }
}

/// Replaces clap's English phrases in a rendered help or error.
pub fn translate(text: &str) -> String {
    let mut out = text.to_owned();
    for (english, spanish) in PHRASES {
        if out.contains(english) {
            out = out.replace(english, spanish);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Parser, Subcommand};

    /// Una herramienta de prueba.
    #[derive(Parser, Debug)]
    #[command(name = "prueba", version, about = "Una herramienta de prueba.")]
    struct Args {
        #[command(subcommand)]
        command: Option<Sub>,
        /// Puerto donde escuchar.
        #[arg(long = "puerto", value_name = "PUERTO", default_value_t = 8080)]
        port: u16,
        /// Modo de trabajo.
        #[arg(long = "modo", value_name = "MODO", value_parser = ["local", "mainnet"])]
        mode: Option<String>,
    }

    #[derive(Subcommand, Debug)]
    enum Sub {
        /// Imprime las ventas.
        #[command(name = "ventas")]
        Sales {
            /// Archivo a leer.
            #[arg(value_name = "ARCHIVO")]
            file: String,
        },
    }

    fn run(args: &[&str]) -> Result<Args, Failure> {
        try_parse_from::<Args, _, _>(std::iter::once("prueba").chain(args.iter().copied()))
    }

    #[test]
    fn help_has_spanish_headings_and_flags() {
        let help = help::<Args>();
        for english in ["Usage", "Options", "Commands", "Arguments", "Print help", "Print version", "[default"] {
            assert!(!help.contains(english), "{english:?} in:\n{help}");
        }
        for spanish in ["Uso: prueba [OPCIONES] [COMANDO]", "Opciones:", "Comandos:", "[por defecto: 8080]"] {
            assert!(help.contains(spanish), "{spanish:?} missing in:\n{help}");
        }
        assert!(help.contains("Muestra esta ayuda") && help.contains("Muestra la versión"));
        assert_eq!(help_problems(&help), Vec::<String>::new(), "{help}");
        let failure = run(&["--help"]).unwrap_err();
        assert_eq!(failure.code, 0);
        assert!(failure.text.contains("Puerto donde escuchar"));
    }

    #[test]
    fn subcommands_are_in_spanish_too() {
        let failure = run(&["ventas", "--help"]).unwrap_err();
        assert_eq!(failure.code, 0);
        assert!(failure.text.contains("Argumentos:") && failure.text.contains("Archivo a leer"), "{}", failure.text);
        assert!(!failure.text.contains("Print help"), "{}", failure.text);
    }

    #[test]
    fn usage_errors_are_in_spanish_and_exit_2() {
        for (args, expected) in [
            (&["--puerta", "1"][..], "argumento inesperado '--puerta'"),
            (&["--puerto", "x"][..], "valor inválido 'x' para '--puerto <PUERTO>'"),
            (&["--modo", "testnet"][..], "valores posibles:"),
            (&["ventas"][..], "faltan argumentos obligatorios:"),
        ] {
            let failure = run(args).unwrap_err();
            assert_eq!(failure.code, 2, "{args:?}");
            assert!(failure.text.contains(expected), "{args:?}: {}", failure.text);
            assert!(failure.text.contains("Para más información, pruebe '--help'."), "{}", failure.text);
            for english in ["Usage", "found", "For more information", "tip:"] {
                assert!(!failure.text.contains(english), "{english:?} in {}", failure.text);
            }
        }
    }

    #[test]
    fn an_option_without_description_or_in_english_is_found() {
        #[derive(Parser, Debug)]
        #[command(name = "mala", about = "Sin descripciones.")]
        struct Bad {
            #[arg(long = "callada")]
            quiet: bool,
            /// Folder of the data file.
            #[arg(long = "datos", value_name = "DATOS")]
            data: Option<String>,
        }
        let problems = help_problems(&help::<Bad>());
        assert!(problems.iter().any(|p| p.contains("--callada")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("Folder of the data file")), "{problems:?}");
    }

    #[test]
    fn operating_system_reasons_are_in_spanish() {
        #[derive(Debug)]
        struct Reading(std::io::Error);
        impl std::fmt::Display for Reading {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("no se pudo leer dist/gate.json")
            }
        }
        impl std::error::Error for Reading {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let missing = std::fs::read("/no/existe/gate.json").unwrap_err();
        let line = error_line(&Reading(missing));
        assert_eq!(line, "no se pudo leer dist/gate.json: no existe (error 2 del sistema)");
    }

    #[test]
    fn good_arguments_parse() {
        let args = run(&["--puerto", "9000", "ventas", "a.jsonl"]).unwrap();
        assert_eq!(args.port, 9000);
        assert!(matches!(args.command, Some(Sub::Sales { file }) if file == "a.jsonl"));
    }
}
