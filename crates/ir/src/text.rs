//! text: filled in by its owner.
