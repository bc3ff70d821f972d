//! Not yet implemented: this crate is filled by a later issue. It exposes nothing.
