//! What the settings' `Debug` and the logs may show of a secret: that it is set, never its
//! value; of a URL, its scheme, host and port only.

/// What a `Debug` shows of a secret: that it is set, never its value.
pub(super) const HIDDEN: &str = "[oculto]";

/// A URL as `Debug` and logs may show it: scheme, host and port only. The user and password
/// (a database URL), the path and the query (where RPC providers and some facilitators put
/// the API key) are replaced by [`HIDDEN`].
pub fn redacted_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return HIDDEN.to_owned() };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let tail = if tail.is_empty() || tail == "/" { tail } else { "/[oculto]" };
    format!("{scheme}://{host}{tail}")
}

pub(super) fn hidden(secret: &Option<String>) -> Option<&'static str> {
    secret.as_ref().map(|_| HIDDEN)
}

pub(super) fn url_shown(url: &Option<String>) -> Option<String> {
    url.as_deref().map(redacted_url)
}

/// `--rpc RED=URL` values with each URL shown as scheme, host and port only.
pub(super) fn rpc_flags_shown(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|value| match value.split_once('=') {
            Some((network, url)) => format!("{network}={}", redacted_url(url)),
            None => HIDDEN.to_owned(),
        })
        .collect()
}

/// `Name: value` with the value hidden.
pub(super) fn auth_shown(auth: &Option<String>) -> Option<String> {
    auth.as_deref().map(|a| format!("{}: {HIDDEN}", a.split_once(':').map_or("", |(name, _)| name.trim())))
}
