//! weft-backend-cpu
