//! The safety net of the sample content: synth at seed 2026, scale 1, writes exactly the
//! files committed under `content/estudios/<slug>/`, byte for byte. A change to the engine,
//! the industry specs or the serialisation that alters the sample fails here first.

use std::fs;
use std::path::{Path, PathBuf};

fn content_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../content")
}

#[test]
fn seed_2026_scale_1_writes_the_committed_sample() {
    let tmp = tempfile::tempdir().expect("temporary folder");
    synth::run(&synth::SynthOptions { out: tmp.path().to_path_buf(), scale: 1, seed: 2026 }).expect("synth runs");
    let written = tmp.path().join("estudios");
    let committed = content_dir().join("estudios");
    let mut slugs: Vec<String> = fs::read_dir(&written)
        .expect("written studies")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    slugs.sort();
    // Every committed study with an estudio.toml is a synth study, and the reverse.
    let mut expected: Vec<String> = fs::read_dir(&committed)
        .expect("committed studies")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("estudio.toml").is_file())
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    expected.sort();
    assert_eq!(slugs, expected, "the studies synth writes are the committed ones");
    let mut files = 0;
    for slug in &slugs {
        for entry in fs::read_dir(written.join(slug)).expect("study folder") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_owned();
            let ours = fs::read(&path).expect("written file");
            let theirs = fs::read(committed.join(slug).join(&name))
                .unwrap_or_else(|e| panic!("{slug}/{}: not committed ({e})", name.to_string_lossy()));
            assert!(ours == theirs, "{slug}/{}: synth output differs from the committed file", name.to_string_lossy());
            files += 1;
        }
    }
    assert_eq!(files, 5 * slugs.len(), "five files a study");
}
