//! Routing: which workflow pack a turn gets and which bootstrap files its session loads.
#![warn(missing_docs)]
