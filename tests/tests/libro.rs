//! The book (`docs/`, mdBook), the README and BENCHMARKS.md hold together: every relative link reaches a file
//! and every `#anchor` a heading of it (as mdBook makes heading ids), and every page of
//! `docs/src/` is in `SUMMARY.md` (mdBook leaves out a page it does not list). `./tienda probar`
//! also runs `mdbook build`. Every shell block of the *Operar* chapters says how it is checked:
//! `<!-- probado: NAME -->` (a test reads and runs it; NAME appears in a test's source) or
//! `<!-- no se prueba: WHY -->` (or, inside the block, a first line `# not run by a test …`).
//! Each check is shown failing on a broken page.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a docs folder").flatten() {
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

/// The text outside code (fenced blocks and `inline code`), where Markdown reads links.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut inline = false;
        for c in line.chars() {
            if c == '`' {
                inline = !inline;
            } else if !inline {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the inline links of a Markdown text: `[text](target)`.
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut targets = Vec::new();
    for (i, _) in text.match_indices("](") {
        let rest = &text[i + 2..];
        if let Some(end) = rest.find(')') {
            let target = rest[..end].split_whitespace().next().unwrap_or_default();
            targets.push(target.to_owned());
        }
    }
    targets
}

/// The ids mdBook gives a page's headings: lower case, letters, digits, `-` and `_` kept,
/// spaces made `-`, the rest dropped; a repeated id gets `-1`, `-2`….
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let id: String = title
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_lowercase().next().unwrap_or(c)),
                _ => None,
            })
            .collect();
        let mut unique = id.clone();
        let mut n = 1;
        while ids.contains(&unique) {
            unique = format!("{id}-{n}");
            n += 1;
        }
        ids.insert(unique);
    }
    ids
}

// One place per fact: no paragraph of prose is in two of the project's documents; a passage
// lives in one and the others link to it.

/// Paragraphs this long (in characters, whitespace collapsed) may be in one document only.
const LONGEST_REPEATABLE: usize = 199;

/// The documents a reader is sent to, as they exist now: the Markdown files at the top of the
/// repository and of `content/`, and every page of the book but the reference, which
/// `cargo run -p tests --bin referencia` generates from the code.
fn project_docs(repository: &Path) -> Vec<PathBuf> {
    let mut docs = Vec::new();
    for dir in [repository.to_path_buf(), repository.join("content")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "md"))
            .collect();
        found.sort();
        docs.extend(found);
    }
    let reference = repository.join("docs/src/referencia");
    if repository.join("docs/src").is_dir() {
        docs.extend(
            markdown_files(&repository.join("docs/src")).into_iter().filter(|page| !page.starts_with(&reference)),
        );
    }
    docs
}

/// The paragraphs of prose of a Markdown text, each with the line it starts on: lines between
/// blank lines, outside fenced code, tables and headings, each list item a paragraph of its own,
/// whitespace collapsed.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut fenced = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let list_item = trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let fence = trimmed.starts_with("```");
        let outside_prose = fenced || trimmed.is_empty() || trimmed.starts_with('|') || trimmed.starts_with('#');
        if fence || outside_prose || list_item {
            found.extend(current.take());
        }
        if fence {
            fenced = !fenced;
        }
        if fence || outside_prose {
            continue;
        }
        let (_, paragraph) = current.get_or_insert_with(|| (number + 1, String::new()));
        let words = trimmed.split_whitespace().skip(usize::from(list_item));
        for word in words {
            if !paragraph.is_empty() {
                paragraph.push(' ');
            }
            paragraph.push_str(word);
        }
    }
    found.extend(current);
    found
}

