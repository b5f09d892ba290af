//! Text and HTML outputs, rendered from `templates/` with minijinja.
//!
//! The templates are compiled into the binary (as Zola does with its built-in templates), so
//! a build cannot pick up a stray file, and a typo in a template fails the build: undefined
//! values are errors. Data reaches templates through serde (`minijinja::value::Serde`).

use anyhow::{Context, Result};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::Serde;
use minijinja::{Environment, UndefinedBehavior, Value};
use serde::Serialize;

/// (name, source) of every template.
const TEMPLATES: &[(&str, &str)] = &[
    ("llms.txt.j2", include_str!("../../../templates/llms.txt.j2")),
    ("privacidad.html.j2", include_str!("../../../templates/privacidad.html.j2")),
    ("README.md.j2", include_str!("../../../templates/README.md.j2")),
    ("base.html.j2", include_str!("../../../templates/base.html.j2")),
    ("_graficos.html.j2", include_str!("../../../templates/_graficos.html.j2")),
    ("_comprar.html.j2", include_str!("../../../templates/_comprar.html.j2")),
    ("_billetera.html.j2", include_str!("../../../templates/_billetera.html.j2")),
    ("inicio.html.j2", include_str!("../../../templates/inicio.html.j2")),
    ("estudio.html.j2", include_str!("../../../templates/estudio.html.j2")),
    ("pago.html.j2", include_str!("../../../templates/pago.html.j2")),
];

/// The template environment of one build.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    pub fn new() -> Result<Templates> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_syntax(
            SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .keep_trailing_newline(true)
                .build()
                .context("configuración de plantillas")?,
        );
        env.add_filter("miles", |v: Value| count_of(&v).map(thousands));
        env.add_filter("coma", decimal_comma);
        env.add_filter("tamano", human_size);
        for (name, source) in TEMPLATES {
            env.add_template(name, source).with_context(|| format!("templates/{name}"))?;
        }
        Ok(Templates { env })
    }

    /// Renders template `name` with a serializable context.
    pub fn render<T: Serialize>(&self, name: &str, context: &T) -> Result<Vec<u8>> {
        let template = self.env.get_template(name).with_context(|| format!("templates/{name}"))?;
        let text =
            template.render(Value::from(Serde(context))).with_context(|| format!("al renderizar templates/{name}"))?;
        Ok(text.into_bytes())
    }
}

/// `1800 | miles` → "1.800": Spanish digit grouping for counts shown to people.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('.');
        }
        out.push(c);
    }
    out
}

/// A whole number from a number or a string of digits ("990000"), for the `miles` filter.
fn count_of(value: &Value) -> Result<u64, minijinja::Error> {
    u64::try_from(value.clone()).ok().or_else(|| value.as_str().and_then(|s| s.parse().ok())).ok_or_else(|| {
        minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("miles: {value} no es un número entero"))
    })
}

/// `"0.99" | coma` → "0,99": a decimal written with the Spanish decimal comma.
pub fn decimal_comma(value: Value) -> String {
    value.to_string().replace('.', ",")
}

/// `123456 | tamano` → "123,5 kB": a file size for people (SI units, one decimal).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1000.0;
    let mut unit = 0;
    while size >= 1000.0 && unit + 1 < UNITS.len() {
        size /= 1000.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit]).replace('.', ",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_the_spanish_way() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1800), "1.800");
        assert_eq!(thousands(1234567), "1.234.567");
        assert_eq!(count_of(&Value::from("990000")).map(thousands).ok().as_deref(), Some("990.000"));
        assert!(count_of(&Value::from("x")).is_err());
        assert_eq!(decimal_comma(Value::from("0.99")), "0,99");
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(123_456), "123,5 kB");
        assert_eq!(human_size(2_500_000), "2,5 MB");
    }
}
