//! Packaging: the ZIP and the xlsx of a study, and the sha256 that identifies them.
//!
//! Why this module is careful about bytes: the size and sha256 of every downloadable file are
//! published (in the study sheets and in `dist/gate.json`), so two builds of the same content
//! must produce the same bytes, on any day and on any Linux machine. Nothing here reads the
//! clock: every timestamp comes from the study's publication date; entries are sorted; the
//! compression method and level are pinned.
//!
//! Why Deflate only: the `zip` crate can also write zstd, bzip2 or LZMA, but Windows Explorer's
//! built-in handler, Info-ZIP `unzip` 6.00 and Python's `zipfile` cannot read zstd (method 93).
//! Buyers may open these files with any of those tools, so every entry is Deflated (Stored when
//! empty). Entry names are ASCII because a non-ASCII name sets the UTF-8 flag, which older
//! unzippers ignore.
//!
//! The xlsx comes from `rust_xlsxwriter`, whose only varying bytes are the document dates in
//! `docProps/core.xml`; they are fixed to the publication date. (It zips with its own fixed
//! settings but leaves the ZIP "made by" system unset, so release builds run on Linux.)

use std::borrow::Cow;
use std::io::{Cursor, Write};

use anyhow::{Context, Result, bail, ensure};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, FormatAlign, Workbook, Worksheet};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

use crate::metrics::analysis::{Cell, Table};
use crate::model::{Answer, Question, Study, Tone};

/// Deflate level of every ZIP entry. Pinned: another level gives other bytes.
const DEFLATE_LEVEL: i64 = 6;
/// Unix permissions of every ZIP entry.
const ENTRY_PERMISSIONS: u32 = 0o644;
/// Excel's limit on the characters of a cell (counted in UTF-16 units).
const EXCEL_CELL_MAX: usize = 32_767;
/// Excel's limit on the length of a sheet name (UTF-16 units).
const EXCEL_SHEET_NAME_MAX: usize = 31;
/// Characters Excel refuses in sheet names.
const SHEET_NAME_INVALID: [char; 7] = ['[', ']', ':', '*', '?', '/', '\\'];
/// Column widths, in characters.
const MIN_WIDTH: usize = 6;
const MAX_WIDTH: usize = 60;

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

/// A calendar date from a "YYYY-MM-DD" string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    fn parse(text: &str) -> Result<Date> {
        let invalid = || format!("fecha `{text}` no válida: se espera AAAA-MM-DD");
        let bytes = text.as_bytes();
        let shape_ok = bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && bytes.iter().enumerate().all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        ensure!(shape_ok, "{}", invalid());
        let year: u16 = text[0..4].parse().with_context(invalid)?;
        let month: u8 = text[5..7].parse().with_context(invalid)?;
        let day: u8 = text[8..10].parse().with_context(invalid)?;
        ensure!((1..=12).contains(&month), "{}: el mes {month} no existe", invalid());
        ensure!((1..=days_in_month(year, month)).contains(&day), "{}: el día {day} no existe en ese mes", invalid());
        Ok(Date { year, month, day })
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// sha256 of bytes as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        // Writing into a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

// ---------------------------------------------------------------------------------------------
// xlsx
// ---------------------------------------------------------------------------------------------

