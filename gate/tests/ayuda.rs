//! Every option of the gate's binaries (`gate` and its subcommands, `comprar`,
//! `facilitador-local`) has a description in `--help`, in Spanish.

use std::path::Path;

#[test]
fn every_option_is_described_in_spanish() {
    let binaries: [(&str, &[&[&str]]); 3] = [
        (env!("CARGO_BIN_EXE_gate"), &[&[], &["ventas"], &["ventas", "conciliar"], &["verificar"]]),
        (env!("CARGO_BIN_EXE_comprar"), &[&[], &["verificar-recibo"]]),
        (env!("CARGO_BIN_EXE_facilitador-local"), &[&[]]),
    ];
    let mut problems = Vec::new();
    for (exe, invocations) in binaries {
        for args in invocations {
            problems.extend(cli::binary_help_problems(Path::new(exe), args));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
