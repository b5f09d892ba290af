//! Helpers shared by the generator's integration tests.

use std::path::{Path, PathBuf};

/// The sample content the tests carry (`tests/muestra/`): a publisher who replaces
/// `content/` does not change what these tests read.
pub(crate) fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra")
}

/// Copies a folder tree (so a test can break its own copy of the content).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
