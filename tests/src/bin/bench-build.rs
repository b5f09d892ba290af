//! Build benchmark: the generator against the compress-and-hash floor, in one run.
//!
//! For the sample content and `synth` corpora 10× and 100× larger it prints the build time,
//! the time of `zip -r -6` plus `sha256sum` over the same produced files (what any build
//! that compresses and hashes its output must at least spend), their ratio, and the speed-up
//! of 2 rayon threads over 1. Run it in release mode:
//!
//! ```sh
//! cargo run --release -p tests --bin bench-build [-- --escalas 1,10,100]
//! ```
//!
//! With `--corrida-anterior` it measures instead what the previous runs cost: per scale, the
//! `synth` corpus as written (three studies carry a previous run and its change tables)
//! against the same corpus written with `--sin-corrida-anterior` (the same answers of this
//! run, as first runs), built alternately (best of two each), plus the floor ratio of the
//! corpus with them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use tests::programs::bench_build::Args;

fn main() {
    if let Err(e) = run() {
        eprintln!("bench-build: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Args = cli::parse();
    if args.previous_run {
        return run_previous(&args.scales);
    }
    let scales = args.scales;
    let (root, generator, synth, work) = binaries_and_work_dir()?;
    println!(
        "{:>7} {:>9} {:>11} {:>11} {:>12} {:>7} {:>9}",
        "escala", "answers", "build 2t s", "build 1t s", "zip+sha s", "ratio", "speed-up"
    );
    for scale in scales {
        let content = if scale == 1 {
            root.join("tests/muestra")
        } else {
            let dir = work.join(format!("content-{scale}"));
            run_cmd(
                Command::new(&synth)
                    .args(["--escala", &scale.to_string(), "--content"])
                    .arg(root.join("tests/muestra"))
                    .arg("--out")
                    .arg(&dir),
            )?;
            dir
        };
        let answers = count_answers(&content)?;
        let out = work.join(format!("dist-{scale}"));
        let two = time_build(&generator, &content, &out, 2)?;
        let one = time_build(&generator, &content, &out, 1)?;
        let floor = zip_and_hash(&out, &work.join(format!("floor-{scale}.zip")))?;
        println!(
            "{:>7} {:>9} {:>11.3} {:>11.3} {:>12.3} {:>7.2} {:>9.2}",
            format!("{scale}x"),
            answers,
            two.as_secs_f64(),
            one.as_secs_f64(),
            floor.as_secs_f64(),
            two.as_secs_f64() / floor.as_secs_f64(),
            one.as_secs_f64() / two.as_secs_f64()
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "ratio = build (2 threads) / (zip -r -6 + sha256sum over the produced files); speed-up = build 1 thread / build 2 threads"
    );
    Ok(())
}

/// The repository root, the release `generator` and `synth` (named as they are printed), and a
/// fresh work folder for this run.
fn binaries_and_work_dir() -> Result<(PathBuf, PathBuf, PathBuf, PathBuf), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let generator = release_binary(&root, "generator")?;
    let synth = release_binary(&root, "synth")?;
    let work = std::env::temp_dir().join(format!("bench-build-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    println!("generator: {}", generator.display());
    println!("synth: {}", synth.display());
    Ok((root, generator, synth, work))
}

/// The `--corrida-anterior` comparison: per scale, the build with the previous runs against
/// without them, in the same invocation.
fn run_previous(scales: &[u32]) -> Result<(), String> {
    let (root, generator, synth, work) = binaries_and_work_dir()?;
    println!(
        "{:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>10} {:>7}",
        "escala", "answers", "previous", "without s", "with s", "with/w.o", "zip+sha s", "ratio"
    );
    for &scale in scales {
        let corpus = |name: &str, without: bool| -> Result<PathBuf, String> {
            let dir = work.join(format!("content-{scale}-{name}"));
            let mut command = Command::new(&synth);
            command
                .args(["--escala", &scale.to_string(), "--content"])
                .arg(root.join("tests/muestra"))
                .arg("--out")
                .arg(&dir);
            if without {
                command.arg("--sin-corrida-anterior");
            }
            run_cmd(&mut command)?;
            Ok(dir)
        };
        let (with, without) = (corpus("con", false)?, corpus("sin", true)?);
        let answers = count_answers(&with)?;
        let previous = count_previous_answers(&with)?;
        if count_answers(&without)? != answers || count_previous_answers(&without)? != 0 {
            return Err(format!("escala {scale}: the corpus without previous runs is not the same run"));
        }
        let (out_with, out_without) = (work.join(format!("dist-{scale}-con")), work.join(format!("dist-{scale}-sin")));
        // Alternate the two builds, best of two each, so a change in the machine's load
        // falls on both.
        let (mut t_with, mut t_without) = (Duration::MAX, Duration::MAX);
        for _ in 0..2 {
            t_without = t_without.min(build_once(&generator, &without, &out_without, 2)?);
            t_with = t_with.min(build_once(&generator, &with, &out_with, 2)?);
        }
        let _ = std::fs::remove_dir_all(&out_without);
        let floor = zip_and_hash(&out_with, &work.join(format!("floor-{scale}.zip")))?;
        println!(
            "{:>7} {:>9} {:>9} {:>10.3} {:>10.3} {:>9.2} {:>10.3} {:>7.2}",
            format!("{scale}x"),
            answers,
            previous,
            t_without.as_secs_f64(),
            t_with.as_secs_f64(),
            t_with.as_secs_f64() / t_without.as_secs_f64(),
            floor.as_secs_f64(),
            t_with.as_secs_f64() / floor.as_secs_f64()
        );
        let _ = std::fs::remove_dir_all(&out_with);
        let _ = std::fs::remove_dir_all(&with);
        let _ = std::fs::remove_dir_all(&without);
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "answers = this run's; previous = the previous runs' (anterior/); with/w.o = build (2 threads) with them / without; ratio = build with them / (zip -r -6 + sha256sum over its files)"
    );
    Ok(())
}

/// A release binary of the workspace (`generator`, `synth`) beside this benchmark binary,
/// built from package `name` when it is not there yet.
fn release_binary(root: &Path, name: &str) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let candidate = exe.with_file_name(name);
    if candidate.is_file() {
        return Ok(candidate);
    }
    run_cmd(Command::new("cargo").args(["build", "--release", "-p", name]).current_dir(root))?;
    if candidate.is_file() { Ok(candidate) } else { Err(format!("no {name} at {}", candidate.display())) }
}

fn time_build(generator: &Path, content: &Path, out: &Path, threads: u32) -> Result<Duration, String> {
    // Best of two runs, to keep page-cache effects out of the comparison.
    let mut best = Duration::MAX;
    for _ in 0..2 {
        best = best.min(build_once(generator, content, out, threads)?);
    }
    Ok(best)
}

fn build_once(generator: &Path, content: &Path, out: &Path, threads: u32) -> Result<Duration, String> {
    let started = Instant::now();
    run_cmd(
        Command::new(generator)
            .env("RAYON_NUM_THREADS", threads.to_string())
            .args(["build", "--quiet", "--content"])
            .arg(content)
            .arg("--out")
            .arg(out),
    )?;
    Ok(started.elapsed())
}

/// `zip -r -6` of the produced files plus `sha256sum` of every produced file.
fn zip_and_hash(dist: &Path, zip: &Path) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    for _ in 0..2 {
        let _ = std::fs::remove_file(zip);
        let started = Instant::now();
        run_cmd(Command::new("zip").args(["-r", "-6", "-q"]).arg(zip).arg(".").current_dir(dist))?;
        run_cmd(
            Command::new("sh")
                .arg("-c")
                .arg("find . -type f -print0 | xargs -0 sha256sum > /dev/null")
                .current_dir(dist),
        )?;
        best = best.min(started.elapsed());
    }
    Ok(best)
}

fn count_answers(content: &Path) -> Result<usize, String> {
    let mut total = 0;
    for entry in std::fs::read_dir(content.join("estudios")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path().join("respuestas.jsonl");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        total += text.lines().filter(|l| !l.trim().is_empty()).count();
    }
    Ok(total)
}

/// Answers of the previous runs (`estudios/*/anterior/respuestas.jsonl`).
fn count_previous_answers(content: &Path) -> Result<usize, String> {
    let mut total = 0;
    for entry in std::fs::read_dir(content.join("estudios")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path().join("anterior/respuestas.jsonl");
        if let Ok(text) = std::fs::read_to_string(&path) {
            total += text.lines().filter(|l| !l.trim().is_empty()).count();
        }
    }
    Ok(total)
}

fn run_cmd(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
