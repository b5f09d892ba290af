//! The study spreadsheet (xlsx) inside the ZIP, for buyers who read the tables in Excel.
//!
//! The xlsx comes from `rust_xlsxwriter`, whose only varying bytes are the document dates in
//! `docProps/core.xml`; they are fixed to the study's publication date, so the same study
//! gives the same bytes (the ZIP's sha256 depends on them). (It zips with its own fixed settings
//! but leaves the ZIP "made by" system unset, so release builds run on Linux.) Excel's own
//! limits are enforced here rather than left to fail in the buyer's hands: cell length, sheet
//! name length, characters and case-insensitive uniqueness.

use std::borrow::Cow;

use anyhow::{Context, Result, bail, ensure};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, FormatAlign, Workbook, Worksheet};

use super::date::Date;
use crate::metrics::analysis::{Cell, Table};
use crate::model::{Answer, Question, Study, Tone};

/// Excel's limit on the characters of a cell (counted in UTF-16 units).
const EXCEL_CELL_MAX: usize = 32_767;
/// Excel's limit on the length of a sheet name (UTF-16 units).
const EXCEL_SHEET_NAME_MAX: usize = 31;
/// Characters Excel refuses in sheet names.
const SHEET_NAME_INVALID: [char; 7] = ['[', ']', ':', '*', '?', '/', '\\'];
/// Column widths, in characters.
const MIN_WIDTH: usize = 6;
const MAX_WIDTH: usize = 60;

/// The study spreadsheet: a first sheet "indice" (what each sheet holds: sheet name, table id,
/// titulo, titulo_en, nota, row count), then one sheet per analysis table (sheet name = table
/// id plus as much of `nombre` as fits Excel's 31-char limit, invalid chars `[]:*?/\`
/// replaced), then "preguntas" (id, texto, idioma, modelo tier, then one column per declared
/// dimension in the study's `dimensiones` order) and "respuestas" (id, pregunta, modelo,
/// superficie, version, fecha, respuesta, fuentes and fuentes_consultadas as "titulo — url"
/// lines joined by newlines, the consulted ones "(no registradas)" when the answer does not
/// record them, tono as "brand:label" joined by "; "). Header rows bold and frozen, column widths from the content,
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
        .set_title(study.design.name.as_str())
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
    title: String,
    title_en: String,
    note: Option<String>,
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
    if let Some((r, row)) = table.rows.iter().enumerate().find(|(_, row)| row.len() > table.columns.len()) {
        bail!("la fila {} tiene {} celdas y la tabla {} columnas", r + 1, row.len(), table.columns.len());
    }
    Ok(Sheet {
        name: table_sheet_name(&table.id, &table.name),
        table_id: Some(table.id.clone()),
        title: table.title.clone(),
        title_en: table.title_en.clone(),
        note: table.note.clone(),
        columns: split_interval_columns(&table.columns),
        rows: table.rows.iter().map(|row| split_interval_cells(&table.columns, row)).collect(),
        wrapped: Vec::new(),
    })
}

/// A spreadsheet has no pair cell: each `x_ic95` column becomes `x_ic95_inf`, `x_ic95_sup`.
fn split_interval_columns(columns: &[String]) -> Vec<String> {
    columns
        .iter()
        .flat_map(|c| match c.ends_with("_ic95") {
            true => vec![format!("{c}_inf"), format!("{c}_sup")],
            false => vec![c.clone()],
        })
        .collect()
}

/// The row with each cell of an interval column (an interval, or null) as two cells.
fn split_interval_cells(columns: &[String], row: &[Cell]) -> Vec<Cell> {
    let mut cells = Vec::with_capacity(row.len() + 4);
    for (column, cell) in columns.iter().zip(row) {
        match cell {
            Cell::Interval(low, high) => cells.extend([Cell::Num(*low), Cell::Num(*high)]),
            _ if column.ends_with("_ic95") => cells.extend([cell.clone(), cell.clone()]),
            other => cells.push(other.clone()),
        }
    }
    cells
}

/// `"{id} {nombre}"` with Excel's invalid characters replaced by `-`, cut to 31 UTF-16
/// units, without surrounding spaces or apostrophes (Excel refuses a leading or trailing `'`).
fn table_sheet_name(id: &str, name: &str) -> String {
    let full = if name.trim().is_empty() { id.to_owned() } else { format!("{id} {}", name.trim()) };
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
                Cell::Text(s.title.clone()),
                Cell::Text(s.title_en.clone()),
                text_or_null(s.note.as_deref()),
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
        .dimensions
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
        title: "Preguntas del estudio, con sus dimensiones".to_owned(),
        title_en: "Questions of the study, with their dimensions".to_owned(),
        note: None,
        columns,
        rows,
        wrapped: Vec::new(),
    }
}

fn question_row(question: &Question, dimensions: &[&str]) -> Vec<Cell> {
    let mut row = vec![
        Cell::Text(question.id.clone()),
        Cell::Text(question.text.clone()),
        Cell::Text(question.language.clone()),
        Cell::Text(question.model.as_str().to_owned()),
    ];
    row.extend(dimensions.iter().map(|d| text_or_null(question.dimension(d))));
    row
}

