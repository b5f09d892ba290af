//! The collector: asks the AI providers' APIs every (question, model, repetition) of a study, with
//! web search on, and appends the raw answers to the study's `respuestas.jsonl` in the content
//! format. The generator stays offline and deterministic; this is the one program that talks to
//! the providers.
//!
//! Modules, in the order a run uses them: [`config`] (the collection file), [`journal`] (the
//! study's files: questions in, answers and incidents out, what is already done), [`providers`]
//! (the wire protocols), [`client`] (sending with retries, pacing and stops), [`run`] (plan,
//! budget, progress, summary), [`tone`] (the judge's labels and imported human labels) and
//! [`simulator`] (a local server speaking those APIs, for tests and rehearsals); [`surface`] lists
//! where an answer can be seen.

pub mod batch;
pub mod client;
pub mod config;
pub mod journal;
pub mod providers;
pub mod run;
mod session;
pub mod simulator;
pub mod summary;
pub mod surface;
pub mod tone;
