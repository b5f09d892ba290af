//! The systemd unit in `deploy/systemd/` as systemd itself reads it: `systemd-analyze verify`
//! accepts it without a warning, the gate accepts every flag its `ExecStart` passes, and the
//! example environment file holds no shell (an EnvironmentFile runs no command).

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

const UNIT: &str = "estudios-ia-gate.service";
const INSTALLED_BINARY: &str = "/usr/local/bin/gate";

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/systemd")
}

fn unit_text() -> String {
    std::fs::read_to_string(deploy_dir().join(UNIT)).unwrap()
}

/// The `ExecStart=` line's words, the binary first.
fn exec_start(unit: &str) -> Vec<String> {
    let line = unit.lines().find_map(|l| l.strip_prefix("ExecStart=")).expect("the unit has an ExecStart");
    line.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn systemd_analyze_verifies_the_unit_without_a_warning() {
    let analyze = Command::new("systemd-analyze").arg("--version").output();
    assert!(
        analyze.is_ok_and(|o| o.status.success()),
        "falta systemd-analyze (paquete systemd): ./tienda probar lo instala"
    );
    // The same unit, with the binary under test where the installed one would be.
    let unit = unit_text();
    assert_eq!(exec_start(&unit)[0], INSTALLED_BINARY);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(UNIT);
    std::fs::write(&path, unit.replace(INSTALLED_BINARY, env!("CARGO_BIN_EXE_gate"))).unwrap();
    let verified = Command::new("systemd-analyze").arg("verify").arg(&path).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&verified.stdout), String::from_utf8_lossy(&verified.stderr));
    assert!(verified.status.success(), "systemd-analyze verify falló:\n{said}");
    // A misspelt key is only a warning for systemd; here it is a failure.
    let about_the_unit: Vec<&str> = said.lines().filter(|l| l.contains(UNIT)).collect();
    assert!(about_the_unit.is_empty(), "systemd-analyze avisa sobre la unidad:\n{}", about_the_unit.join("\n"));
}

#[test]
fn systemd_analyze_would_catch_a_misspelt_key() {
    // The check above can fail: the same unit with one unknown key is reported.
    let unit = unit_text().replace("[Service]\n", "[Service]\nRestartSecs=2\n");
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(UNIT);
    std::fs::write(&path, unit.replace(INSTALLED_BINARY, env!("CARGO_BIN_EXE_gate"))).unwrap();
    let verified = Command::new("systemd-analyze").arg("verify").arg(&path).output().unwrap();
    assert!(String::from_utf8_lossy(&verified.stderr).contains("RestartSecs"));
}

#[test]
fn the_gate_accepts_every_flag_the_unit_passes() {
    let words = exec_start(&unit_text());
    // clap rejects an unknown or malformed flag before it gets to --version.
    let output = Command::new(env!("CARGO_BIN_EXE_gate")).args(&words[1..]).arg("--version").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let state = unit_text();
    assert!(state.contains("StateDirectory=estudios-ia") && words.contains(&"/var/lib/estudios-ia".to_owned()));
}

#[test]
fn the_environment_example_holds_literal_values_only() {
    let example = std::fs::read_to_string(deploy_dir().join("gate.env.example")).unwrap();
    let settings: Vec<&str> = example.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).collect();
    assert_eq!(settings, ["GATE_LINK_SECRET=", "GATE_RECEIPT_KEY="], "only the secrets to fill in are active");
    for line in example.lines().filter(|l| l.contains('=')) {
        assert!(!line.contains("$(") && !line.contains('`'), "{line}: an EnvironmentFile runs no command");
    }
    assert!(unit_text().contains("EnvironmentFile=/etc/estudios-ia/gate.env"));
}
