//! stub
use super::engine::Industria;
pub(crate) fn industria() -> Industria { super::banca::industria() }
