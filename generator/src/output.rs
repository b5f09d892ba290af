//! Stage 7, output: every file of a build, hashed once, and the folder it is written into.
//!
//! [`Output`] maps each path in `dist/` to its size and sha256 (and its bytes until they are
//! written); the study sheets, the manifest and `SHA256SUMS` all read that one hash. The
//! large paid files are written into the [`Staging`] folder as soon as their study is packaged
//! (in parallel, and without holding every study in memory); the rest at the end.
//!
//! Everything is written into a temporary folder next to the output, which replaces the old
//! output only once the whole build succeeded: a failed build never leaves a half-written
//! `dist/`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The build output: relative path → size and sha256, sorted.
#[derive(Default)]
pub struct Output {
    files: BTreeMap<String, OutputFile>,
}

struct OutputFile {
    /// `None` once the file is in the staging folder.
    bytes: Option<Vec<u8>>,
    len: u64,
    sha256: String,
}

impl Output {
    /// Adds a file to be written at the end; two files with one path are an error.
    pub fn add(&mut self, path: impl Into<String>, bytes: Vec<u8>) -> Result<()> {
        let sha256 = sha256_hex(&bytes);
        self.insert(path.into(), OutputFile { len: bytes.len() as u64, bytes: Some(bytes), sha256 })
    }

    /// [`Output::add`] for each `(path, bytes)`.
    pub fn add_all(&mut self, files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Result<()> {
        files.into_iter().try_for_each(|(path, bytes)| self.add(path, bytes))
    }

    /// Records a file already written into the staging folder.
    pub fn add_written(&mut self, path: impl Into<String>, file: &WrittenFile) -> Result<()> {
        self.insert(path.into(), OutputFile { bytes: None, len: file.len, sha256: file.sha256.clone() })
    }

    fn insert(&mut self, path: String, file: OutputFile) -> Result<()> {
        if self.files.contains_key(&path) {
            bail!("dos salidas con la misma ruta: {path}");
        }
        self.files.insert(path, file);
        Ok(())
    }

    /// Size and sha256 of a file.
    pub fn get(&self, path: &str) -> Option<(u64, &str)> {
        self.files.get(path).map(|f| (f.len, f.sha256.as_str()))
    }

    /// Every path with its sha256, in path order.
    pub fn hashes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(path, file)| (path.as_str(), file.sha256.as_str()))
    }

    /// How many files the build produced.
    pub fn count(&self) -> usize {
        self.files.len()
    }

    pub fn total_bytes(&self) -> u64 {
        self.files.values().map(|f| f.len).sum()
    }

    /// Writes every file not yet in the staging folder.
    pub fn write_into(&self, staging: &Staging) -> Result<()> {
        for (path, file) in &self.files {
            if let Some(bytes) = &file.bytes {
                staging.write(path, bytes)?;
            }
        }
        Ok(())
    }
}

/// Size and sha256 of a file written into the staging folder.
#[derive(Debug, Clone)]
pub struct WrittenFile {
    pub len: u64,
    pub sha256: String,
}

/// sha256 of bytes as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        // Writing into a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The folder a build writes into, next to the output. It replaces the output only when the
/// whole build succeeded ([`Staging::replace_output`]); dropped before that (an error, a
/// panic), it is removed and the previous output stays as it was.
pub struct Staging {
    dir: PathBuf,
    out: PathBuf,
    previous: PathBuf,
    done: bool,
}

impl Staging {
    pub fn create(out: &Path) -> Result<Staging> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).with_context(|| format!("no se pudo crear {}", parent.display()))?;
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "dist".into());
        let dir = parent.join(format!(".{name}.nuevo-{}", std::process::id()));
        let previous = parent.join(format!(".{name}.anterior-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("no se pudo crear {}", dir.display()))?;
        Ok(Staging { dir, out: out.to_path_buf(), previous, done: false })
    }

    /// Writes `bytes` at `path` (relative to the output root), creating its folders.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<()> {
        let file = self.dir.join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("no se pudo crear {}", dir.display()))?;
        }
        std::fs::write(&file, bytes).with_context(|| format!("no se pudo escribir {}", file.display()))
    }

    /// [`Staging::write`], returning the file's size and sha256.
    pub fn write_hashed(&self, path: &str, bytes: &[u8]) -> Result<WrittenFile> {
        self.write(path, bytes)?;
        Ok(WrittenFile { len: bytes.len() as u64, sha256: sha256_hex(bytes) })
    }

    /// Moves a file already written into the staging folder to another path in it.
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        let (from, to) = (self.dir.join(from), self.dir.join(to));
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("no se pudo crear {}", dir.display()))?;
        }
        std::fs::rename(&from, &to).with_context(|| format!("no se pudo mover {} a {}", from.display(), to.display()))
    }

    /// Renames the staging folder over the output (the old output is removed after).
    pub fn replace_output(mut self) -> Result<()> {
        if self.out.exists() {
            std::fs::rename(&self.out, &self.previous)
                .with_context(|| format!("no se pudo apartar {}", self.out.display()))?;
        }
        match std::fs::rename(&self.dir, &self.out) {
            Ok(()) => {
                self.done = true;
                let _ = std::fs::remove_dir_all(&self.previous);
                Ok(())
            }
            Err(e) => {
                // Put the previous output back.
                let _ = std::fs::rename(&self.previous, &self.out);
                Err(e).with_context(|| format!("no se pudo reemplazar {}", self.out.display()))
            }
        }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_matches_known_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