/// A paragraph as it is compared: link targets dropped, so a passage moved to a page in another
/// folder (`[texto](a.md)`, `[texto](../a.md)`) is still the same passage.
fn compared(paragraph: &str) -> String {
    let mut out = String::with_capacity(paragraph.len());
    let mut rest = paragraph;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..=i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else {
            out.push_str(&rest[i + 1..]);
            return out;
        };
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Each paragraph longer than [`LONGEST_REPEATABLE`] (link targets left out) that is in more
/// than one of `docs` (name, text), with every place it is at.
fn repeated_paragraphs(docs: &[(String, String)]) -> Vec<String> {
    let mut places: std::collections::BTreeMap<String, Vec<(String, usize)>> = std::collections::BTreeMap::new();
    for (name, text) in docs {
        for (line, paragraph) in paragraphs(text) {
            let paragraph = compared(&paragraph);
            if paragraph.chars().count() > LONGEST_REPEATABLE {
                places.entry(paragraph).or_default().push((name.clone(), line));
            }
        }
    }
    places
        .into_iter()
        .filter(|(_, at)| at.iter().map(|(name, _)| name).collect::<BTreeSet<_>>().len() > 1)
        .map(|(paragraph, at)| {
            let at: Vec<String> = at.iter().map(|(name, line)| format!("{name}:{line}")).collect();
            let start: String = paragraph.chars().take(100).collect();
            format!("{}: «{start}…»", at.join(" y "))
        })
        .collect()
}

#[test]
fn no_paragraph_is_in_two_documents() {
    let repository = repository();
    let docs: Vec<(String, String)> = project_docs(&repository)
        .iter()
        .map(|doc| {
            let name = doc.strip_prefix(&repository).unwrap_or(doc).display().to_string();
            (name, std::fs::read_to_string(doc).expect("a document"))
        })
        .collect();
    assert!(
        docs.iter().any(|(name, _)| name == "BENCHMARKS.md"),
        "{:?}",
        docs.iter().map(|d| &d.0).collect::<Vec<_>>()
    );
    let repeated = repeated_paragraphs(&docs);
    assert!(
        repeated.is_empty(),
        "el mismo párrafo en dos documentos: déjelo en uno y enlácelo desde el otro: {repeated:#?}"
    );
}

#[test]
fn a_paragraph_in_two_documents_is_found() {
    let dir = tempfile::tempdir().expect("temp dir");
    let long = "El gate vende cada estudio entero por USD 0,99 en USDC con x402 v2, liquida solo después de \
                producir el estudio y entrega [enlaces firmados](descargas.md) que valen siete días; lo que no se entregó no \
                se cobra, y lo que no se liquidó no se entrega.";
    let reflowed = long.replace(", liquida", ",\n   liquida").replace("(descargas.md)", "(../../descargas.md)");
    let table = format!("| {long} |");
    let files = [
        ("README.md", format!("# Tienda\n\nCorto y repetido en los dos.\n\n{long}\n\n```sh\n{long}\n```\n")),
        ("content/README.md", format!("{table}\n\n- {long}\n")),
        ("docs/src/operar/gate.md", format!("Corto y repetido en los dos.\n\n{reflowed}\n")),
        ("docs/src/referencia/gate.md", format!("{long}\n")),
        ("docs/src/SUMMARY.md", "- [Operar](operar/gate.md)\n".to_owned()),
    ];
    for (name, text) in &files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
        std::fs::write(path, text).expect("write");
    }
    let found: Vec<String> = project_docs(dir.path())
        .iter()
        .map(|doc| doc.strip_prefix(dir.path()).unwrap_or(doc).display().to_string())
        .collect();
    assert_eq!(found, ["README.md", "content/README.md", "docs/src/SUMMARY.md", "docs/src/operar/gate.md"]);
    let docs: Vec<(String, String)> = files
        .iter()
        .filter(|(name, _)| found.iter().any(|f| f == name))
        .map(|(n, t)| ((*n).to_owned(), t.clone()))
        .collect();
    let repeated = repeated_paragraphs(&docs);
    assert_eq!(repeated.len(), 1, "{repeated:#?}");
    assert!(
        repeated[0].starts_with("README.md:5 y content/README.md:3 y docs/src/operar/gate.md:3: «El gate vende"),
        "{repeated:#?}"
    );
}

/// Each broken link of a page: the file it names is missing, or has no such heading.
fn broken_links(page: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for target in links(text) {
        if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let target_text = if file.is_empty() {
            text.to_owned()
        } else {
            let path = page.parent().unwrap_or(page).join(file);
            match std::fs::read_to_string(&path) {
                Ok(target_text) => target_text,
                Err(_) if path.is_dir() => String::new(),
                Err(_) => {
                    broken.push(format!("{}: {target}: no existe", page.display()));
                    continue;
                }
            }
        };
        if let Some(anchor) = anchor
            && !heading_ids(&target_text).contains(anchor)
        {
            broken.push(format!("{}: {target}: no hay un título #{anchor}", page.display()));
        }
    }
    broken
}

