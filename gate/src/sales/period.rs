//! The days a sales report covers (`gate ventas --desde/--hasta`): parsed and checked once,
//! then asked of each sale's date by the report and its CSV.

use anyhow::{Result, bail};

/// The days a report covers, both inclusive, as `YYYY-MM-DD` (UTC, as the journal's `fecha`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Period {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "desde")]
    pub since: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "hasta")]
    pub until: Option<String>,
}

impl Period {
    /// `--desde` and `--hasta`, each a valid date, the first not after the second.
    pub fn parse(since: Option<&str>, until: Option<&str>) -> Result<Period> {
        for (flag, day) in [("--desde", since), ("--hasta", until)] {
            if let Some(day) = day
                && !is_date(day)
            {
                bail!("{flag} {day:?}: se espera una fecha AAAA-MM-DD");
            }
        }
        if let (Some(from), Some(to)) = (since, until)
            && from > to
        {
            bail!("--desde {from} es posterior a --hasta {to}");
        }
        Ok(Period { since: since.map(str::to_owned), until: until.map(str::to_owned) })
    }

    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether an ISO 8601 time (`2026-11-01T…`) falls on a day of the period.
    pub fn contains(&self, date: &str) -> bool {
        let day = date.get(..10).unwrap_or(date);
        self.since.as_deref().is_none_or(|from| day >= from) && self.until.as_deref().is_none_or(|to| day <= to)
    }
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' || !digits(0..4) || !digits(5..7) || !digits(8..10) {
        return false;
    }
    let month: u32 = text[5..7].parse().unwrap_or(0);
    let day: u32 = text[8..10].parse().unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}
