//! The study files a sale embeds, and the answer built around one without copying it.
//!
//! A paid answer is a small JSON head (the access block with the signed links), the view's
//! file as the generator wrote it (1.2 MB for the full package of `banca-2026`), and a small
//! tail (the settlement and the receipt). Reading the file for every sale cost a tenth of the
//! gate's CPU per purchase (a `read` of the whole file from the page cache, on the blocking
//! pool). `dist/` does not change while it is loaded, so each file is read once, at its first
//! sale, and kept in memory for as long as that `dist/` is served, up to a budget; beyond the
//! budget a file is read per sale as before. The answer then holds the file's bytes by
//! reference ([`Spliced`]): no copy of the study in user space from the file to the socket.
//!
//! The study is still in memory, whole, before the facilitator is asked to settle: producing
//! the answer cannot fail after the money moved.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use bytes::Bytes;

/// Bytes of study files kept in memory per loaded `dist/` (every view file of a catalog of a
/// hundred studies like the sample's fits).
pub const STUDY_MEMORY: usize = 512 * 1024 * 1024;

/// A paid answer in three parts: the head, the study file and the tail. Together they are one
/// JSON object.
#[derive(Debug, Clone)]
pub struct Spliced {
    pub head: Bytes,
    pub study: Bytes,
    pub tail: Vec<u8>,
}

impl Spliced {
    /// Bytes of the whole answer.
    pub fn len(&self) -> usize {
        self.head.len() + self.study.len() + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `"key":value` as the object's last field (in the tail, without touching the study).
    pub fn with_field(mut self, key: &str, value: &[u8]) -> Spliced {
        if self.tail.last() == Some(&b'}') {
            self.tail.pop();
            self.tail.extend_from_slice(b",\"");
            self.tail.extend_from_slice(key.as_bytes());
            self.tail.extend_from_slice(b"\":");
            self.tail.extend_from_slice(value);
            self.tail.push(b'}');
        }
        self
    }

    /// The parts, for a writer that sends them one after the other.
    pub fn into_parts(self) -> Vec<Bytes> {
        vec![self.head, self.study, Bytes::from(self.tail)]
    }

    /// The whole answer in one buffer (the MCP result embeds it as text).
    pub fn to_bytes(&self) -> Bytes {
        let mut out = Vec::with_capacity(self.len());
        out.extend_from_slice(&self.head);
        out.extend_from_slice(&self.study);
        out.extend_from_slice(&self.tail);
        Bytes::from(out)
    }
}

/// The study files sold from one loaded `dist/`, kept after their first sale.
#[derive(Debug)]
pub struct StudyFiles {
    kept: parking_lot::Mutex<BTreeMap<PathBuf, Bytes>>,
    /// Bytes of the budget not yet taken.
    left: AtomicUsize,
}

impl StudyFiles {
    pub fn new(budget: usize) -> StudyFiles {
        StudyFiles { kept: Default::default(), left: AtomicUsize::new(budget) }
    }

    /// The file's JSON without its surrounding whitespace: from memory, or read now (on the
    /// blocking pool) and kept if the budget allows.
    pub async fn get(&self, path: &Path) -> Result<Bytes> {
        if let Some(bytes) = self.kept.lock().get(path) {
            return Ok(bytes.clone());
        }
        let owned = path.to_path_buf();
        let bytes = tokio::task::spawn_blocking(move || read_trimmed(&owned))
            .await?
            .with_context(|| format!("no se pudo leer {}", path.display()))?;
        let taken = self.left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| left.checked_sub(bytes.len()));
        if taken.is_ok() {
            let mut kept = self.kept.lock();
            if kept.insert(path.to_path_buf(), bytes.clone()).is_some() {
                // Another sale of the same file read it at the same time: one copy is kept.
                self.left.fetch_add(bytes.len(), Ordering::AcqRel);
            }
        }
        Ok(bytes)
    }

    /// Bytes held in memory.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.kept.lock().values().map(Bytes::len).sum()
    }
}

/// A file's bytes without leading and trailing ASCII whitespace.
fn read_trimmed(path: &Path) -> std::io::Result<Bytes> {
    let bytes = Bytes::from(std::fs::read(path)?);
    let start = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let end = bytes.len() - bytes[start..].iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    Ok(bytes.slice(start..end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_file_is_read_once_within_the_budget_and_per_sale_beyond_it() {
        let dir = tempfile::tempdir().unwrap();
        let (small, large) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&small, "\n  {\"a\":1}\n\n").unwrap();
        std::fs::write(&large, format!("{{\"b\":\"{}\"}}", "x".repeat(100))).unwrap();
        let files = StudyFiles::new(50);
        assert_eq!(files.get(&small).await.unwrap(), Bytes::from_static(b"{\"a\":1}"), "trimmed");
        assert_eq!(files.held(), 7);
        // Kept: the file may change on disk, the loaded dist/ does not.
        std::fs::write(&small, "{\"a\":2}").unwrap();
        assert_eq!(files.get(&small).await.unwrap(), Bytes::from_static(b"{\"a\":1}"));
        // Over the budget: read each time, never kept.
        assert_eq!(files.get(&large).await.unwrap().len(), 108);
        assert_eq!(files.held(), 7);
        std::fs::remove_file(&large).unwrap();
        assert!(files.get(&large).await.is_err(), "a missing file is an error, not a stale copy");
    }

    #[test]
    fn a_field_goes_into_the_tail_and_the_parts_are_one_object() {
        let answer = Spliced {
            head: Bytes::from_static(b"{\"h\":1,\"p\":"),
            study: Bytes::from_static(b"[1,2]"),
            tail: b"}".to_vec(),
        };
        let answer = answer.with_field("liquidacion", br#"{"t":"0x1"}"#).with_field("reacceso", b"true");
        let whole: serde_json::Value = serde_json::from_slice(&answer.to_bytes()).unwrap();
        assert_eq!(whole, serde_json::json!({"h": 1, "p": [1, 2], "liquidacion": {"t": "0x1"}, "reacceso": true}));
        assert_eq!(answer.len(), answer.to_bytes().len());
        assert_eq!(answer.clone().into_parts().concat(), answer.to_bytes().to_vec());
    }
}
