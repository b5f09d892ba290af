//! Problems found in the content, each with its place, reported all at once.
//!
//! A publisher fixing a study wants the whole list in one run, each entry saying which file,
//! which line or field, and what was expected. Loading and validation push into a
//! [`Problems`] list instead of stopping at the first error.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    pub file: PathBuf,
    /// Line (`línea 12`), field path (`marcas[2].dominios[0]`), or both.
    pub location: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}: {}: {}", self.file.display(), self.location, self.message)
        }
    }
}

/// Every problem found so far.
#[derive(Debug, Default, Clone)]
pub struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    pub fn push(&mut self, file: &Path, location: impl Into<String>, message: impl Into<String>) {
        self.list.push(Problem { file: file.to_path_buf(), location: location.into(), message: message.into() });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Problem> {
        self.list.iter()
    }

    pub fn extend(&mut self, other: Problems) {
        self.list.extend(other.list);
    }

    /// `Ok(value)` when no problem was found, the problems otherwise.
    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.list.is_empty() { Ok(value) } else { Err(self) }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for problem in &self.list {
            writeln!(f, "{problem}")?;
        }
        let n = self.list.len();
        write!(f, "{n} {}", if n == 1 { "problema" } else { "problemas" })
    }
}

impl std::error::Error for Problems {}

impl Problems {
    /// The list as warnings: one `aviso:` line each and a count (empty when there are none).
    pub fn as_warnings(&self) -> String {
        let mut text = String::new();
        for problem in &self.list {
            text.push_str(&format!("aviso: {problem}\n"));
        }
        if !self.list.is_empty() {
            let n = self.list.len();
            text.push_str(&format!("{n} {}\n", if n == 1 { "aviso" } else { "avisos" }));
        }
        text
    }
}
