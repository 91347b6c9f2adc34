//! Random programs in the shape of the paper's experiment (placeholder,
//! filled in below).
