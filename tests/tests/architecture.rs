//! The layout the book's *Architecture* chapter (`docs/src/diseno/arquitectura.md`) states, checked against the code: which
//! crate may depend on which, and, inside the gate and the generator, which module may import
//! which. The tables are read from that chapter itself, so the documentation cannot drift from
//! the code without this test failing; a new module must get a row before it compiles green.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The chapter that states the layout.
const ARCHITECTURE: &str = "docs/src/diseno/arquitectura.md";

/// A table of the chapter: first column → (second column, third column), from the heading
/// that starts with `heading` to the next heading.
fn readme_table(heading: &str) -> BTreeMap<String, BTreeSet<String>> {
    let readme = std::fs::read_to_string(root().join(ARCHITECTURE)).expect(ARCHITECTURE);
    let start = readme.find(heading).unwrap_or_else(|| panic!("README has no section {heading:?}"));
    let section = &readme[start + heading.len()..];
    let end = section.find("\n#").unwrap_or(section.len());
    let mut table = BTreeMap::new();
    for line in section[..end].lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [name, _owns, allowed] = cells[..] else { panic!("README row with other than 3 cells: {line}") };
        table.insert(backticked(name).into_iter().next().expect("a name"), backticked(allowed));
    }
    assert!(!table.is_empty(), "README section {heading:?} has no table rows");
    table
}

/// Every `…` span of a cell, without a trailing `/`.
fn backticked(cell: &str) -> BTreeSet<String> {
    cell.split('`').skip(1).step_by(2).map(|s| s.trim_end_matches('/').to_owned()).collect()
}

#[test]
fn crates_depend_only_on_what_the_readme_allows() {
    let table = readme_table("The workspace's crates");
    let crates: BTreeMap<&str, &str> = [
        ("cli", "cli"),
        ("collector", "collector"),
        ("contract", "contract"),
        ("generator", "generator"),
        ("generator/synth", "synth"),
        ("gate", "gate"),
        ("gate/http", "gate-http"),
        ("tests", "tests"),
    ]
    .into_iter()
    .collect();
    assert_eq!(table.keys().map(String::as_str).collect::<Vec<_>>(), crates.keys().copied().collect::<Vec<_>>());
    for (folder, allowed) in &table {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).expect("Cargo.toml");
        let value: toml::Value = toml::from_str(&manifest).expect("TOML");
        let normal = value.get("dependencies").and_then(toml::Value::as_table).cloned().unwrap_or_default();
        for dependency in normal.keys().filter(|d| crates.values().any(|c| c == d)) {
            assert!(
                allowed.contains(dependency.as_str()),
                "{folder} depends on {dependency}, which the README does not allow"
            );
        }
    }
}

#[test]
fn the_gate_links_none_of_the_generators_writers() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .args(["tree", "-p", "gate", "-e", "normal", "--prefix", "none", "--offline", "--locked"])
        .current_dir(root())
        .output()
        .expect("cargo tree");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let tree = String::from_utf8(output.stdout).expect("utf-8");
    assert!(tree.lines().any(|l| l.starts_with("contract ")), "the tree lists the gate's crates:\n{tree}");
    for forbidden in ["generator ", "rust_xlsxwriter ", "zip ", "minijinja ", "walkdir "] {
        assert!(!tree.lines().any(|l| l.starts_with(forbidden)), "the gate links {forbidden}");
    }
}

/// Modules named `a` or `a::b`, the files that make them, and what each file refers to.
struct Modules {
    /// Node → the nodes its files refer to through `crate::` and `super::`.
    refs: BTreeMap<String, BTreeSet<String>>,
}

/// Reads every module file under `src` (but the crate roots and binaries).
fn modules(src: &Path, nodes: &BTreeSet<String>) -> Modules {
    let mut refs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).expect("under src").with_extension("");
        let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        // Crate roots and binaries may use anything; tests may reach across layers.
        if matches!(parts[0].as_str(), "lib" | "main" | "bin") || parts.last().is_some_and(|p| p == "tests") {
            continue;
        }
        let path: Vec<&str> = parts.iter().map(String::as_str).filter(|p| *p != "mod").collect();
        let node = node_of(&path, nodes);
        let text = std::fs::read_to_string(&file).expect("source");
        // A file's test module comes last, by this workspace's convention.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let found = refs.entry(node.clone()).or_default();
        let parent: Vec<&str> = match parts.last().map(String::as_str) {
            Some("mod") => path[..path.len().saturating_sub(1)].to_vec(),
            _ => path[..path.len().saturating_sub(1)].to_vec(),
        };
        for target in referenced_paths(&code, &parent) {
            let target = node_of(&target.iter().map(String::as_str).collect::<Vec<_>>(), nodes);
            if target != node {
                found.insert(target);
            }
        }
    }
    Modules { refs }
}

