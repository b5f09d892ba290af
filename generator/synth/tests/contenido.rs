//! The safety net of the sample content: synth at seed 2026, scale 1, writes exactly the
//! files of the sample the tests carry, `tests/muestra/estudios/<slug>/`, byte for byte. A
//! change to the engine, the industry specs or the serialisation that alters the sample fails
//! here first. It reads the sample, not `content/`: a publisher's own studies there are none of
//! synth's business.

use std::fs;
use std::path::{Path, PathBuf};

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/muestra")
}

#[test]
fn seed_2026_scale_1_writes_the_committed_sample() {
    let tmp = tempfile::tempdir().expect("temporary folder");
    synth::run(&synth::SynthOptions { out: tmp.path().to_path_buf(), scale: 1, seed: 2026, without_previous: false })
        .expect("synth runs");
    let written = tmp.path().join("estudios");
    let committed = sample_dir().join("estudios");
    let mut slugs: Vec<String> = fs::read_dir(&written)
        .expect("written studies")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    slugs.sort();
    // Every sample study is a synth study, and the reverse.
    let mut expected: Vec<String> = fs::read_dir(&committed)
        .expect("committed studies")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("estudio.toml").is_file())
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    expected.sort();
    assert_eq!(slugs, expected, "the studies synth writes are the committed ones");
    let mut files = 0;
    let mut previous_runs = 0;
    for slug in &slugs {
        let mut names: Vec<String> = Vec::new();
        for entry in fs::read_dir(written.join(slug)).expect("study folder") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_string_lossy().into_owned();
            if path.is_dir() {
                // `anterior/`: the previous run's questions and answers.
                previous_runs += 1;
                for inner in fs::read_dir(&path).expect("previous run") {
                    let inner = inner.expect("entry").file_name().to_string_lossy().into_owned();
                    names.push(format!("{name}/{inner}"));
                }
            } else {
                names.push(name);
            }
        }
        for name in names {
            let ours = fs::read(written.join(slug).join(&name)).expect("written file");
            let theirs = fs::read(committed.join(slug).join(&name))
                .unwrap_or_else(|e| panic!("{slug}/{name}: not committed ({e})"));
            assert!(ours == theirs, "{slug}/{name}: synth output differs from the committed file");
            files += 1;
        }
    }
    assert!(previous_runs >= 3, "at least three studies carry a previous run");
    assert_eq!(files, 5 * slugs.len() + 2 * previous_runs, "five files a study, two more with a previous run");
}
