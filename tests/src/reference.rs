//! The command reference, generated from the clap definitions themselves (so it cannot say what
//! the programs do not do): one book page per program (`docs/src/referencia/`) with its `--help`
//! for every command, its environment variables and exit statuses, and for the gate its
//! Prometheus metrics; and a man page per command (`docs/man/`, `clap_mangen`).
//!
//! `cargo run -p tests --bin referencia` writes them; the `referencia` test fails when the
//! committed files differ from what the code generates, when a flag, an environment variable or
//! a metric the code has is named nowhere in the book, or when the docs name one the code does
//! not have ([`problems`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Command;

/// Every program of the workspace, as its users see it (Spanish help, `cli::command`), in the
/// order of the book's reference.
pub fn programs() -> Vec<Command> {
    vec![
        cli::command::<gate::settings::Args>(),
        cli::command::<generator::cli::Cli>(),
        cli::command::<collector::cli::Cli>(),
        cli::command::<gate::buyer::cli::Args>(),
        cli::command::<gate::facilitator::cli::Args>(),
        cli::command::<synth::cli::Cli>(),
        cli::command::<synth::cli::BenchCambios>(),
        cli::command::<collector::cli::bench::Cli>(),
        cli::command::<crate::programs::bench_build::Args>(),
        cli::command::<crate::programs::bench_compras::Args>(),
        cli::command::<crate::programs::bench_gate::Args>(),
        cli::command::<crate::programs::bench_limits::Args>(),
        cli::command::<crate::programs::bench_mpp::Args>(),
        cli::command::<crate::programs::caos::Args>(),
        cli::command::<crate::programs::facilitador_cdp_prueba::Args>(),
        cli::command::<crate::programs::soak::Args>(),
    ]
}

/// The folder of the book's reference pages, relative to the repository.
pub const PAGES_DIR: &str = "docs/src/referencia";
/// The folder of the man pages, relative to the repository.
pub const MAN_DIR: &str = "docs/man";

/// The repository's root (the parent of the `tests` crate).
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Every generated file: path relative to the repository, and its bytes.
pub fn generated_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut index = String::from(
        "# Referencia de los comandos\n\n\
         Generada de las definiciones de clap de cada programa con `cargo run -p tests --bin referencia` \
         (no se edita a mano: la prueba `referencia` falla si difiere del código). Las mismas páginas, \
         como páginas de manual, están en `docs/man/` (`man -l docs/man/gate.1`).\n\n",
    );
    for program in programs() {
        let name = program.get_name().to_owned();
        index.push_str(&format!("- [`{name}`]({name}.md): {}\n", first_line(&program)));
        files.push((Path::new(PAGES_DIR).join(format!("{name}.md")), page(&program).into_bytes()));
        for (file, bytes) in man_pages(&program) {
            files.push((Path::new(MAN_DIR).join(file), bytes));
        }
    }
    files.push((Path::new(PAGES_DIR).join("README.md"), index.into_bytes()));
    files.sort();
    files
}

fn first_line(command: &Command) -> String {
    command.get_about().map(|about| about.to_string()).unwrap_or_default().trim_end_matches('.').to_owned()
}

/// The book's page of one program: the help of the program and of each visible subcommand.
pub fn page(program: &Command) -> String {
    let mut text = format!("# `{}`\n\n{}.\n", program.get_name(), first_line(program));
    for (path, command) in commands(program) {
        text.push_str(&format!("\n## `{}`\n\n```text\n", path.join(" ")));
        let mut command = command.clone().bin_name(path.join(" "));
        let help = cli::translate(&command.render_long_help().to_string());
        text.push_str(help.trim_end());
        text.push_str("\n```\n");
    }
    if program.get_name() == "gate" {
        text.push_str(&metrics_section());
    }
    text
}

/// The program and each of its visible subcommands, depth first, with the words that call it.
pub fn commands(program: &Command) -> Vec<(Vec<String>, Command)> {
    fn walk(path: Vec<String>, command: &Command, out: &mut Vec<(Vec<String>, Command)>) {
        out.push((path.clone(), command.clone()));
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            let mut sub_path = path.clone();
            sub_path.push(sub.get_name().to_owned());
            walk(sub_path, sub, out);
        }
    }
    let mut out = Vec::new();
    let mut program = program.clone();
    program.build();
    walk(vec![program.get_name().to_owned()], &program, &mut out);
    out
}

