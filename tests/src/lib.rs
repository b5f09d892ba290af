//! End-to-end tests live in `tests/tests/`; benchmark programs in `src/bin/`.