const ANSWER_COLUMNS: [&str; 10] = [
    "id",
    "pregunta",
    "modelo",
    "superficie",
    "version",
    "fecha",
    "respuesta",
    "fuentes",
    "fuentes_consultadas",
    "tono",
];
/// The `fuentes` and `fuentes_consultadas` columns: one source a line, wrapped so the lines
/// show.
const SOURCES_COLUMNS: [usize; 2] = [7, 8];
/// What the `fuentes_consultadas` cell says when the answer does not record them (an empty
/// cell would read "none consulted").
pub const CONSULTED_NOT_RECORDED: &str = "(no registradas)";

fn answers_sheet(study: &Study) -> Sheet {
    Sheet {
        name: "respuestas".to_owned(),
        table_id: None,
        title: "Respuestas de los modelos, textuales, con su superficie, las fuentes citadas y consultadas, y el tono"
            .to_owned(),
        title_en: "The models' answers, verbatim, with their surface, the sources cited and consulted, and tone"
            .to_owned(),
        note: Some(
            "fuentes: las que cita la respuesta; fuentes_consultadas: todas las que el proveedor dice haber consultado, citadas o no, o «(no registradas)» si la recolección no las guardó. superficie: api (la API del proveedor) o la superficie de consumo donde se vio la respuesta."
                .to_owned(),
        ),
        columns: ANSWER_COLUMNS.map(str::to_owned).to_vec(),
        rows: study.answers.iter().map(answer_row).collect(),
        wrapped: SOURCES_COLUMNS.to_vec(),
    }
}