/// The man pages of a program: one per command (`gate-ventas-conciliar.1`).
pub fn man_pages(program: &Command) -> Vec<(String, Vec<u8>)> {
    commands(program)
        .into_iter()
        .map(|(path, command)| {
            let name = path.join("-");
            // clap names a command with a `&'static str` (its `string` feature is off): the
            // generator runs once, so the few names it leaks are nothing.
            let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
            let command = command.name(leaked).bin_name(path.join(" "));
            let mut bytes = Vec::new();
            clap_mangen::Man::new(command).render(&mut bytes).expect("rendering to memory does not fail");
            // clap's own words (`[default: …]`) in Spanish, as in --help.
            let text = cli::translate(&String::from_utf8_lossy(&bytes));
            (format!("{name}.1"), text.into_bytes())
        })
        .collect()
}

/// A Prometheus metric as the gate exposes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Metric {
    /// The family's name (`gate_pedidos`).
    pub family: String,
    /// `counter`, `gauge` or `histogram`.
    pub kind: String,
    /// Its `# HELP`.
    pub help: String,
}

impl Metric {
    /// The name a query uses: counters end in `_total`.
    pub fn exposed(&self) -> String {
        if self.kind == "counter" { format!("{}_total", self.family) } else { self.family.clone() }
    }
}

/// The gate's metrics, read from what its `/metrics` renders once each labelled family has a
/// sample (an empty family renders nothing).
pub fn metrics() -> Vec<Metric> {
    let metrics = gate::metrics::Metrics::new();
    metrics.request("/estudio/{slug}", 402);
    metrics.purchase(Ok(()));
    metrics.facilitator_error("sin_conexion");
    let text = metrics.render(|| Some(0), true);
    let mut metrics = Vec::new();
    let mut help = std::collections::BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, text) = rest.split_once(' ').unwrap_or((rest, ""));
            help.insert(name.to_owned(), text.trim_end_matches('.').to_owned());
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            metrics.push(Metric {
                family: name.to_owned(),
                kind: kind.to_owned(),
                help: help.get(name).cloned().unwrap_or_default(),
            });
        }
    }
    metrics.sort();
    metrics
}

fn metrics_section() -> String {
    let mut text = String::from(
        "\n## Métricas de Prometheus\n\n`GET /metrics` en `--escuchar-metricas` (formato OpenMetrics).\n\n\
         | métrica | tipo | qué cuenta |\n|---|---|---|\n",
    );
    for metric in metrics() {
        text.push_str(&format!("| `{}` | {} | {} |\n", metric.exposed(), metric.kind, metric.help));
    }
    text
}

/// The long flags of a program, in every command, hidden aliases included (what the program
/// accepts), with `--help` and `--version`.
pub fn accepted_flags(program: &Command) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for command in commands_with_hidden(program) {
        for arg in command.get_arguments() {
            for long in arg.get_long().into_iter().chain(arg.get_all_aliases().unwrap_or_default()) {
                flags.insert(format!("--{long}"));
            }
        }
    }
    flags
}

/// The long flags a user is shown (not hidden), each of which the book must name.
pub fn shown_flags(program: &Command) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for (_, command) in commands(program) {
        for arg in command.get_arguments().filter(|arg| !arg.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                flags.insert(format!("--{long}"));
            }
            for alias in arg.get_visible_aliases().unwrap_or_default() {
                flags.insert(format!("--{alias}"));
            }
        }
    }
    flags
}

fn commands_with_hidden(program: &Command) -> Vec<Command> {
    fn walk(command: &Command, out: &mut Vec<Command>) {
        out.push(command.clone());
        for sub in command.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut program = program.clone();
    program.build();
    let mut out = Vec::new();
    walk(&program, &mut out);
    out
}

/// The environment variables a program's `--help` documents (its epilogue), as written there
/// (`GATE_RPC_EIP155_<ID>` with its placeholder).
pub fn documented_env(program: &Command) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for command in commands_with_hidden(program) {
        let epilogue = command.get_after_help().map(|help| help.to_string()).unwrap_or_default();
        for (name, _) in cli::epilogue_entries(&epilogue, cli::ENVIRONMENT_HEADING) {
            names.insert(name);
        }
    }
    names
}

/// Whether a name the code reads is covered by a documented one: the same, or a documented
/// `PREFIX_<PLACEHOLDER>` whose prefix it starts with (`GATE_RPC_EIP155_8453`, or the prefix
/// `GATE_RPC_EIP155_` the code builds names from).
fn env_covered(name: &str, documented: &BTreeSet<String>) -> bool {
    documented.iter().any(|doc| match doc.split_once('<') {
        Some((prefix, _)) => name.starts_with(prefix),
        None => doc == name,
    })
}

