//! The container image in `deploy/container/Dockerfile`, held to the facts it states without a
//! container engine (this machine has a docker client and no daemon, so the image is not built
//! here: docs/src/operar/contenedor.md says so). The gate accepts every flag the image runs it with; the image
//! serves the same `dist/` and `--data` paths as the systemd unit, runs as a user that is not
//! root, keeps `--data` on a volume, exposes the ports it listens on, checks its health on
//! `/salud` at the buyers' port, builds binaries that exist with a Rust the workspace accepts;
//! and the build context leaves out what must not go into an image.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn dockerfile() -> String {
    std::fs::read_to_string(root().join("deploy/container/Dockerfile")).unwrap()
}

/// The Dockerfile's instructions, continuation lines joined, comments left out.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut joined = Vec::new();
    let mut current = String::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        match line.strip_suffix('\\') {
            Some(start) => current.push_str(start),
            None => {
                current.push_str(line);
                if !current.trim().is_empty() {
                    joined.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    joined
        .iter()
        .map(|l| {
            let (word, rest) = l.trim().split_once(' ').unwrap();
            (word.to_owned(), rest.trim().to_owned())
        })
        .collect()
}

fn only(instructions: &[(String, String)], word: &str) -> String {
    let found: Vec<&String> = instructions.iter().filter(|(w, _)| w == word).map(|(_, r)| r).collect();
    assert_eq!(found.len(), 1, "one {word}");
    found[0].clone()
}

/// A JSON-array (exec form) instruction's words.
fn exec_form(rest: &str) -> Vec<String> {
    serde_json::from_str(rest).unwrap_or_else(|e| panic!("{rest}: exec form expected ({e})"))
}

/// The value after `flag` among `words`.
fn flag<'a>(words: &'a [String], flag: &str) -> &'a str {
    let at = words.iter().position(|w| w == flag).unwrap_or_else(|| panic!("{flag} in {words:?}"));
    &words[at + 1]
}

fn port(address: &str) -> &str {
    address.rsplit_once(':').unwrap().1
}

#[test]
fn the_gate_accepts_every_flag_the_image_passes() {
    let all = instructions(&dockerfile());
    let entrypoint = exec_form(&only(&all, "ENTRYPOINT"));
    assert_eq!(entrypoint, ["/usr/local/bin/gate"]);
    let cmd = exec_form(&only(&all, "CMD"));
    // clap refuses an unknown or malformed flag before it gets to --version.
    let output = Command::new(env!("CARGO_BIN_EXE_gate")).args(&cmd).arg("--version").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // The binary it copies is the one the entrypoint runs.
    assert!(all.iter().any(|(w, r)| w == "COPY" && r.ends_with("/target/release/gate /usr/local/bin/gate")));
}

#[test]
fn the_image_matches_the_systemd_unit_and_itself() {
    let all = instructions(&dockerfile());
    let cmd = exec_form(&only(&all, "CMD"));
    let unit = std::fs::read_to_string(root().join("deploy/systemd/estudios-ia-gate.service")).unwrap();
    let exec: Vec<String> = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    // The same dist/ and data paths as the unit, and the same buyers' port.
    assert_eq!(flag(&cmd, "--dist"), flag(&exec, "--dist"));
    assert_eq!(flag(&cmd, "--datos"), flag(&exec, "--datos"));
    assert_eq!(port(flag(&cmd, "--escuchar")), port(flag(&exec, "--escuchar")));
    // dist/ is where the build stage's generator wrote it.
    let dist = flag(&cmd, "--dist");
    assert!(all.iter().any(|(w, r)| w == "COPY" && r == &format!("--from=build /dist {dist}")), "{all:?}");
    // --data is the volume, and the gate's user owns it.
    let data = flag(&cmd, "--datos");
    assert_eq!(only(&all, "VOLUME"), data);
    let user = only(&all, "USER");
    assert!(user != "root" && user != "0", "the gate does not run as root");
    assert!(
        all.iter().any(|(w, r)| w == "RUN" && r.contains(&format!("install -d -o {user} -g {user} -m 0700 {data}")))
    );
    // Both listeners are exposed; the health check asks /salud on the buyers' port.
    let expose = only(&all, "EXPOSE");
    let exposed: Vec<&str> = expose.split_whitespace().collect();
    let buyers = port(flag(&cmd, "--escuchar"));
    let metrics = port(flag(&cmd, "--escuchar-metricas"));
    assert_eq!(exposed, [buyers, metrics]);
    let health = only(&all, "HEALTHCHECK");
    assert!(health.contains(&format!("http://127.0.0.1:{buyers}{}", gate::telemetry::LIVENESS_PATH)), "{health}");
    // No secret in the image: no ENV and no ARG carries one.
    for (word, rest) in &all {
        assert!(!(word == "ENV" || word == "ARG") || !rest.contains("GATE_"), "{word} {rest}");
    }
}

#[test]
fn the_build_stage_builds_what_exists_with_a_rust_the_workspace_accepts() {
    let all = instructions(&dockerfile());
    let from: Vec<&String> = all.iter().filter(|(w, _)| w == "FROM").map(|(_, r)| r).collect();
    assert!(from[0].ends_with(" AS build"), "{}", from[0]);
    let build = from[0].split_whitespace().next().unwrap().strip_prefix("rust:").unwrap();
    let (version, _) = build.split_once('-').unwrap();
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let wanted = workspace.lines().find_map(|l| l.strip_prefix("rust-version = ")).unwrap().trim_matches('"');
    let parse = |v: &str| v.split('.').map(|n| n.parse::<u32>().unwrap()).collect::<Vec<_>>();
    assert!(parse(version) >= parse(wanted), "rust:{version} builds a workspace of rust-version {wanted}");
    // The runtime image has the build image's Debian (the binary's glibc).
    let debian = build.split_once('-').unwrap().1;
    assert_eq!(from[1], &format!("debian:{debian}-slim"));
    let run = all.iter().find(|(w, r)| w == "RUN" && r.contains("cargo build")).unwrap();
    for bin in run.1.split("--bin ").skip(1).map(|s| s.split_whitespace().next().unwrap()) {
        let manifest = std::fs::read_to_string(root().join(bin).join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("name = \"{bin}\"")), "the binary {bin} exists");
    }
    assert!(run.1.contains("--locked"), "the lock file's versions");
}

#[test]
fn the_build_context_leaves_out_builds_data_and_history() {
    let ignored = std::fs::read_to_string(root().join(".dockerignore")).unwrap();
    let entries: Vec<&str> = ignored.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    for needed in ["target", "dist", "var", ".git"] {
        assert!(entries.contains(&needed), ".dockerignore leaves out {needed}");
    }
}
