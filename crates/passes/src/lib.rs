//! weft-passes
