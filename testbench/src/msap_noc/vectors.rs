//! Network-level spec vectors of `msap-noc`.

use crate::SpecVector;

pub fn spec_vectors() -> Vec<SpecVector> {
    vec![]
}
