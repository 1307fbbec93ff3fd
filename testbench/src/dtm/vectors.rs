use crate::SpecVector;
pub fn spec_vectors() -> Vec<SpecVector> { vec![] }
