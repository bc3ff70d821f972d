//! interp: filled in by its owner.
