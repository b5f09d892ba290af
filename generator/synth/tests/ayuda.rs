//! Every option of `synth` has a description in `--help`, in Spanish.

#[test]
fn every_option_is_described_in_spanish() {
    let problems = cli::binary_help_problems(std::path::Path::new(env!("CARGO_BIN_EXE_synth")), &[]);
    assert!(problems.is_empty(), "{problems:#?}");
}
