//! One module per command family; each exposes clap argument types and `run`-style functions.

pub(crate) mod aci;
pub(crate) mod boundary;
pub(crate) mod completions;
pub(crate) mod context;
pub(crate) mod doctor;
pub(crate) mod eval;
pub(crate) mod forget;
pub(crate) mod graph;
pub(crate) mod ingest;
pub(crate) mod models;
pub(crate) mod portable;
pub(crate) mod recall;
pub(crate) mod route;
pub(crate) mod serve;
pub(crate) mod sessions;
pub(crate) mod sources;
pub(crate) mod view;
pub(crate) mod wisdom;
pub(crate) mod workspace;