/// The study spreadsheet: a first sheet "indice" (what each sheet holds: sheet name, table id,
/// titulo, titulo_en, nota, row count), then one sheet per analysis table (sheet name = table
/// id plus as much of `nombre` as fits Excel's 31-char limit, invalid chars `[]:*?/\`
/// replaced), then "preguntas" (id, texto, idioma, modelo tier, then one column per declared
/// dimension in the study's `dimensiones` order) and "respuestas" (id, pregunta, modelo,
/// version, fecha, respuesta, fuentes as "titulo — url" lines joined by newlines, tono as
/// "brand:label" joined by "; "). Header rows bold and frozen, column widths from the content,
/// numbers written as numbers (rates with a 0.0000 format), Null cells left empty, text longer
/// than Excel's 32,767-char cell limit cut with a trailing "…". Document properties: title =
/// study nombre, author/company = `editor`, creation date fixed to `date` so the bytes are
/// reproducible.
pub fn study_xlsx(study: &Study, tables: &[Table], editor: &str, date: &str) -> Result<Vec<u8>> {
    let date = Date::parse(date)?;
    let sheets = study_sheets(study, tables)?;
    check_unique_sheet_names(&sheets)?;
    let formats = Formats::new();
    let mut workbook = Workbook::new();
    workbook.set_properties(&properties(study, editor, date)?);
    workbook.push_worksheet(index_sheet(&sheets, &formats).context("hoja indice")?);
    for sheet in &sheets {
        let worksheet = sheet.worksheet(&formats).with_context(|| format!("hoja `{}`", sheet.name))?;
        workbook.push_worksheet(worksheet);
    }
    workbook.save_to_buffer().context("al escribir el xlsx")
}

fn properties(study: &Study, editor: &str, date: Date) -> Result<DocProperties> {
    let created = ExcelDateTime::from_ymd(date.year, date.month, date.day)
        .with_context(|| format!("fecha {date} fuera del rango de Excel"))?;
    Ok(DocProperties::new()
        .set_title(study.design.nombre.as_str())
        .set_author(editor)
        .set_company(editor)
        .set_creation_datetime(&created))
}

/// The formats every sheet shares. Data cells are top-aligned so that a wrapped cell (the
/// sources) and its neighbours start on the same line.
struct Formats {
    header: Format,
    text: Format,
    wrapped: Format,
    int: Format,
    rate: Format,
}

impl Formats {
    fn new() -> Formats {
        let top = Format::new().set_align(FormatAlign::Top);
        Formats {
            header: Format::new().set_bold(),
            text: top.clone(),
            wrapped: top.clone().set_text_wrap(),
            int: top.clone().set_num_format("0"),
            rate: top.set_num_format("0.0000"),
        }
    }
}

/// One data sheet before it becomes a worksheet: a header row, rows of cells and what the
/// index says about it.
struct Sheet {
    name: String,
    table_id: Option<String>,
    titulo: String,
    titulo_en: String,
    nota: Option<String>,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
    /// Columns whose text keeps its line breaks visible (wrapped).
    wrapped: Vec<usize>,
}

impl Sheet {
    fn worksheet(&self, formats: &Formats) -> Result<Worksheet> {
        write_grid(&self.name, &self.columns, &self.rows, &self.wrapped, formats)
    }
}

fn study_sheets(study: &Study, tables: &[Table]) -> Result<Vec<Sheet>> {
    let mut sheets = Vec::with_capacity(tables.len() + 2);
    for table in tables {
        sheets.push(table_sheet(table).with_context(|| format!("tabla {}", table.id))?);
    }
    sheets.push(questions_sheet(study));
    sheets.push(answers_sheet(study));
    Ok(sheets)
}

fn table_sheet(table: &Table) -> Result<Sheet> {
    if let Some((r, row)) = table.filas.iter().enumerate().find(|(_, row)| row.len() > table.columnas.len()) {
        bail!("la fila {} tiene {} celdas y la tabla {} columnas", r + 1, row.len(), table.columnas.len());
    }
    Ok(Sheet {
        name: table_sheet_name(&table.id, &table.nombre),
        table_id: Some(table.id.clone()),
        titulo: table.titulo.clone(),
        titulo_en: table.titulo_en.clone(),
        nota: table.nota.clone(),
        columns: table.columnas.clone(),
        rows: table.filas.clone(),
        wrapped: Vec::new(),
    })
}

/// `"{id} {nombre}"` with Excel's invalid characters replaced by `-`, cut to 31 UTF-16
/// units, without surrounding spaces or apostrophes (Excel refuses a leading or trailing `'`).
fn table_sheet_name(id: &str, nombre: &str) -> String {
    let full = if nombre.trim().is_empty() { id.to_owned() } else { format!("{id} {}", nombre.trim()) };
    let mut name = String::new();
    let mut units = 0;
    for c in full.chars() {
        let c = if SHEET_NAME_INVALID.contains(&c) || c.is_control() { '-' } else { c };
        units += c.len_utf16();
        if units > EXCEL_SHEET_NAME_MAX {
            break;
        }
        name.push(c);
    }
    name.trim_matches(|c: char| c.is_whitespace() || c == '\'').to_owned()
}

