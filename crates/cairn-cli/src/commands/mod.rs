//! One module per command family; each exposes clap argument types and `run`-style functions.

pub(crate) mod context;
pub(crate) mod ingest;
pub(crate) mod models;
pub(crate) mod recall;
pub(crate) mod route;
