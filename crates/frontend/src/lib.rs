//! weft-frontend
