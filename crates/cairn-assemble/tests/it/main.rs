//! Integration tests for `cairn-assemble`: one test binary.

mod behaviour;
mod fixtures;
mod props;
mod snapshots;