#[test]
fn every_link_of_the_book_and_the_guides_resolves() {
    let repository = repository();
    let mut pages = markdown_files(&repository.join("docs/src"));
    for top in ["README.md", "BENCHMARKS.md"] {
        pages.push(repository.join(top));
    }
    let broken: Vec<String> =
        pages.iter().flat_map(|page| broken_links(page, &std::fs::read_to_string(page).expect("a page"))).collect();
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn every_page_is_in_the_summary() {
    let src = repository().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = links(&summary).iter().map(|target| src.join(target)).collect();
    let missing: Vec<String> = markdown_files(&src)
        .into_iter()
        .filter(|page| !page.ends_with("SUMMARY.md") && !listed.contains(page))
        .map(|page| page.display().to_string())
        .collect();
    assert!(missing.is_empty(), "páginas que SUMMARY.md no lista: {missing:#?}");
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("otra.md"), "# Instalar el gate\n\n## Instalar el gate\n").expect("write");
    let page = dir.path().join("pagina.md");
    let text = "[bien](otra.md#instalar-el-gate) [repetido](otra.md#instalar-el-gate-1) \
                [falta](nada.md) [ancla](otra.md#desinstalar) `[en código](nada.md)` [aquí](#título-propio) [allá](#otro)\n\n# Título propio\n";
    let broken = broken_links(&page, text);
    assert_eq!(
        broken,
        [
            format!("{}: nada.md: no existe", page.display()),
            format!("{}: otra.md#desinstalar: no hay un título #desinstalar", page.display()),
            format!("{}: #otro: no hay un título #otro", page.display()),
        ],
        "{broken:#?}"
    );
}

/// The languages of the fenced blocks that hold commands (the rest are files, output, code).
const SHELL: [&str; 4] = ["sh", "bash", "shell", "console"];

/// Each shell block of a page without a marker on the lines just above it, and each
/// `probado` name no test in `tests` runs: `NAME: why` lines.
fn unmarked_blocks(page: &str, tests: &str) -> Vec<String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut wrong = Vec::new();
    let mut fenced = false;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if !trimmed.starts_with("```") {
            continue;
        }
        fenced = !fenced;
        if !fenced || !SHELL.contains(&trimmed.trim_start_matches('`').trim()) {
            continue;
        }
        let above = lines[..i].iter().rev().map(|l| l.trim()).find(|l| !l.is_empty()).unwrap_or_default();
        // The convention of `frentes-y-cdn.md`: the block's first line says why it is not run.
        if lines.get(i + 1).is_some_and(|first| first.trim_start().starts_with("# not run by a test")) {
            continue;
        }
        if let Some(name) = above.strip_prefix("<!-- probado: ").and_then(|r| r.strip_suffix(" -->")) {
            if !tests.contains(&format!("\"{name}\"")) {
                wrong.push(format!("línea {}: probado: {name}, pero ninguna prueba lo corre", i + 1));
            }
        } else if above
            .strip_prefix("<!-- no se prueba: ")
            .and_then(|r| r.strip_suffix(" -->"))
            .is_none_or(|why| why.trim().len() <= 10)
        {
            wrong.push(format!("línea {}: un bloque sin <!-- probado: … --> ni <!-- no se prueba: … -->", i + 1));
        }
    }
    wrong
}

/// The sources of the tests that run the chapters' blocks.
fn test_sources() -> String {
    let dir = repository().join("tests/tests");
    let mut text = String::new();
    for path in files_with(&dir, "rs") {
        text.push_str(&std::fs::read_to_string(path).expect("a test"));
    }
    text
}

fn files_with(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_with(&path, extension));
        } else if path.extension().is_some_and(|e| e == extension) {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Every page of the book but the generated reference (its synopses come from the code) and the
/// benchmarks' history (the commands of past runs, at the commits they name).
#[test]
fn every_command_block_of_the_book_is_run_or_says_why_not() {
    let tests = test_sources();
    let mut wrong = Vec::new();
    let book = repository().join("docs/src");
    let pages = markdown_files(&book).into_iter().filter(|page| {
        !page.starts_with(book.join("referencia")) && !page.ends_with("diseno/historia-de-benchmarks.md")
    });
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("a page");
        wrong.extend(unmarked_blocks(&text, &tests).into_iter().map(|w| format!("{}: {w}", page.display())));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_block_without_a_marker_or_with_a_name_no_test_runs_is_found() {
    let tests = "machine.run(\"respaldo-datos\");";
    let page = "<!-- probado: respaldo-datos -->\n```sh\nls\n```\n\n```sh\nrm -r /\n```\n\n\
                <!-- probado: nadie-lo-corre -->\n```sh\ntrue\n```\n\n<!-- no se prueba: no systemd as PID 1 -->\n\
                ```bash\nsystemctl start x\n```\n\n<!-- no se prueba: -->\n```sh\nfalse\n```\n\n```text\nsalida\n```\n";
    assert_eq!(
        unmarked_blocks(page, tests),
        [
            "línea 6: un bloque sin <!-- probado: … --> ni <!-- no se prueba: … -->",
            "línea 11: probado: nadie-lo-corre, pero ninguna prueba lo corre",
            "línea 21: un bloque sin <!-- probado: … --> ni <!-- no se prueba: … -->",
        ]
    );
}
