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
    ("llms.txt.j2", include_str!("../../templates/llms.txt.j2")),
    ("privacidad.html.j2", include_str!("../../templates/privacidad.html.j2")),
    ("README.md.j2", include_str!("../../templates/README.md.j2")),
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
        for (name, source) in TEMPLATES {
            env.add_template(name, source).with_context(|| format!("templates/{name}"))?;
        }
        Ok(Templates { env })
    }

    /// Renders template `name` with a serializable context.
    pub fn render<T: Serialize>(&self, name: &str, context: &T) -> Result<Vec<u8>> {
        let template = self.env.get_template(name).with_context(|| format!("templates/{name}"))?;
        let text = template
            .render(Value::from(Serde(context)))
            .with_context(|| format!("al renderizar templates/{name}"))?;
        Ok(text.into_bytes())
    }
}
