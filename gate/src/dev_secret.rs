//! Development secrets kept in the data folder, for local mode only.
//!
//! Outside local mode every secret comes from the environment. On a developer's machine a gate
//! started without one makes it once (random bytes, written as hex with mode 0600) and reads it
//! back at every start, so signed links and signed receipts stay valid across restarts. The
//! link key and the receipt key both live this way; each caller decodes the text itself.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use anyhow::{Context, Result, bail};
use rand::RngCore;

/// The hex text of the secret file at `path` (inside `data_dir`), created with `bytes` random
/// bytes the first time. An existing file others can read is refused.
pub fn read_or_create(data_dir: &Path, path: &Path, bytes: usize) -> Result<String> {
    if path.exists() {
        let mode = std::fs::metadata(path)
            .with_context(|| format!("no se pudo leer {}", path.display()))?
            .permissions()
            .mode()
            & 0o777;
        if mode & 0o077 != 0 {
            bail!("{} tiene permisos {mode:o}; debe ser 600", path.display());
        }
        let text = std::fs::read_to_string(path).with_context(|| format!("no se pudo leer {}", path.display()))?;
        return Ok(text.trim().to_owned());
    }
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("no se pudo crear la carpeta de datos {}", data_dir.display()))?;
    let mut secret = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut secret);
    let text = hex::encode(&secret);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("no se pudo crear {}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("no se pudo escribir {}", path.display()))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_made_once_private_and_read_back() {
        let dir = tempfile::tempdir().expect("dir");
        let data = dir.path().join("datos");
        let path = data.join("clave");
        let made = read_or_create(&data, &path, 32).expect("made");
        assert_eq!(made.len(), 64);
        assert_eq!(std::fs::metadata(&path).expect("file").permissions().mode() & 0o777, 0o600);
        assert_eq!(read_or_create(&data, &path, 32).expect("read"), made, "the same key at every start");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(read_or_create(&data, &path, 32).is_err(), "a key others can read is refused");
    }
}