/// The environment variables the product's code reads: every string literal that starts like
/// one (`"GATE_…`, `"RECOLECTOR_…`, `"COMPRAR_…`, `"CDP_…`, `"…_API_KEY`) in the sources of the
/// shipped crates, before their `#[cfg(test)]` module. A literal ending in `_` is a prefix the
/// code completes (`GATE_RPC_EIP155_` + chain id).
pub fn code_env(repository: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for dir in ["gate/src", "gate/http/src", "collector/src", "generator/src", "generator/synth/src", "cli/src"] {
        for file in rust_files(&repository.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            names.extend(env_literals(text));
        }
    }
    names
}

fn env_literals(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (i, _) in text.match_indices('"') {
        let rest = &text[i + 1..];
        let end =
            rest.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')).unwrap_or(rest.len());
        let word = &rest[..end];
        let env_like = ["GATE_", "RECOLECTOR_", "COMPRAR_", "CDP_"].iter().any(|p| word.starts_with(p))
            || (word.ends_with("_API_KEY") && word.len() > "_API_KEY".len());
        if env_like {
            names.push(word.to_owned());
        }
    }
    names
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return files };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The book's Markdown files (`docs/src/**/*.md`), with their text.
pub fn book(repository: &Path) -> Vec<(PathBuf, String)> {
    markdown_files(&repository.join("docs/src"))
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            (path.strip_prefix(repository).unwrap_or(&path).to_path_buf(), text)
        })
        .collect()
}

