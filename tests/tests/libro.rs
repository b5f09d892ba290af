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

#[test]
fn every_command_block_of_the_operating_chapters_is_run_or_says_why_not() {
    let tests = test_sources();
    let mut wrong = Vec::new();
    for page in markdown_files(&repository().join("docs/src/operar")) {
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