/// Excel compares sheet names without regard to case; the crate would only say "reused".
fn check_unique_sheet_names(sheets: &[Sheet]) -> Result<()> {
    let mut seen: Vec<(String, &str)> = vec![(INDEX_SHEET.to_lowercase(), INDEX_SHEET)];
    for sheet in sheets {
        ensure!(!sheet.name.is_empty(), "la tabla {:?} da un nombre de hoja vacío", sheet.table_id);
        let key = sheet.name.to_lowercase();
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
            bail!("dos hojas se llamarían igual en Excel: `{other}` y `{}`", sheet.name);
        }
        seen.push((key, &sheet.name));
    }
    Ok(())
}

const INDEX_SHEET: &str = "indice";
const INDEX_COLUMNS: [&str; 6] = ["hoja", "tabla", "titulo", "titulo_en", "nota", "filas"];

fn index_sheet(sheets: &[Sheet], formats: &Formats) -> Result<Worksheet> {
    let columns: Vec<String> = INDEX_COLUMNS.map(str::to_owned).to_vec();
    let rows: Vec<Vec<Cell>> = sheets
        .iter()
        .map(|s| {
            vec![
                Cell::Text(s.name.clone()),
                text_or_null(s.table_id.as_deref()),
                Cell::Text(s.titulo.clone()),
                Cell::Text(s.titulo_en.clone()),
                text_or_null(s.nota.as_deref()),
                Cell::Int(i64::try_from(s.rows.len()).unwrap_or(i64::MAX)),
            ]
        })
        .collect();
    write_grid(INDEX_SHEET, &columns, &rows, &[], formats)
}

fn text_or_null(value: Option<&str>) -> Cell {
    value.map_or(Cell::Null, |v| Cell::Text(v.to_owned()))
}

fn questions_sheet(study: &Study) -> Sheet {
    let dimensions: Vec<&str> = study
        .design
        .dimensiones
        .iter()
        .map(|d| d.id.as_str())
        .filter(|id| *id != crate::model::LANGUAGE_DIMENSION)
        .collect();
    let mut columns: Vec<String> = ["id", "texto", "idioma", "modelo"].map(str::to_owned).to_vec();
    columns.extend(dimensions.iter().map(|d| (*d).to_owned()));
    let rows = study.questions.iter().map(|q| question_row(q, &dimensions)).collect();
    Sheet {
        name: "preguntas".to_owned(),
        table_id: None,
        titulo: "Preguntas del estudio, con sus dimensiones".to_owned(),
        titulo_en: "Questions of the study, with their dimensions".to_owned(),
        nota: None,
        columns,
        rows,
        wrapped: Vec::new(),
    }
}

fn question_row(question: &Question, dimensions: &[&str]) -> Vec<Cell> {
    let mut row = vec![
        Cell::Text(question.id.clone()),
        Cell::Text(question.texto.clone()),
        Cell::Text(question.idioma.clone()),
        Cell::Text(question.modelo.as_str().to_owned()),
    ];
    row.extend(dimensions.iter().map(|d| text_or_null(question.dimension(d))));
    row
}

const ANSWER_COLUMNS: [&str; 8] = ["id", "pregunta", "modelo", "version", "fecha", "respuesta", "fuentes", "tono"];
/// The `fuentes` column: one source a line, wrapped so the lines show.
const SOURCES_COLUMN: usize = 6;

