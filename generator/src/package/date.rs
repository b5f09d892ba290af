//! The study's publication date, which every timestamp inside its paid files comes from.
//!
//! Nothing in a package reads the clock, so rebuilding the same content gives the same bytes.
//! The ZIP entries' times and the xlsx document dates are this date at midnight.

use anyhow::{Context, Result, ensure};

/// A calendar date from a "YYYY-MM-DD" string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Date {
    pub(super) year: u16,
    pub(super) month: u8,
    pub(super) day: u8,
}

impl Date {
    pub(super) fn parse(text: &str) -> Result<Date> {
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
