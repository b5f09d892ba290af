//! The shared record's database errors, worded once for the log (never with the password), for
//! the record ([`super::postgres`]) and its committers ([`super::group_commit`]) alike: a leaf
//! both import, so neither imports the other back.

/// A database error, already worded for the log (never with the password).
#[derive(Debug, Clone)]
pub struct DbError(pub String);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DbError {}

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> DbError {
        DbError(match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        })
    }
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> DbError {
        DbError(format!("sin conexión con la base de ventas: {}", with_causes(&e)))
    }
}

/// An error and its causes on one line (a TLS refusal says why only in its source:
/// "error performing TLS handshake: invalid peer certificate: UnknownIssuer").
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text = format!("{text}: {said}");
        }
        source = cause.source();
    }
    text
}
