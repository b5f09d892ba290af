//! Every option of `synth` and `bench-cambios` has a description in `--help`, in Spanish, and the
//! simulation runs as `BENCHMARKS.md` shows it (here with two pairs of the smallest study).

#[test]
fn every_option_is_described_in_spanish() {
    for binary in [env!("CARGO_BIN_EXE_synth"), env!("CARGO_BIN_EXE_bench-cambios")] {
        let problems = cli::binary_help_problems(std::path::Path::new(binary), &[]);
        assert!(problems.is_empty(), "{binary}: {problems:#?}");
    }
}

#[test]
fn the_change_simulation_prints_one_row_per_study_and_the_total() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bench-cambios"))
        .args(["--pares", "2", "--estudio", "reumatologia-2026"])
        .output()
        .expect("bench-cambios runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<&str> =
        stdout.lines().filter(|l| l.starts_with("| reumatologia-2026 |") || l.starts_with("| todos |")).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    // Columns: study, questions, cells with an interval, cells tested, then before/after pairs:
    // the adjusted false changes are never more than the unadjusted ones.
    let cells: Vec<&str> = rows[0].split('|').map(str::trim).collect();
    let number = |i: usize| cells[i].trim_end_matches(" %").parse::<f64>().unwrap_or_else(|_| panic!("{}", cells[i]));
    assert_eq!(number(2), 72.0, "{}", rows[0]);
    assert!(number(3) > 100.0 && number(4) > 100.0 && number(4) <= number(3), "hundreds of tests: {}", rows[0]);
    assert!(number(6) <= number(5) && number(8) <= number(7) && number(10) <= number(9), "{}", rows[0]);
}