/// The most specific node a module path belongs to (`payment::mcp` → `payment`, unless
/// `payment::mcp` is a node of its own).
fn node_of(path: &[&str], nodes: &BTreeSet<String>) -> String {
    for length in (1..=path.len()).rev() {
        let candidate = path[..length].join("::");
        if nodes.contains(&candidate) {
            return candidate;
        }
    }
    path.first().map(|s| (*s).to_owned()).unwrap_or_default()
}

/// Module paths a file names through `crate::…` (including `crate::{a, b::c}`) and `super::…`.
fn referenced_paths(code: &str, parent: &[&str]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent.iter().map(|s| (*s).to_owned()).collect())] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let segments = segments_of(item.trim());
                    if !segments.is_empty() {
                        found.push(base.iter().cloned().chain(segments).collect());
                    }
                }
            } else {
                let segments = segments_of(rest);
                if !segments.is_empty() {
                    found.push(base.iter().cloned().chain(segments).collect());
                }
            }
        }
    }
    found
}

/// The lowercase module segments at the start of a path (`http::server::Request` → `http`, `server`).
fn segments_of(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    for segment in text.split("::") {
        let name: String = segment.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_lowercase()) || name == "self" {
            break;
        }
        segments.push(name);
        if segment.len() != segments.last().map_or(0, String::len) {
            break;
        }
    }
    segments
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every module of `src` has a row, imports only what its row allows, and the allowed graph
/// has no cycle.
fn check_layout(heading: &str, src: &str) {
    let table = readme_table(heading);
    let nodes: BTreeSet<String> = table.keys().cloned().collect();
    let modules = modules(&root().join(src), &nodes);
    let tops: BTreeSet<&str> = modules.refs.keys().filter_map(|n| n.split("::").next()).collect();
    let mut problems = Vec::new();
    for (node, refs) in &modules.refs {
        let Some(allowed) = table.get(node) else {
            problems.push(format!("{src}: module {node} has no row in the README's table"));
            continue;
        };
        // Items of the crate root (`crate::check`) are not modules.
        for target in refs.iter().filter(|t| t.split("::").next().is_some_and(|top| tops.contains(top))) {
            let own_child = target.starts_with(&format!("{node}::"));
            let ok = own_child
                || allowed.contains(target)
                || target.split("::").next().is_some_and(|top| allowed.contains(top));
            if !ok {
                problems.push(format!("{src}: {node} imports {target}, which its README row does not allow"));
            }
        }
    }
    for node in table.keys() {
        if !modules.refs.contains_key(node) {
            problems.push(format!("{src}: the README names {node}, which is not a module"));
        }
    }
    if let Some(cycle) = find_cycle(&table) {
        problems.push(format!("{src}: the allowed imports form a cycle: {}", cycle.join(" → ")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A cycle in the allowed-import graph, if any (a `a::b` entry stands for itself).
fn find_cycle(table: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        table: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(node.to_owned(), 1);
        path.push(node.to_owned());
        for next in table.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, table, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    table.keys().find_map(|node| visit(node, table, &mut state, &mut Vec::new()))
}

#[test]
fn the_gates_modules_import_only_what_the_readme_allows() {
    check_layout("The gate (`gate/src/`)", "gate/src");
}

#[test]
fn the_generators_modules_import_only_what_the_readme_allows() {
    check_layout("The generator (`generator/src/`)", "generator/src");
}

/// Every crate's source folder (binaries and integration tests included).
const SOURCE_FOLDERS: [&str; 8] = [
    "cli/src",
    "collector/src",
    "contract/src",
    "gate/src",
    "gate/http/src",
    "generator/src",
    "generator/synth/src",
    "tests/src",
];

/// The module a file is (`payment/shop.rs` → `payment::shop`, `payment/mod.rs` → `payment`),
/// or `None` for a crate root or a binary, which may use anything.
fn module_name(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).expect("under src").with_extension("");
    let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts[0].as_str(), "lib" | "main" | "bin") {
        return None;
    }
    Some(parts.iter().map(String::as_str).filter(|p| *p != "mod").collect::<Vec<_>>().join("::"))
}

/// The module graph of one source folder, file by file: each module → the modules whose items it
/// names through `crate::` or `super::` (outside its test module and comments).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<(String, PathBuf)> =
        rust_files(src).into_iter().filter_map(|f| module_name(src, &f).map(|m| (m, f))).collect();
    let names: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &files {
        let text = std::fs::read_to_string(file).expect("source");
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let is_folder_root = file.file_stem().is_some_and(|s| s == "mod");
        let segments: Vec<&str> = module.split("::").collect();
        let parent: Vec<&str> = if is_folder_root { segments.clone() } else { segments[..segments.len() - 1].to_vec() };
        let mut targets = BTreeSet::new();
        for path in referenced_paths(&code, &parent) {
            let target = (1..=path.len()).rev().map(|n| path[..n].join("::")).find(|c| names.contains(c));
            if let Some(target) = target.filter(|t| t != module) {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The groups of modules that reach one another through imports (the graph's strongly connected
/// components of more than one module), so every cycle is reported at once.
fn tangles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(node) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|n| (n, reach(n))).collect();
    let mut tangles: Vec<BTreeSet<String>> = Vec::new();
    for (node, reached) in &reaches {
        if tangles.iter().any(|t| t.contains(*node)) {
            continue;
        }
        let tangle: BTreeSet<String> = std::iter::once((*node).clone())
            .chain(reached.iter().filter(|other| reaches.get(other).is_some_and(|r| r.contains(*node))).cloned())
            .collect();
        if tangle.len() > 1 {
            tangles.push(tangle);
        }
    }
    tangles
}

#[test]
fn no_module_imports_one_that_imports_it_back_in_any_crate() {
    let mut cycles = Vec::new();
    for folder in SOURCE_FOLDERS {
        for tangle in tangles(&module_graph(&root().join(folder))) {
            cycles.push(format!("{folder}: {}", tangle.into_iter().collect::<Vec<_>>().join(" ⇄ ")));
        }
    }
    assert!(cycles.is_empty(), "module cycles (cut one import of each):\n{}", cycles.join("\n"));
}

/// Lines a source file may have: past it, a file holds more than one concern.
const MAX_LINES: usize = 1_000;

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut long = Vec::new();
    for folder in
        SOURCE_FOLDERS.iter().copied().chain(["tests/tests", "gate/tests", "generator/tests", "collector/tests"])
    {
        for file in rust_files(&root().join(folder)) {
            let lines = std::fs::read_to_string(&file).expect("source").lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", file.strip_prefix(root()).unwrap_or(&file).display()));
            }
        }
    }
    assert!(long.is_empty(), "files over {MAX_LINES} lines (split them by concern):\n{}", long.join("\n"));
}

#[test]
fn the_http_layer_cannot_reach_the_gates_domain() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .args(["tree", "-p", "gate-http", "-e", "normal", "--prefix", "none", "--offline", "--locked"])
        .current_dir(root())
        .output()
        .expect("cargo tree");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let tree = String::from_utf8(output.stdout).expect("utf-8");
    assert!(tree.lines().any(|l| l.starts_with("pingora-core ")), "the tree lists the HTTP layer's crates:\n{tree}");
    for forbidden in ["gate ", "contract ", "generator ", "tokio-postgres ", "alloy-primitives "] {
        assert!(!tree.lines().any(|l| l.starts_with(forbidden)), "the HTTP layer links {forbidden}");
    }
}

#[test]
fn the_reference_parser_reads_groups_and_super_paths() {
    let code = "use crate::{downloads, mcp, payment::http::Storefront};\nuse super::offer::Offer;\nlet x = crate::clock::now();";
    let found = referenced_paths(code, &["payment"]);
    let found: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(found, ["downloads", "mcp", "payment::http", "clock::now", "payment::offer"]);
    let mut table = BTreeMap::new();
    table.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    table.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(find_cycle(&table), Some(vec!["a".into(), "b".into(), "a".into()]));
    table.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(
        tangles(&table),
        vec![BTreeSet::from(["a".to_owned(), "b".to_owned()])],
        "c reaches the cycle, is not in it"
    );
    // The module graph is read file by file: the offer stands on the sign-in challenge.
    let gate = module_graph(&root().join("gate/src"));
    assert!(gate["payment::offer"].contains("payment::signin"), "{:?}", gate["payment::offer"]);
    assert!(gate["payment::reaccess"].contains("payment::shop"), "{:?}", gate["payment::reaccess"]);
}