fn answers_sheet(study: &Study) -> Sheet {
    Sheet {
        name: "respuestas".to_owned(),
        table_id: None,
        titulo: "Respuestas de los modelos, textuales, con fuentes y tono".to_owned(),
        titulo_en: "The models' answers, verbatim, with sources and tone".to_owned(),
        nota: None,
        columns: ANSWER_COLUMNS.map(str::to_owned).to_vec(),
        rows: study.answers.iter().map(answer_row).collect(),
        wrapped: vec![SOURCES_COLUMN],
    }
}

fn answer_row(answer: &Answer) -> Vec<Cell> {
    let sources: Vec<String> = answer.fuentes.iter().map(|s| format!("{} — {}", s.titulo, s.url)).collect();
    let tone: Vec<String> = answer.tono.iter().map(|(brand, t)| format!("{brand}:{}", tone_label(*t))).collect();
    vec![
        Cell::Text(answer.id.clone()),
        Cell::Text(answer.pregunta.clone()),
        Cell::Text(answer.modelo.clone()),
        Cell::Text(answer.version.clone()),
        Cell::Text(answer.fecha.clone()),
        Cell::Text(answer.respuesta.clone()),
        empty_as_null(sources.join("\n")),
        empty_as_null(tone.join("; ")),
    ]
}

fn empty_as_null(text: String) -> Cell {
    if text.is_empty() { Cell::Null } else { Cell::Text(text) }
}

/// The label as `respuestas.jsonl` spells it.
fn tone_label(tone: Tone) -> &'static str {
    match tone {
        Tone::Pos => "pos",
        Tone::Neu => "neu",
        Tone::Neg => "neg",
    }
}

/// A worksheet with a bold, frozen header row, the rows below it and widths from the content.
fn write_grid(
    name: &str,
    columns: &[String],
    rows: &[Vec<Cell>],
    wrapped: &[usize],
    formats: &Formats,
) -> Result<Worksheet> {
    let mut sheet = Worksheet::new();
    sheet.set_name(name)?;
    for (c, title) in columns.iter().enumerate() {
        sheet.write_string_with_format(0, col_num(c)?, excel_text(title).as_ref(), &formats.header)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    for (r, row) in rows.iter().enumerate() {
        let excel_row = u32::try_from(r + 1).context("demasiadas filas")?;
        for (c, cell) in row.iter().enumerate() {
            let format = if wrapped.contains(&c) { &formats.wrapped } else { &formats.text };
            write_cell(&mut sheet, excel_row, col_num(c)?, cell, format, formats)
                .with_context(|| format!("fila {}, columna {}", r + 1, c + 1))?;
        }
    }
    for (c, width) in column_widths(columns, rows).into_iter().enumerate() {
        sheet.set_column_width(col_num(c)?, width as f64)?;
    }
    Ok(sheet)
}

fn col_num(c: usize) -> Result<u16> {
    u16::try_from(c).context("demasiadas columnas")
}

fn write_cell(
    sheet: &mut Worksheet,
    row: u32,
    col: u16,
    cell: &Cell,
    text_format: &Format,
    formats: &Formats,
) -> Result<()> {
    match cell {
        Cell::Text(text) => {
            sheet.write_string_with_format(row, col, excel_text(text).as_ref(), text_format)?;
        }
        Cell::Int(n) => {
            sheet.write_number_with_format(row, col, *n as f64, &formats.int)?;
        }
        Cell::Num(x) => {
            ensure!(x.is_finite(), "número no finito ({x}): una tabla publicada no puede llevarlo");
            sheet.write_number_with_format(row, col, *x, &formats.rate)?;
        }
        Cell::Null => {}
    }
    Ok(())
}

/// Text as Excel accepts it: at most 32,767 UTF-16 units, cut with a trailing "…".
fn excel_text(text: &str) -> Cow<'_, str> {
    // A UTF-8 byte never stands for more than one UTF-16 unit, so short texts need no count.
    if text.len() <= EXCEL_CELL_MAX || text.encode_utf16().count() <= EXCEL_CELL_MAX {
        return Cow::Borrowed(text);
    }
    let mut cut = String::with_capacity(EXCEL_CELL_MAX + 3);
    let mut units = 0;
    for c in text.chars() {
        units += c.len_utf16();
        if units > EXCEL_CELL_MAX - 1 {
            break;
        }
        cut.push(c);
    }
    cut.push('…');
    Cow::Owned(cut)
}

