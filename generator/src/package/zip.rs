//! The reproducible ZIP a buyer downloads: the same entries give the same bytes.
//!
//! The size and sha256 of every download are published (in the study sheets and in
//! `dist/gate.json`), so two builds of the same content must produce the same bytes, on any day
//! and on any Linux machine. Nothing here reads the clock: every entry's time is the study's
//! publication date; entries are sorted; the compression method and level are pinned.
//!
//! Why Deflate only: the `zip` crate can also write zstd, bzip2 or LZMA, but Windows Explorer's
//! built-in handler, Info-ZIP `unzip` 6.00 and Python's `zipfile` cannot read zstd (method 93).
//! Buyers may open these files with any of those tools, so every entry is Deflated (Stored when
//! empty). Entry names are ASCII because a non-ASCII name sets the UTF-8 flag, which older
//! unzippers ignore.

use std::borrow::Cow;
use std::io::{Cursor, Write};

use anyhow::{Context, Result, bail, ensure};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

use super::date::Date;

/// Deflate level of every ZIP entry. Pinned: another level gives other bytes.
const DEFLATE_LEVEL: i64 = 6;
/// Unix permissions of every ZIP entry.
const ENTRY_PERMISSIONS: u32 = 0o644;
/// One file inside a ZIP (its bytes borrowed when the caller still needs them).
pub struct ZipEntry<'a> {
    pub name: String,
    pub bytes: Cow<'a, [u8]>,
}

