//! PDF bytes of a report: typst as a library (cargo feature `pdf`).
//!
//! A minimal [`World`]: the template compiled into the binary is the only source file, the
//! report model is the only other file (`/datos.json`), the fonts are typst-assets' embedded
//! OFL fonts, there is no package access, and `today()` is `None`. With the document date
//! unset and the PDF identifier derived from `<slug>-<lang>`, the same data always gives the
//! same bytes, on any machine.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use typst::diag::{FileError, FileResult, SourceDiagnostic};
use typst::foundations::{Bytes, Datetime, Smart};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};
use typst_layout::PagedDocument;
use typst_pdf::PdfOptions;

use super::{LANGUAGES, Lang, report, report_file_name};
use crate::metrics::analysis::Table;
use crate::metrics::multiplicity::Family;
use crate::model::Study;
use crate::render::site::Site;

/// The report template, compiled into the binary.
pub const TEMPLATE: &str = include_str!("../../../../templates/informe.typ");
const TEMPLATE_PATH: &str = "/informe.typ";
const DATA_PATH: &str = "/datos.json";

/// Fonts and standard library, loaded once per process.
struct Shared {
    library: LazyHash<Library>,
    book: LazyHash<FontBook>,
    fonts: Vec<Font>,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let fonts: Vec<Font> = typst_assets::fonts().flat_map(|data| Font::iter(Bytes::new(data))).collect();
        Shared {
            library: LazyHash::new(<Library as LibraryExt>::default()),
            book: LazyHash::new(FontBook::from_fonts(&fonts)),
            fonts,
        }
    })
}

fn project_file(path: &str) -> Result<FileId> {
    let vpath = VirtualPath::new(path).map_err(|e| anyhow!("ruta virtual {path}: {e:?}"))?;
    Ok(RootedPath::new(VirtualRoot::Project, vpath).intern())
}

/// One report's world: the template plus its data.
struct ReportWorld {
    shared: &'static Shared,
    template: String,
    main: Source,
    data_id: FileId,
    data: Bytes,
}

impl ReportWorld {
    fn new(template: &str, data: Vec<u8>) -> Result<ReportWorld> {
        let main_id = project_file(TEMPLATE_PATH)?;
        Ok(ReportWorld {
            shared: shared(),
            template: template.to_owned(),
            main: Source::new(main_id, template.to_owned()),
            data_id: project_file(DATA_PATH)?,
            data: Bytes::new(data),
        })
    }

    fn not_found(id: FileId) -> FileError {
        FileError::NotFound(id.vpath().get_with_slash().into())
    }
}

impl World for ReportWorld {
    fn library(&self) -> &LazyHash<Library> {
        &self.shared.library
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &self.shared.book
    }

    fn main(&self) -> FileId {
        self.main.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() { Ok(self.main.clone()) } else { Err(Self::not_found(id)) }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        if id == self.data_id {
            Ok(self.data.clone())
        } else if id == self.main.id() {
            Ok(Bytes::from_string(self.template.clone()))
        } else {
            Err(Self::not_found(id))
        }
    }

    fn font(&self, index: usize) -> Option<Font> {
        self.shared.fonts.get(index).cloned()
    }

    /// No clock: a template asking for today's date fails instead of changing the bytes.
    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        None
    }
}

/// Typesets one report model (as JSON) with `template` into PDF bytes.
pub fn render_model(template: &str, ident: &str, data: Vec<u8>) -> Result<Vec<u8>> {
    let world = ReportWorld::new(template, data)?;
    let compiled = typst::compile::<PagedDocument>(&world);
    let document =
        compiled.output.map_err(|errors| anyhow!("la plantilla del informe falló: {}", describe(&errors)))?;
    // A warning (an unknown font, a layout that did not converge) would change the look
    // silently: treat it as an error.
    if !compiled.warnings.is_empty() {
        anyhow::bail!("la plantilla del informe dio avisos: {}", describe(&compiled.warnings));
    }
    let options = PdfOptions { ident: Smart::Custom(ident.to_owned()), timestamp: None, ..PdfOptions::default() };
    typst_pdf::pdf(&document, &options).map_err(|errors| anyhow!("no se pudo escribir el PDF: {}", describe(&errors)))
}

fn describe(errors: &[SourceDiagnostic]) -> String {
    errors.iter().map(|e| e.message.to_string()).collect::<Vec<_>>().join("; ")
}

/// A rendered report: file name, bytes and how long typesetting took.
pub struct RenderedReport {
    pub name: String,
    pub lang: Lang,
    pub bytes: Vec<u8>,
    pub elapsed: Duration,
}

/// The study's reports in every language, in [`LANGUAGES`] order, with the built-in template,
/// from its analysis tables and its change tables (empty for a first run).
pub fn render_reports(
    site: &Site<'_>,
    study: &Study,
    tables: &[Table],
    changes: &[Table],
    family: Option<&Family>,
) -> Result<Vec<RenderedReport>> {
    render_reports_with(TEMPLATE, site, study, tables, changes, family)
}

/// [`render_reports`] with another template (a publisher's own layout of the same model).
pub fn render_reports_with(
    template: &str,
    site: &Site<'_>,
    study: &Study,
    tables: &[Table],
    changes: &[Table],
    family: Option<&Family>,
) -> Result<Vec<RenderedReport>> {
    LANGUAGES
        .iter()
        .map(|&lang| {
            let started = Instant::now();
            let model = report(site, study, tables, changes, family, lang);
            let data = serde_json::to_vec(&model)?;
            let bytes = render_model(template, &model.ident, data)
                .map_err(|e| e.context(format!("{}: informe {}", study.slug, lang.code())))?;
            Ok(RenderedReport { name: report_file_name(lang), lang, bytes, elapsed: started.elapsed() })
        })
        .collect()
}