fn answer_row(answer: &Answer) -> Vec<Cell> {
    let lines = |sources: &[crate::model::Source]| {
        sources.iter().map(|s| format!("{} — {}", s.title, s.url)).collect::<Vec<_>>().join("\n")
    };
    let consulted = match &answer.consulted {
        Some(list) => empty_as_null(lines(list)),
        None => Cell::Text(CONSULTED_NOT_RECORDED.to_owned()),
    };
    let tone: Vec<String> = answer.tone.iter().map(|(brand, t)| format!("{brand}:{}", tone_label(*t))).collect();
    vec![
        Cell::Text(answer.id.clone()),
        Cell::Text(answer.question.clone()),
        Cell::Text(answer.model.clone()),
        Cell::Text(answer.surface().to_owned()),
        Cell::Text(answer.version.clone()),
        Cell::Text(answer.date.clone()),
        Cell::Text(answer.answer.clone()),
        empty_as_null(lines(&answer.sources)),
        consulted,
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
        Cell::Interval(..) => bail!("un intervalo se escribe en dos columnas (_inf, _sup)"),
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
        Cell::Interval(..) => 15,
        Cell::Null => 0,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::io::{Cursor, Read};

    use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};
    use zip::ZipArchive;

    use super::*;
    use crate::model::{Dimension, ModelSpec, Source, StudyFile, Tier};

    const DATE: &str = "2025-03-15";

    fn question(id: &str, text: &str, section: &str) -> Question {
        Question {
            id: id.to_owned(),
            text: text.to_owned(),
            language: "es".to_owned(),
            model: Tier::Standard,
            dimensions: BTreeMap::from([("seccion".to_owned(), section.to_owned())]),
        }
    }

    fn answer(id: &str, question: &str, model: &str, answer: &str, sources: usize) -> Answer {
        let sources = (0..sources)
            .map(|i| Source { url: format!("https://www.ejemplo{i}.com/p"), title: format!("Página {i}") })
            .collect();
        Answer {
            id: id.to_owned(),
            question: question.to_owned(),
            model: model.to_owned(),
            version: format!("{model}-2025-01"),
            date: "2025-02-01".to_owned(),
            answer: answer.to_owned(),
            sources,
            tone: BTreeMap::from([("acme".to_owned(), Tone::Pos), ("beta".to_owned(), Tone::Neg)]),
            repetition: None,
            collection: None,
            surface: None,
            consulted: None,
        }
    }

    fn model(id: &str, level: Tier) -> ModelSpec {
        ModelSpec { id: id.to_owned(), name: id.to_uppercase(), provider: "Proveedor".to_owned(), level }
    }

    fn fixture_study() -> Study {
        let design = StudyFile {
            name: "Estudio de prueba: bancos".to_owned(),
            name_en: "Test study: banks".to_owned(),
            description: "Descripción".to_owned(),
            description_en: "Description".to_owned(),
            industry: "Finanzas".to_owned(),
            subindustry: "Banca".to_owned(),
            country: vec!["MX".to_owned()],
            language: vec!["es".to_owned()],
            published: DATE.to_owned(),
            price_usd: None,
            package_version: "1.0.0".to_owned(),
            tags: vec!["banca".to_owned()],
            how_to_cite: "Editor (2025)".to_owned(),
            note: String::new(),
            methodology: Vec::new(),
            dimensions: vec![Dimension {
                id: "seccion".to_owned(),
                label: "Sección".to_owned(),
                label_en: "Section".to_owned(),
                values: vec!["cuentas".to_owned(), "tarjetas".to_owned()],
            }],
            models: vec![model("modelo-a", Tier::Standard), model("modelo-b", Tier::Advanced)],
            weighting: None,
            analyses: Vec::new(),
            previous_run: None,
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
            previous: None,
        }
    }

    fn fixture_tables() -> Vec<Table> {
        vec![
            Table {
                id: "A01".to_owned(),
                name: "Mención y orden por marca: [total] / todas*".to_owned(),
                title: "Mención por marca".to_owned(),
                title_en: "Mention by brand".to_owned(),
                columns: ["marca", "mencion", "orden", "n_orden"].map(str::to_owned).to_vec(),
                rows: vec![
                    vec![Cell::Text("Acme".into()), Cell::Num(0.75), Cell::Num(1.3333), Cell::Int(3)],
                    vec![Cell::Text("Gamma".into()), Cell::Num(0.0), Cell::Null, Cell::Int(0)],
                ],
                note: Some("Base: 4 respuestas. Modelos con igual peso.".to_owned()),
            },
            Table {
                id: "A02".to_owned(),
                name: "Concentración".to_owned(),
                title: "Concentración por modelo".to_owned(),
                title_en: "Concentration by model".to_owned(),
                columns: ["grupo", "respuestas", "lider", "hhi_sov"].map(str::to_owned).to_vec(),
                rows: vec![
                    vec![Cell::Text("modelo-a".into()), Cell::Int(2), Cell::Text("Acme".into()), Cell::Num(0.5)],
                    vec![Cell::Text("total".into()), Cell::Int(4), Cell::Null, Cell::Num(0.625)],
                ],
                note: None,
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
            assert_eq!(text(&answers, i + 1, 6), a.answer);
        }
        assert_eq!(text(&answers, 1, 3), "api", "a line without `superficie` is the API");
        assert_eq!(
            text(&answers, 1, 7),
            "Página 0 — https://www.ejemplo0.com/p\nPágina 1 — https://www.ejemplo1.com/p"
        );
        assert_eq!(answers.get((3, 7)), Some(&Data::Empty), "no sources: empty cell");
        assert_eq!(text(&answers, 1, 8), CONSULTED_NOT_RECORDED, "not recorded is said, not left empty");
        assert_eq!(text(&answers, 1, 9), "acme:pos; beta:neg");
    }

    #[test]
    fn xlsx_answers_carry_the_surface_and_the_consulted_sources() {
        let mut study = fixture_study();
        study.answers[0].surface = Some("google_ai_overview".to_owned());
        study.answers[0].consulted = Some(vec![
            Source { url: "https://www.ejemplo0.com/p".to_owned(), title: "Página 0".to_owned() },
            Source { url: "https://acme.com/tasas".to_owned(), title: "Tasas | Acme".to_owned() },
        ]);
        study.answers[1].consulted = Some(Vec::new());
        let answers = sheet(&xlsx(&study), "respuestas");
        assert_eq!(text(&answers, 1, 3), "google_ai_overview");
        assert_eq!(text(&answers, 2, 3), "api");
        assert_eq!(
            text(&answers, 1, 8),
            "Página 0 — https://www.ejemplo0.com/p\nTasas | Acme — https://acme.com/tasas"
        );
        assert_eq!(answers.get((2, 8)), Some(&Data::Empty), "recorded, none consulted: empty cell");
    }

    #[test]
    fn xlsx_overlong_answer_is_cut_and_still_opens() {
        let mut study = fixture_study();
        let long = "ñ".repeat(EXCEL_CELL_MAX + 10);
        study.answers[1].answer = long;
        let bytes = xlsx(&study);
        let answers = sheet(&bytes, "respuestas");
        let cell = text(&answers, 2, 6);
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
        tables[1].name = tables[0].name.to_uppercase();
        assert!(study_xlsx(&study, &tables, "E", DATE).is_err());
        let mut tables = fixture_tables();
        tables[0].id = "Preguntas".to_owned();
        tables[0].name = String::new();
        assert!(study_xlsx(&study, &tables, "E", DATE).is_err());
        assert!(study_xlsx(&study, &fixture_tables(), "E", "2025-02-30").is_err());
    }

    #[test]
    fn xlsx_rejects_non_finite_numbers() {
        let mut tables = fixture_tables();
        tables[0].rows[0][1] = Cell::Num(f64::NAN);
        let err = study_xlsx(&fixture_study(), &tables, "E", DATE).unwrap_err();
        assert!(format!("{err:#}").contains("A01"), "{err:#}");
    }

    #[test]
    fn fixture_size() {
        use sha2::Digest;
        let book = xlsx(&fixture_study());
        eprintln!("fixture xlsx: {} bytes, sha256 {:x}", book.len(), sha2::Sha256::digest(&book));
    }
}
