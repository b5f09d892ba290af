//! The command blocks of the book's *Operar* chapters (`docs/src/operar/*.md`) that tests run
//! as written: each follows a `<!-- probado: NAME -->` marker, NAME unique across the chapters.

use std::path::{Path, PathBuf};

/// The folder of the *Operar* chapters.
pub fn chapters_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/operar")
}

/// The shell block right after `<!-- probado: {name} -->` in the *Operar* chapters.
pub fn block(name: &str) -> String {
    let marker = format!("<!-- probado: {name} -->");
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(chapters_dir())
        .expect("docs/src/operar")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("a chapter");
        for (at, _) in text.match_indices(&marker) {
            found.push((path.clone(), text[at + marker.len()..].to_owned()));
        }
    }
    assert_eq!(found.len(), 1, "{marker} must be in exactly one chapter of docs/src/operar: {found:?}");
    let (path, after) = found.remove(0);
    let fence = after.find("```sh\n").unwrap_or_else(|| panic!("no ```sh block after {marker} in {}", path.display()));
    assert!(after[..fence].lines().count() <= 3, "the block must follow {marker} closely ({})", path.display());
    let body = &after[fence + "```sh\n".len()..];
    let body = body.split_once("```").expect("the block closes").0;
    // A block inside a list item is indented; bash reads it the same without the indent.
    let indent = body.lines().next().map(|l| l.len() - l.trim_start().len()).unwrap_or(0);
    body.lines().map(|l| l.get(indent..).unwrap_or(l.trim_start())).collect::<Vec<_>>().join("\n") + "\n"
}
