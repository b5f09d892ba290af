//! Every option of `generator` and its subcommands has a description in `--help`, in Spanish.

use std::path::Path;

#[test]
fn every_option_is_described_in_spanish() {
    let exe = Path::new(env!("CARGO_BIN_EXE_generator"));
    let problems: Vec<String> = [&[][..], &["check"], &["build"], &["informes"]]
        .iter()
        .flat_map(|args| cli::binary_help_problems(exe, args))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}
