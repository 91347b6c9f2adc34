//! The way back from a model to a test vector for the concolic engine: the
//! parent run's inputs with the model's values for their symbols.

use crate::symex::TracedInput;
use walkdown_ir::testvec::{InputValue, TestVector};
use walkdown_ir::DataModel;
use walkdown_smt::Model;

fn is_nan(ty: walkdown_ir::Type, bits: u64) -> bool {
    if ty == walkdown_ir::Type::F32 {
        f32::from_bits(bits as u32).is_nan()
    } else {
        f64::from_bits(bits).is_nan()
    }
}

/// The vector a model gives: the parent run's inputs with the values the
/// model assigns to their symbols replaced; values the parent did not
/// consume are kept after them.
pub fn vector_from_model(inputs: &[TracedInput], parent: &TestVector, model: &Model, dm: DataModel) -> TestVector {
    let mut values: Vec<InputValue> = Vec::with_capacity(inputs.len().max(parent.values.len()));
    for (i, input) in inputs.iter().enumerate() {
        let bits = input.sym.and_then(|s| model.sym(s)).map(|v| v as u64);
        let v = match bits {
            // A NaN is written `nan` in a test file, which reads back as
            // the positive quiet NaN: the vector holds that one too, so the
            // engine's replay runs what the file says.
            Some(b) if input.ty.is_float() && is_nan(input.ty, b) => InputValue::Float(f64::NAN),
            Some(b) => InputValue::from_bits(input.ty, input.signed, b, dm),
            None => parent
                .values
                .get(i)
                .copied()
                .unwrap_or_else(|| InputValue::from_bits(input.ty, input.signed, input.bits, dm)),
        };
        values.push(v);
    }
    if parent.values.len() > values.len() {
        values.extend_from_slice(&parent.values[values.len()..]);
    }
    TestVector { values }
}
