//! `synth`: the seeded synthetic corpus behind the sample studies.
