//! The two views a study is sold in: same price, different content.

use serde::{Deserialize, Serialize};

/// What a paid answer embeds. Ordered as their names, so maps keyed by view are written in
/// the same order as maps keyed by the names were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// The full package: every table and every raw answer.
    #[serde(rename = "completo")]
    Full,
    /// Sheet, design, findings and metrics, without the answers.
    #[serde(rename = "resumen")]
    Summary,
}

impl View {
    /// Every view, in order; the first is the HTTP route's default.
    pub const ALL: [View; 2] = [View::Full, View::Summary];
    /// Their names, for error messages and schemas.
    pub const NAMES: [&'static str; 2] = ["completo", "resumen"];

    pub fn as_str(self) -> &'static str {
        match self {
            View::Full => "completo",
            View::Summary => "resumen",
        }
    }

    /// The view a `vista` value names.
    pub fn parse(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.as_str() == name)
    }
}

impl std::fmt::Display for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_order_as_strings() {
        for (view, name) in View::ALL.iter().zip(View::NAMES) {
            assert_eq!(view.as_str(), name);
            assert_eq!(View::parse(name), Some(*view));
            assert_eq!(serde_json::to_string(view).expect("serializes"), format!("\"{name}\""));
        }
        assert_eq!(View::parse("Completo"), None);
        let mut names = View::NAMES;
        names.sort_unstable();
        assert_eq!(names, View::NAMES, "View's Ord must match its names' order");
    }
}
