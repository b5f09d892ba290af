//! Writes the command reference generated from the clap definitions: the book's pages
//! (`docs/src/referencia/`) and the man pages (`docs/man/`). Run it after changing a flag, an
//! environment variable or a metric: `cargo run -p tests --bin referencia`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let repository = tests::reference::repository();
    for dir in [tests::reference::PAGES_DIR, tests::reference::MAN_DIR] {
        // What the code no longer generates goes: the folders hold only generated files.
        let dir = repository.join(dir);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    for (path, bytes) in tests::reference::generated_files() {
        let path = repository.join(path);
        if let Err(e) = std::fs::create_dir_all(path.parent().expect("a file has a folder"))
            .and_then(|()| std::fs::write(&path, bytes))
        {
            eprintln!("referencia: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.strip_prefix(&repository).unwrap_or(&path).display());
    }
    ExitCode::SUCCESS
}