/// Every document a reader is sent to: the book and the Markdown files at the top of the
/// repository and of `content/`.
pub fn documents(repository: &Path) -> Vec<(PathBuf, String)> {
    let mut docs = book(repository);
    for name in ["README.md", "content/README.md"] {
        if let Ok(text) = std::fs::read_to_string(repository.join(name)) {
            docs.push((PathBuf::from(name), text));
        }
    }
    docs
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return files };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(markdown_files(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// What the code and the docs disagree on: each flag a user is shown, each environment variable
/// the code reads, each metric the gate exposes, that the book does not name; and each flag
/// (on a command line of a code block), environment variable or metric a document names that
/// the code does not have.
pub fn problems(
    programs: &[Command],
    code_env: &BTreeSet<String>,
    metrics: &[Metric],
    book: &[(PathBuf, String)],
    documents: &[(PathBuf, String)],
) -> Vec<String> {
    let mut problems = Vec::new();
    let book_text: String = book.iter().map(|(_, text)| text.as_str()).collect::<Vec<_>>().join("\n");
    let book_words = words(&book_text);
    let documented: BTreeSet<String> = programs.iter().flat_map(documented_env).collect();
    for program in programs {
        for flag in shown_flags(program) {
            if !book_words.contains(&flag) {
                problems.push(format!("{}: la opción {flag} no aparece en el libro", program.get_name()));
            }
        }
    }
    for name in code_env {
        if !env_covered(name, &documented) {
            problems.push(format!(
                "la variable de entorno {name} que lee el código no está en la ayuda de ningún programa"
            ));
        }
    }
    for name in &documented {
        if !book_words.contains(name) {
            problems.push(format!("la variable de entorno {name} no aparece en el libro"));
        }
    }
    for metric in metrics {
        if !book_words.contains(&metric.exposed()) {
            problems.push(format!("la métrica {} no aparece en el libro", metric.exposed()));
        }
    }
    let families: BTreeSet<&str> = metrics.iter().map(|m| m.family.as_str()).collect();
    let tests = test_names(&repository());
    for (path, text) in documents {
        let path = path.display();
        for word in words(text) {
            if env_like_word(&word) && !documented.contains(&word) && !env_covered(&word, &documented) {
                problems.push(format!("{path}: nombra la variable de entorno {word}, que ningún programa lee"));
            }
            if let Some(family) = metric_family(&word)
                && !families.contains(family.as_str())
                && !tests.contains(&word)
            {
                problems.push(format!("{path}: nombra la métrica {word}, que el gate no tiene"));
            }
        }
        for (program, flag) in flags_on_command_lines(text, programs) {
            let accepted = programs.iter().find(|p| p.get_name() == program).map(accepted_flags).unwrap_or_default();
            if !accepted.contains(&flag) {
                problems.push(format!("{path}: `{program} … {flag}`: {program} no tiene esa opción"));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// The words of a text as the checks read them: runs of letters, digits, `_`, `-` and `<>`
/// (so `--escuchar-metricas`, `GATE_RPC_EIP155_<ID>` and `gate_pedidos_total` are one word each).
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_-<>".contains(c)))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn env_like_word(word: &str) -> bool {
    ["GATE_", "RECOLECTOR_", "COMPRAR_"].iter().any(|p| word.starts_with(p) && word.len() > p.len())
}

/// The names of the end-to-end tests (`fn name` in `tests/tests/`): a doc may cite one
/// (`gate_ventas_on_postgres_…`), and it is no metric.
fn test_names(repository: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in rust_files(&repository.join("tests/tests")) {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (i, _) in text.match_indices("fn ") {
            let rest = &text[i + 3..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            names.insert(rest[..end].to_owned());
        }
    }
    names
}

/// The family a metric-like word names (`gate_pedidos_total` → `gate_pedidos`); none for a
/// word cut short (`gate_ventas_on_…`).
fn metric_family(word: &str) -> Option<String> {
    let rest = word.strip_prefix("gate_")?;
    if rest.is_empty()
        || word.ends_with('_')
        || !word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let mut family = word;
    for suffix in ["_total", "_bucket", "_sum", "_count", "_created"] {
        if let Some(stripped) = family.strip_suffix(suffix) {
            family = stripped;
            break;
        }
    }
    Some(family.to_owned())
}

/// The long flags given to one of `programs` on the command lines of a document's code blocks:
/// a line (joined across `\` continuations) where the program's name is the command (first word,
/// or after `sudo`, `exec`, `env`, `time`, `&&`, `|`, `;` or a `VAR=valor`), each `--flag` up to
/// the next `|`, `&&`, `;`, `>` or `#`.
pub fn flags_on_command_lines(text: &str, programs: &[Command]) -> Vec<(String, String)> {
    let names: BTreeSet<&str> = programs.iter().map(|p| p.get_name()).collect();
    let mut found = Vec::new();
    let mut in_code = false;
    let mut line = String::new();
    for raw in text.lines() {
        if raw.trim_start().starts_with("```") {
            in_code = !in_code;
            line.clear();
            continue;
        }
        if !in_code {
            continue;
        }
        line.push_str(raw.trim_end().trim_end_matches('\\'));
        line.push(' ');
        if raw.trim_end().ends_with('\\') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut program: Option<&str> = None;
        let mut command_position = true;
        for word in &words {
            let base = word.rsplit('/').next().unwrap_or(word);
            if ["|", "&&", ";", "||", ">", ">>", "2>&1", "#"].contains(word) || word.starts_with('#') {
                program = None;
                command_position = true;
                continue;
            }
            if command_position && names.contains(base) {
                program = Some(names.get(base).copied().unwrap_or(base));
                command_position = false;
                continue;
            }
            if let Some(name) = program
                && word.starts_with("--")
                && word.len() > 2
            {
                let flag = word.split('=').next().unwrap_or(word).trim_matches(|c| c == '`' || c == '"' || c == '\'');
                found.push((name.to_owned(), flag.to_owned()));
            }
            command_position = program.is_none()
                && (["sudo", "exec", "env", "time", "$"].contains(word)
                    || (word.contains('=') && !word.starts_with('-')));
        }
        line.clear();
    }
    found
}

/// Placeholders still in English: an argument whose value is shown by its (English) field name,
/// clap's default, instead of a Spanish `value_name` (`<KEY>` where `<CLAVE>` belongs). A field
/// named like its Spanish placeholder (`url`) is no problem.
pub fn english_placeholders(program: &Command) -> Vec<String> {
    const SAME_IN_SPANISH: [&str; 3] = ["URL", "N", "SLUG"];
    let mut problems = Vec::new();
    for command in commands_with_hidden(program) {
        for arg in command.get_arguments().filter(|arg| arg.get_action().takes_values()) {
            let id = arg.get_id().as_str().to_uppercase();
            let shown: Vec<String> =
                arg.get_value_names().map(|names| names.iter().map(|n| n.to_string()).collect()).unwrap_or_default();
            if (shown.is_empty() || shown.contains(&id)) && !SAME_IN_SPANISH.contains(&id.as_str()) {
                problems.push(format!(
                    "{}: <{id}> es el nombre del campo, no un marcador en castellano",
                    command.get_name()
                ));
            }
        }
    }
    problems
}
