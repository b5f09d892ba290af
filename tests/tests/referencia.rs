//! The command reference cannot drift from the code (`tests::reference`): the committed pages
//! and man pages are what the clap definitions generate; every flag, environment variable and
//! metric is in the book and the docs name none the code lacks; placeholders are Spanish. Each
//! check is also shown failing on a changed definition or document.

use std::collections::BTreeSet;
use std::path::PathBuf;

use tests::reference::{self, Metric};

#[test]
fn placeholders_are_spanish() {
    let problems: Vec<String> = reference::programs().iter().flat_map(reference::english_placeholders).collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The committed reference is what the code generates now: a flag, an environment variable, an
/// exit status or a metric changed without `cargo run -p tests --bin referencia` fails here.
#[test]
fn committed_reference_is_generated_from_the_code() {
    let repository = reference::repository();
    let mut stale = Vec::new();
    let generated = reference::generated_files();
    for (path, bytes) in &generated {
        if std::fs::read(repository.join(path)).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    for dir in [reference::PAGES_DIR, reference::MAN_DIR] {
        for entry in std::fs::read_dir(repository.join(dir)).expect("the reference folders exist").flatten() {
            let path = PathBuf::from(dir).join(entry.file_name());
            if !generated.iter().any(|(generated, _)| *generated == path) {
                stale.push(format!("{} (ya no se genera)", path.display()));
            }
        }
    }
    assert!(stale.is_empty(), "regenere con `cargo run -p tests --bin referencia`: {stale:#?}");
}

fn real_problems(programs: &[clap::Command], documents_extra: &[(PathBuf, String)]) -> Vec<String> {
    let repository = reference::repository();
    let mut documents = reference::documents(&repository);
    documents.extend_from_slice(documents_extra);
    reference::problems(
        programs,
        &reference::code_env(&repository),
        &reference::metrics(),
        &reference::book(&repository),
        &documents,
    )
}

#[test]
fn the_book_names_every_flag_variable_and_metric_and_nothing_else() {
    let problems = real_problems(&reference::programs(), &[]);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn a_flag_added_without_docs_fails() {
    let mut programs = reference::programs();
    programs[0] = programs[0].clone().arg(clap::Arg::new("nueva").long("opcion-nueva").help("Una opción nueva."));
    let problems = real_problems(&programs, &[]);
    assert_eq!(problems, ["gate: la opción --opcion-nueva no aparece en el libro"], "{problems:#?}");
}

#[test]
fn a_variable_or_metric_the_code_gains_without_docs_fails() {
    let repository = reference::repository();
    let documents = reference::documents(&repository);
    let book = reference::book(&repository);
    let mut code_env = reference::code_env(&repository);
    code_env.insert("GATE_NUEVA".to_owned());
    let mut metrics = reference::metrics();
    metrics.push(Metric { family: "gate_nueva".into(), kind: "counter".into(), help: "Nueva".into() });
    let problems = reference::problems(&reference::programs(), &code_env, &metrics, &book, &documents);
    assert_eq!(
        problems,
        [
            "la métrica gate_nueva_total no aparece en el libro",
            "la variable de entorno GATE_NUEVA que lee el código no está en la ayuda de ningún programa",
        ],
        "{problems:#?}"
    );
}

#[test]
fn docs_naming_what_the_code_lacks_fail() {
    let page = "Para vender:\n\n```sh\nGATE_LOG=debug ./target/release/gate --dist dist --escuchar-rapido 1 \\\n  --modo local | tee x\n\
                recolector recolectar content/estudios/x --si --listen 1\n```\n\n\
                Vigile `gate_compras_total`, `gate_ventas_perdidas_total` y `GATE_VENTAS_LENTAS`.\n";
    let problems = real_problems(&reference::programs(), &[(PathBuf::from("prueba.md"), page.to_owned())]);
    assert_eq!(
        problems,
        [
            "prueba.md: `gate … --escuchar-rapido`: gate no tiene esa opción",
            "prueba.md: `recolector … --listen`: recolector no tiene esa opción",
            "prueba.md: nombra la métrica gate_ventas_perdidas_total, que el gate no tiene",
            "prueba.md: nombra la variable de entorno GATE_VENTAS_LENTAS, que ningún programa lee",
        ],
        "{problems:#?}"
    );
    // The words the checks read: a placeholder stays with its variable.
    let shown: BTreeSet<String> = reference::flags_on_command_lines(page, &reference::programs())
        .into_iter()
        .map(|(program, flag)| format!("{program} {flag}"))
        .collect();
    assert!(shown.contains("gate --modo"), "{shown:?}");
}