/// A reproducible ZIP: entries sorted by name (duplicate names are an error), Deflate at a
/// pinned level (6), every entry's mtime = `date` at 00:00:00, unix permissions 0o644 with
/// `System::Unix`, seekable writer into a Vec (sizes in local headers), no extra fields, names
/// must be ASCII (error otherwise). `date` is "YYYY-MM-DD" (error if invalid).
pub fn write_zip(mut entries: Vec<ZipEntry<'_>>, date: &str) -> Result<Vec<u8>> {
    let date = Date::parse(date)?;
    let mtime = DateTime::from_date_and_time(date.year, date.month, date.day, 0, 0, 0)
        .map_err(|_| anyhow::anyhow!("fecha {date} fuera del rango de ZIP (1980 a 2107)"))?;
    for entry in &entries {
        check_entry_name(&entry.name)?;
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = entries.windows(2).find(|w| w[0].name == w[1].name) {
        bail!("el ZIP tendría dos entradas con el nombre `{}`", pair[0].name);
    }
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for entry in &entries {
        add_entry(&mut writer, entry, mtime).with_context(|| format!("entrada `{}` del ZIP", entry.name))?;
    }
    let cursor = writer.finish().context("al cerrar el ZIP")?;
    Ok(cursor.into_inner())
}

/// Options shared by every entry: only the method depends on the entry (Stored when empty).
fn entry_options(entry: &ZipEntry<'_>, mtime: DateTime) -> SimpleFileOptions {
    let options = SimpleFileOptions::default()
        .last_modified_time(mtime)
        .unix_permissions(ENTRY_PERMISSIONS)
        .system(System::Unix)
        .large_file(false);
    if entry.bytes.is_empty() {
        options.compression_method(CompressionMethod::Stored)
    } else {
        options.compression_method(CompressionMethod::Deflated).compression_level(Some(DEFLATE_LEVEL))
    }
}

fn add_entry(writer: &mut ZipWriter<Cursor<Vec<u8>>>, entry: &ZipEntry<'_>, mtime: DateTime) -> Result<()> {
    writer.start_file(entry.name.as_str(), entry_options(entry, mtime))?;
    writer.write_all(&entry.bytes)?;
    Ok(())
}

/// Entry names: non-empty relative ASCII paths without `\`, control characters, empty, `.`
/// or `..` segments, so that every unzipper extracts them to the same place.
fn check_entry_name(name: &str) -> Result<()> {
    ensure!(!name.is_empty(), "una entrada del ZIP no tiene nombre");
    ensure!(name.is_ascii(), "el nombre de entrada `{name}` no es ASCII; los descompresores antiguos lo leerían mal");
    ensure!(
        !name.contains('\\') && !name.chars().any(|c| c.is_ascii_control()),
        "el nombre de entrada `{name}` contiene `\\` o caracteres de control"
    );
    ensure!(
        name.split('/').all(|part| !matches!(part, "" | "." | "..")),
        "el nombre de entrada `{name}` no es una ruta relativa limpia (`/` inicial o final, `//`, `.` o `..`)"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::process::Command;

    use zip::ZipArchive;

    use super::*;

    const DATE: &str = "2025-03-15";

    fn entry(name: &str, bytes: &[u8]) -> ZipEntry<'static> {
        ZipEntry { name: name.to_owned(), bytes: Cow::Owned(bytes.to_vec()) }
    }

    fn fixture_entries() -> Vec<ZipEntry<'static>> {
        vec![
            entry("demo/demo.json", br#"{"estudio":"demo","filas":[1,2,3]}"#),
            entry("demo/README.md", "# Demo\n\nEstudio de prueba: ñandú, acción.\n".repeat(20).as_bytes()),
            entry("demo/informes/vacio.txt", b""),
            entry("demo/demo.xlsx", &[0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9].repeat(50)),
        ]
    }

    fn archive(bytes: &[u8]) -> ZipArchive<Cursor<Vec<u8>>> {
        ZipArchive::new(Cursor::new(bytes.to_vec())).unwrap()
    }

    #[test]
    fn zip_is_byte_for_byte_reproducible() {
        let first = write_zip(fixture_entries(), DATE).unwrap();
        let mut reversed = fixture_entries();
        reversed.reverse();
        let second = write_zip(reversed, DATE).unwrap();
        assert_eq!(first, second, "same entries in another order must give the same bytes");
    }

    #[test]
    fn zip_entries_come_back_sorted_with_date_permissions_and_method() {
        let bytes = write_zip(fixture_entries(), DATE).unwrap();
        let mut zip = archive(&bytes);
        // by_index follows the central directory, which is the write order.
        let in_order: Vec<String> =
            (0..zip.len()).map(|i| zip.by_index(i).unwrap().name().unwrap().into_owned()).collect();
        let mut sorted = in_order.clone();
        sorted.sort();
        assert_eq!(in_order, sorted);
        assert_eq!(in_order[0], "demo/README.md");
        for i in 0..zip.len() {
            let file = zip.by_index(i).unwrap();
            let name = file.name().unwrap().into_owned();
            let mtime = file.last_modified().unwrap();
            assert_eq!(
                (mtime.year(), mtime.month(), mtime.day(), mtime.hour(), mtime.minute(), mtime.second()),
                (2025, 3, 15, 0, 0, 0),
                "{name}"
            );
            assert_eq!(file.unix_mode().map(|m| m & 0o777), Some(0o644), "{name}");
            let expected = if file.size() == 0 { CompressionMethod::Stored } else { CompressionMethod::Deflated };
            assert_eq!(file.compression(), expected, "{name}");
            assert!(file.extra_data().as_deref().is_none_or(<[u8]>::is_empty), "{name} has extra fields");
        }
    }

    #[test]
    fn zip_contents_round_trip() {
        let bytes = write_zip(fixture_entries(), DATE).unwrap();
        let mut zip = archive(&bytes);
        for original in fixture_entries() {
            let mut file = zip.by_name(&original.name).unwrap();
            let mut read = Vec::new();
            file.read_to_end(&mut read).unwrap();
            assert_eq!(read, original.bytes.as_ref(), "{}", original.name);
        }
        assert_eq!(zip.len(), fixture_entries().len());
    }

    #[test]
    fn zip_different_date_changes_bytes_and_mtime() {
        let a = write_zip(fixture_entries(), DATE).unwrap();
        let b = write_zip(fixture_entries(), "2024-02-29").unwrap();
        assert_ne!(a, b);
        let mut zip = archive(&b);
        let mtime = zip.by_index(0).unwrap().last_modified().unwrap();
        assert_eq!((mtime.year(), mtime.month(), mtime.day()), (2024, 2, 29));
    }

    #[test]
    fn zip_rejects_duplicates_non_ascii_and_bad_names() {
        let mut dup = fixture_entries();
        dup.push(entry("demo/demo.json", b"otra vez"));
        let err = write_zip(dup, DATE).unwrap_err();
        assert!(format!("{err:#}").contains("demo/demo.json"), "{err:#}");

        for bad in ["demo/informe-año.pdf", "", "/abs.txt", "demo/../x", "demo//x", "demo\\x", "demo/"] {
            let result = write_zip(vec![entry(bad, b"x")], DATE);
            assert!(result.is_err(), "`{bad}` should be rejected");
        }
    }

    #[test]
    fn zip_rejects_bad_dates() {
        for bad in [
            "2025-02-30",
            "2025-13-01",
            "2025-1-01",
            "25-01-01",
            "2025/01/01",
            "",
            "2025-01-01T00:00",
            "1979-12-31",
            "2023-02-29",
            "２０２５-01-01",
        ] {
            assert!(write_zip(fixture_entries(), bad).is_err(), "`{bad}` should be rejected");
        }
        assert!(write_zip(fixture_entries(), "2024-02-29").is_ok());
    }

    #[test]
    fn zip_empty_archive_is_valid() {
        let bytes = write_zip(Vec::new(), DATE).unwrap();
        assert_eq!(archive(&bytes).len(), 0);
    }

    #[test]
    fn zip_passes_external_testers() {
        let bytes = write_zip(fixture_entries(), DATE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.zip");
        std::fs::write(&path, &bytes).unwrap();

        let python = Command::new("python3").args(["-m", "zipfile", "-t"]).arg(&path).output().unwrap();
        assert!(python.status.success(), "python3 -m zipfile -t: {}", String::from_utf8_lossy(&python.stderr));

        match Command::new("unzip").arg("-t").arg(&path).output() {
            Ok(out) => assert!(out.status.success(), "unzip -t: {}", String::from_utf8_lossy(&out.stdout)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("unzip not installed; skipped")
            }
            Err(e) => panic!("unzip: {e}"),
        }
    }

    #[test]
    fn fixture_size() {
        use sha2::Digest;
        let zip = write_zip(fixture_entries(), DATE).unwrap();
        eprintln!("fixture zip: {} bytes, sha256 {:x}", zip.len(), sha2::Sha256::digest(&zip));
    }
}
