//! Shared by the end-to-end tests: where the sample content is, one build of it per test
//! binary, where the publisher's content is, and small file helpers.

#![allow(dead_code, unreachable_pub)]

pub mod frentes;
pub mod gate;
pub mod operar;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use generator::build::{BuildOptions, build};

/// The sample content the tests carry (`tests/muestra/`, the nine synthetic studies): the
/// tests that check exact figures and named studies read it, never `content/`, so a publisher
/// who replaces `content/` with their own studies does not break them.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("muestra")
}

/// The variable that names the content folder the publisher-content tests read
/// (`tests/tests/contenido_propio.rs`); without it, the repository's `content/`.
pub const CONTENT_ENV: &str = "TIENDA_CONTENIDO";

/// The publisher's content folder: `$TIENDA_CONTENIDO`, or the repository's `content/`.
pub fn publisher_content() -> PathBuf {
    match std::env::var_os(CONTENT_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../content"),
    }
}

/// The sample content built once into a temporary `dist/` (kept for the whole test binary).
pub fn built() -> &'static Path {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, dist) = DIST.get_or_init(|| {
        // Under cargo's temp folder for tests: a static is never dropped, so the folder stays, and
        // `./tienda probar` empties it before each run (in the system's temp folder they piled up).
        let tmp = env!("CARGO_TARGET_TMPDIR");
        std::fs::create_dir_all(tmp).expect("temp dir");
        let dir = tempfile::tempdir_in(tmp).expect("temp dir");
        let dist = dir.path().join("dist");
        build_into(&sample_dir(), &dist);
        (dir, dist)
    });
    dist
}

/// Builds `content` into `out`, panicking with the build's own message on failure.
pub fn build_into(content: &Path, out: &Path) {
    let options =
        BuildOptions { content: content.to_path_buf(), out: out.to_path_buf(), quiet: true, discard_previous: false };
    if let Err(e) = build(&options) {
        panic!("build of {} failed:\n{e}", content.display());
    }
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `root`, as sorted relative paths.
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path.strip_prefix(root).expect("prefix").to_path_buf());
            }
        }
    }
    files.sort();
    files
}

/// Copies a folder tree.
pub fn copy_tree(from: &Path, to: &Path) {
    for file in files_under(from) {
        let target = to.join(&file);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from.join(&file), &target).expect("copy");
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads one HTTP/1.1 answer (head, then a `Content-Length` body) from a raw byte stream, plain
/// or TLS.
pub fn read_answer(stream: &mut impl std::io::Read) -> (String, Vec<u8>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("answer head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).expect("UTF-8 head");
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
        .expect("content-length")
        .parse()
        .expect("number");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("whole body");
    (head, body)
}

/// The nine study slugs of the sample content.
pub const SLUGS: [&str; 9] = [
    "banca-2026",
    "cadenas-hoteleras-cono-sur-2026",
    "cosmetica-2026",
    "dermatitis-atopica-2026",
    "farma-2026",
    "journey-gemelos-running-2026",
    "reumatologia-2026",
    "seguros-automotores-2026",
    "turismo-sierras-cordoba-2026",
];
