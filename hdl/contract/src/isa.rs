//! The SIMT instruction encoding (to be written).