/// Width of each column, in characters: the widest header or cell (its longest line), plus a
/// margin, kept between [`MIN_WIDTH`] and [`MAX_WIDTH`].
fn column_widths(columns: &[String], rows: &[Vec<Cell>]) -> Vec<usize> {
    columns
        .iter()
        .enumerate()
        .map(|(c, title)| {
            let widest = rows.iter().filter_map(|row| row.get(c)).map(cell_width).max().unwrap_or(0);
            (widest.max(title.chars().count()) + 2).clamp(MIN_WIDTH, MAX_WIDTH)
        })
        .collect()
}

fn cell_width(cell: &Cell) -> usize {
    match cell {
        Cell::Text(text) => {
            // Widths are capped at MAX_WIDTH, so stop at the first line that reaches it.
            let mut widest = 0;
            for line in text.lines() {
                widest = widest.max(line.chars().take(MAX_WIDTH).count());
                if widest == MAX_WIDTH {
                    break;
                }
            }
            widest
        }
        Cell::Int(n) => n.to_string().len(),
        Cell::Num(x) => format!("{x:.4}").len(),
        Cell::Null => 0,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;
    use std::io::Read;
    use std::process::Command;

    use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};
    use zip::ZipArchive;

    use super::*;
    use crate::model::{Dimension, ModelSpec, Source, StudyFile, Tier};

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

    fn question(id: &str, texto: &str, seccion: &str) -> Question {
        Question {
            id: id.to_owned(),
            texto: texto.to_owned(),
            idioma: "es".to_owned(),
            modelo: Tier::Standard,
            dimensiones: BTreeMap::from([("seccion".to_owned(), seccion.to_owned())]),
        }
    }

    fn answer(id: &str, pregunta: &str, modelo: &str, respuesta: &str, fuentes: usize) -> Answer {
        let fuentes = (0..fuentes)
            .map(|i| Source { url: format!("https://www.ejemplo{i}.com/p"), titulo: format!("Página {i}") })
            .collect();
        Answer {
            id: id.to_owned(),
            pregunta: pregunta.to_owned(),
            modelo: modelo.to_owned(),
            version: format!("{modelo}-2025-01"),
            fecha: "2025-02-01".to_owned(),
            respuesta: respuesta.to_owned(),
            fuentes,
            tono: BTreeMap::from([("acme".to_owned(), Tone::Pos), ("beta".to_owned(), Tone::Neg)]),
        }
    }

    fn model(id: &str, nivel: Tier) -> ModelSpec {
        ModelSpec { id: id.to_owned(), nombre: id.to_uppercase(), proveedor: "Proveedor".to_owned(), nivel }
    }

    fn fixture_study() -> Study {
        let design = StudyFile {
            nombre: "Estudio de prueba: bancos".to_owned(),
            nombre_en: "Test study: banks".to_owned(),
            descripcion: "Descripción".to_owned(),
            descripcion_en: "Description".to_owned(),
            industria: "Finanzas".to_owned(),
            subindustria: "Banca".to_owned(),
            pais: vec!["MX".to_owned()],
            idioma: vec!["es".to_owned()],
            publicado: DATE.to_owned(),
            precio_usd: None,
            version_paquete: "1.0.0".to_owned(),
            tags: vec!["banca".to_owned()],
            como_citar: "Editor (2025)".to_owned(),
            nota: String::new(),
            metodologia: Vec::new(),
            dimensiones: vec![Dimension {
                id: "seccion".to_owned(),
                etiqueta: "Sección".to_owned(),
                etiqueta_en: "Section".to_owned(),
                valores: vec!["cuentas".to_owned(), "tarjetas".to_owned()],
            }],
            modelos: vec![model("modelo-a", Tier::Standard), model("modelo-b", Tier::Advanced)],
            ponderacion: None,
            analisis: Vec::new(),
        };
        Study {
            slug: "demo".to_owned(),
            design,
            brands: Vec::new(),
            questions: vec![
                question("P01", "¿Qué banco tiene la mejor cuenta?", "cuentas"),
                question("P02", "¿Qué tarjeta conviene?", "tarjetas"),
                question("P03", "¿Dónde abro una cuenta sin comisiones?", "cuentas"),
            ],
            answers: vec![
                answer("R0001", "P01", "modelo-a", "Acme es la mejor opción, seguida de Beta.", 2),
                answer("R0002", "P01", "modelo-b", "Beta y después Acme.", 1),
                answer("R0003", "P02", "modelo-a", "Depende: Acme o Gamma.", 0),
                answer("R0004", "P03", "modelo-b", "Acme, sin duda.", 3),
            ],
            findings: Vec::new(),
            reports: Vec::new(),
            question_lines: Vec::new(),
            answer_lines: Vec::new(),
        }
    }

    fn fixture_tables() -> Vec<Table> {
        vec![
            Table {
                id: "A01".to_owned(),
                nombre: "Mención y orden por marca: [total] / todas*".to_owned(),
                titulo: "Mención por marca".to_owned(),
                titulo_en: "Mention by brand".to_owned(),
                columnas: ["marca", "mencion", "orden", "n_orden"].map(str::to_owned).to_vec(),
                filas: vec![
                    vec![Cell::Text("Acme".into()), Cell::Num(0.75), Cell::Num(1.3333), Cell::Int(3)],
                    vec![Cell::Text("Gamma".into()), Cell::Num(0.0), Cell::Null, Cell::Int(0)],
                ],
                nota: Some("Base: 4 respuestas. Modelos con igual peso.".to_owned()),
            },
            Table {
                id: "A02".to_owned(),
                nombre: "Concentración".to_owned(),
                titulo: "Concentración por modelo".to_owned(),
                titulo_en: "Concentration by model".to_owned(),
                columnas: ["grupo", "respuestas", "lider", "hhi_sov"].map(str::to_owned).to_vec(),
                filas: vec![
                    vec![Cell::Text("modelo-a".into()), Cell::Int(2), Cell::Text("Acme".into()), Cell::Num(0.5)],
                    vec![Cell::Text("total".into()), Cell::Int(4), Cell::Null, Cell::Num(0.625)],
                ],
                nota: None,
            },
        ]
    }

    fn xlsx(study: &Study) -> Vec<u8> {
        study_xlsx(study, &fixture_tables(), "Editorial Demo", DATE).unwrap()
    }

    fn sheet(bytes: &[u8], name: &str) -> calamine::Range<Data> {
        let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.to_vec())).unwrap();
        book.worksheet_range(name).unwrap()
    }

    fn text(range: &calamine::Range<Data>, row: usize, col: usize) -> String {
        match range.get((row, col)) {
            Some(Data::String(s)) => s.clone(),
            other => panic!("({row}, {col}) is not text: {other:?}"),
        }
    }

    fn header(range: &calamine::Range<Data>) -> Vec<String> {
        (0..range.width()).map(|c| text(range, 0, c)).collect()
    }

    fn archive(bytes: &[u8]) -> ZipArchive<Cursor<Vec<u8>>> {
        ZipArchive::new(Cursor::new(bytes.to_vec())).unwrap()
    }

    // ---- ZIP ----

    #[test]
    fn zip_is_byte_for_byte_reproducible() {
        let first = write_zip(fixture_entries(), DATE).unwrap();
        let mut reversed = fixture_entries();
        reversed.reverse();
        let second = write_zip(reversed, DATE).unwrap();
        assert_eq!(first, second, "same entries in another order must give the same bytes");
        assert_eq!(sha256_hex(&first), sha256_hex(&second));
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
    fn sha256_hex_matches_known_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    // ---- xlsx ----

    #[test]
    fn xlsx_is_byte_for_byte_reproducible() {
        let study = fixture_study();
        assert_eq!(xlsx(&study), xlsx(&study));
    }

    #[test]
    fn xlsx_core_properties_carry_the_date_title_and_editor() {
        let bytes = xlsx(&fixture_study());
        let mut zip = archive(&bytes);
        let mut core = String::new();
        zip.by_name("docProps/core.xml").unwrap().read_to_string(&mut core).unwrap();
        assert!(core.contains("<dcterms:created xsi:type=\"dcterms:W3CDTF\">2025-03-15T00:00:00Z"), "{core}");
        assert!(core.contains("<dcterms:modified xsi:type=\"dcterms:W3CDTF\">2025-03-15T00:00:00Z"), "{core}");
        assert!(core.contains("<dc:title>Estudio de prueba: bancos</dc:title>"), "{core}");
        assert!(core.contains("<dc:creator>Editorial Demo</dc:creator>"), "{core}");
        let mut app = String::new();
        zip.by_name("docProps/app.xml").unwrap().read_to_string(&mut app).unwrap();
        assert!(app.contains("<Company>Editorial Demo</Company>"), "{app}");
    }

    #[test]
    fn xlsx_sheets_in_order_with_index() {
        let bytes = xlsx(&fixture_study());
        let book: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes.clone())).unwrap();
        assert_eq!(
            book.sheet_names(),
            ["indice", "A01 Mención y orden por marca-", "A02 Concentración", "preguntas", "respuestas"]
        );
        let index = sheet(&bytes, "indice");
        assert_eq!(header(&index), INDEX_COLUMNS);
        assert_eq!(index.height(), 5);
        assert_eq!(text(&index, 1, 0), "A01 Mención y orden por marca-");
        assert_eq!(text(&index, 1, 1), "A01");
        assert_eq!(text(&index, 1, 3), "Mention by brand");
        assert_eq!(text(&index, 1, 4), "Base: 4 respuestas. Modelos con igual peso.");
        assert_eq!(index.get((1, 5)), Some(&Data::Float(2.0)));
        assert_eq!(index.get((2, 4)), Some(&Data::Empty), "A02 has no nota");
        assert_eq!(text(&index, 4, 0), "respuestas");
        assert_eq!(index.get((4, 1)), Some(&Data::Empty));
        assert_eq!(index.get((4, 5)), Some(&Data::Float(4.0)));
    }

    #[test]
    fn xlsx_table_cells_keep_their_types() {
        let bytes = xlsx(&fixture_study());
        let a01 = sheet(&bytes, "A01 Mención y orden por marca-");
        assert_eq!(header(&a01), ["marca", "mencion", "orden", "n_orden"]);
        assert_eq!(text(&a01, 1, 0), "Acme");
        assert_eq!(a01.get((1, 1)), Some(&Data::Float(0.75)));
        assert_eq!(a01.get((1, 2)), Some(&Data::Float(1.3333)));
        assert_eq!(a01.get((1, 3)), Some(&Data::Float(3.0)), "Int is written as a number");
        assert_eq!(a01.get((2, 1)), Some(&Data::Float(0.0)));
        assert_eq!(a01.get((2, 2)), Some(&Data::Empty), "Null is an empty cell");
        let a02 = sheet(&bytes, "A02 Concentración");
        assert_eq!(a02.get((2, 2)), Some(&Data::Empty));
        assert_eq!(a02.get((2, 3)), Some(&Data::Float(0.625)));
    }

    #[test]
    fn xlsx_questions_have_the_dimension_column() {
        let bytes = xlsx(&fixture_study());
        let questions = sheet(&bytes, "preguntas");
        assert_eq!(header(&questions), ["id", "texto", "idioma", "modelo", "seccion"]);
        assert_eq!(questions.height(), 4);
        assert_eq!(text(&questions, 2, 0), "P02");
        assert_eq!(text(&questions, 2, 3), "estándar");
        assert_eq!(text(&questions, 2, 4), "tarjetas");
    }

    #[test]
    fn xlsx_answers_one_row_each_with_sources_and_tone() {
        let study = fixture_study();
        let bytes = xlsx(&study);
        let answers = sheet(&bytes, "respuestas");
        assert_eq!(header(&answers), ANSWER_COLUMNS);
        assert_eq!(answers.height(), study.answers.len() + 1);
        for (i, a) in study.answers.iter().enumerate() {
            assert_eq!(text(&answers, i + 1, 0), a.id);
            assert_eq!(text(&answers, i + 1, 5), a.respuesta);
        }
        assert_eq!(
            text(&answers, 1, 6),
            "Página 0 — https://www.ejemplo0.com/p\nPágina 1 — https://www.ejemplo1.com/p"
        );
        assert_eq!(answers.get((3, 6)), Some(&Data::Empty), "no sources: empty cell");
        assert_eq!(text(&answers, 1, 7), "acme:pos; beta:neg");
    }

    #[test]
    fn xlsx_overlong_answer_is_cut_and_still_opens() {
        let mut study = fixture_study();
        let long = "ñ".repeat(EXCEL_CELL_MAX + 10);
        study.answers[1].respuesta = long;
        let bytes = xlsx(&study);
        let answers = sheet(&bytes, "respuestas");
        let cell = text(&answers, 2, 5);
        assert_eq!(cell.encode_utf16().count(), EXCEL_CELL_MAX);
        assert!(cell.ends_with('…'));
        assert!(cell.starts_with("ññññ"));
    }

    #[test]
    fn excel_text_counts_utf16_units() {
        assert_eq!(excel_text("corto"), "corto");
        let exact = "a".repeat(EXCEL_CELL_MAX);
        assert!(matches!(excel_text(&exact), Cow::Borrowed(_)));
        // An astral character is two UTF-16 units: it must not straddle the limit.
        let astral = format!("{}😀😀", "a".repeat(EXCEL_CELL_MAX - 2));
        let cut = excel_text(&astral);
        assert!(cut.encode_utf16().count() <= EXCEL_CELL_MAX);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn sheet_names_fit_excel_rules() {
        assert_eq!(table_sheet_name("A01", "Mención: [todas] / *?\\"), "A01 Mención- -todas- - ---");
        assert_eq!(table_sheet_name("A07", ""), "A07");
        let long = table_sheet_name("A10", &"x".repeat(40));
        assert_eq!(long.encode_utf16().count(), EXCEL_SHEET_NAME_MAX);
        assert_eq!(table_sheet_name("A02", "nombre 'citado'"), "A02 nombre 'citado");
        assert_eq!(table_sheet_name("A03", "abcdefghijklmnopqrstuvwxyz a"), "A03 abcdefghijklmnopqrstuvwxyz");
    }

    #[test]
    fn xlsx_rejects_colliding_sheet_names_and_bad_dates() {
        let study = fixture_study();
        let mut tables = fixture_tables();
        tables[1].id = "A01".to_owned();
        tables[1].nombre = tables[0].nombre.to_uppercase();
        assert!(study_xlsx(&study, &tables, "E", DATE).is_err());
        let mut tables = fixture_tables();
        tables[0].id = "Preguntas".to_owned();
        tables[0].nombre = String::new();
        assert!(study_xlsx(&study, &tables, "E", DATE).is_err());
        assert!(study_xlsx(&study, &fixture_tables(), "E", "2025-02-30").is_err());
    }

    #[test]
    fn xlsx_rejects_non_finite_numbers() {
        let mut tables = fixture_tables();
        tables[0].filas[0][1] = Cell::Num(f64::NAN);
        let err = study_xlsx(&fixture_study(), &tables, "E", DATE).unwrap_err();
        assert!(format!("{err:#}").contains("A01"), "{err:#}");
    }

    #[test]
    fn fixture_sizes() {
        let zip = write_zip(fixture_entries(), DATE).unwrap();
        let book = xlsx(&fixture_study());
        eprintln!("fixture zip: {} bytes, sha256 {}", zip.len(), sha256_hex(&zip));
        eprintln!("fixture xlsx: {} bytes, sha256 {}", book.len(), sha256_hex(&book));
    }
}
