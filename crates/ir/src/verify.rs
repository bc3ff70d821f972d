//! verify: filled in by its owner.
