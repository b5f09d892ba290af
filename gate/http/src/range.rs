//! `Range` requests (RFC 9110 §14): which part of a file a client asks for.
//!
//! A buyer on a flaky link resumes a download where it stopped instead of starting over. One
//! range is served as 206; several ranges in one request are answered with the whole file (200),
//! which RFC 9110 allows and every download client handles, rather than a multipart body no
//! download tool wants. A range that does not parse is ignored (the whole file), as the RFC asks;
//! one that parses but starts past the end is unsatisfiable (416).

/// What a request's `Range` (and `If-Range`) ask of a representation of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// The whole file, 200.
    Whole,
    /// `len` bytes from `start`, 206.
    Part { start: u64, len: u64 },
    /// Nothing of it can be served, 416.
    Unsatisfiable,
}

/// Reads `Range` against a file of `total` bytes whose strong ETag is `etag` (with its quotes).
/// `If-Range` that does not match the ETag exactly (another version, or a date: these files
/// carry no `Last-Modified`) turns the request into a plain one for the whole file.
pub fn wanted(range: Option<&[u8]>, if_range: Option<&[u8]>, etag: &str, total: u64) -> Wanted {
    let Some(range) = range.and_then(|r| std::str::from_utf8(r).ok()) else { return Wanted::Whole };
    if if_range.is_some_and(|value| value.trim_ascii() != etag.as_bytes()) {
        return Wanted::Whole;
    }
    let Some(spec) = strip_unit(range.trim()) else { return Wanted::Whole };
    if spec.contains(',') {
        return Wanted::Whole;
    }
    match parse_spec(spec.trim()) {
        Some(spec) => spec.resolve(total),
        None => Wanted::Whole,
    }
}

/// `bytes=…` → `…` (the unit is case-insensitive).
fn strip_unit(range: &str) -> Option<&str> {
    let (unit, spec) = range.split_once('=')?;
    unit.trim().eq_ignore_ascii_case("bytes").then_some(spec)
}

/// One range as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spec {
    /// `a-b` or `a-`.
    From { first: u64, last: Option<u64> },
    /// `-n`: the last n bytes.
    Suffix(u64),
}

fn parse_spec(spec: &str) -> Option<Spec> {
    let (first, last) = spec.split_once('-')?;
    let number = |text: &str| -> Option<u64> {
        let text = text.trim();
        (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
    };
    if first.trim().is_empty() {
        return number(last).map(Spec::Suffix);
    }
    let first = number(first)?;
    let last = if last.trim().is_empty() { None } else { Some(number(last)?) };
    if last.is_some_and(|last| last < first) {
        return None;
    }
    Some(Spec::From { first, last })
}

impl Spec {
    fn resolve(self, total: u64) -> Wanted {
        match self {
            Spec::From { first, .. } if first >= total => Wanted::Unsatisfiable,
            Spec::From { first, last } => {
                let last = last.map_or(total - 1, |last| last.min(total - 1));
                Wanted::Part { start: first, len: last - first + 1 }
            }
            Spec::Suffix(0) => Wanted::Unsatisfiable,
            Spec::Suffix(_) if total == 0 => Wanted::Unsatisfiable,
            Spec::Suffix(n) => {
                let len = n.min(total);
                Wanted::Part { start: total - len, len }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETAG: &str = "\"abc\"";

    fn want(range: &str) -> Wanted {
        wanted(Some(range.as_bytes()), None, ETAG, 1000)
    }

    #[test]
    fn single_ranges() {
        assert_eq!(want("bytes=0-0"), Wanted::Part { start: 0, len: 1 });
        assert_eq!(want("bytes=999-999"), Wanted::Part { start: 999, len: 1 });
        assert_eq!(want("bytes=500-"), Wanted::Part { start: 500, len: 500 });
        assert_eq!(want("bytes=-1"), Wanted::Part { start: 999, len: 1 });
        assert_eq!(want("bytes=-5000"), Wanted::Part { start: 0, len: 1000 });
        assert_eq!(want("bytes=990-2000"), Wanted::Part { start: 990, len: 10 });
        assert_eq!(want("Bytes = 10-19"), Wanted::Part { start: 10, len: 10 });
    }

    #[test]
    fn unsatisfiable_and_ignored() {
        assert_eq!(want("bytes=1000-"), Wanted::Unsatisfiable);
        assert_eq!(want("bytes=5000-6000"), Wanted::Unsatisfiable);
        assert_eq!(want("bytes=-0"), Wanted::Unsatisfiable);
        // Malformed, another unit, or several ranges: the whole file.
        for ignored in
            ["bytes=5-1", "bytes=a-b", "items=0-1", "bytes=", "bytes=-", "0-1", "bytes=0-1,5-6", "bytes=+1-2"]
        {
            assert_eq!(want(ignored), Wanted::Whole, "{ignored}");
        }
        assert_eq!(wanted(Some(b"bytes=0-0"), None, ETAG, 0), Wanted::Unsatisfiable);
    }

    #[test]
    fn if_range_must_name_this_version() {
        assert_eq!(wanted(Some(b"bytes=0-0"), Some(b"\"abc\""), ETAG, 10), Wanted::Part { start: 0, len: 1 });
        assert_eq!(wanted(Some(b"bytes=0-0"), Some(b"\"otro\""), ETAG, 10), Wanted::Whole);
        assert_eq!(wanted(Some(b"bytes=0-0"), Some(b"W/\"abc\""), ETAG, 10), Wanted::Whole);
        assert_eq!(wanted(Some(b"bytes=0-0"), Some(b"Tue, 24 Nov 2026 03:00:00 GMT"), ETAG, 10), Wanted::Whole);
        assert_eq!(wanted(None, Some(b"\"abc\""), ETAG, 10), Wanted::Whole);
    }
}
