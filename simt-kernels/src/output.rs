//! Kernel outputs, compared bit for bit.

use std::fmt;

/// The contents of a kernel's output buffer.
///
/// Equality is bitwise: two `f32` outputs are equal only when every element has the
/// same bits, so `-0.0` differs from `0.0` and a NaN equals the same NaN. That is
/// what "bit-exact against the oracle" means.
#[derive(Clone, Debug)]
pub enum Values {
    /// An `i32` buffer.
    I32(Vec<i32>),
    /// An `f32` buffer.
    F32(Vec<f32>),
}

/// The first element where two outputs differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the element, or the shorter length when the lengths differ.
    pub index: usize,
    /// The element of the left-hand output (`-` when missing).
    pub got: String,
    /// The element of the right-hand output (`-` when missing).
    pub expected: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "element {}: got {}, expected {}",
            self.index, self.got, self.expected
        )
    }
}

impl Values {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Values::I32(v) => v.len(),
            Values::F32(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements as raw 32-bit patterns.
    pub fn bits(&self) -> Vec<u32> {
        match self {
            Values::I32(v) => v.iter().map(|&x| x as u32).collect(),
            Values::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        }
    }

    fn element(&self, i: usize) -> String {
        match self {
            Values::I32(v) => v.get(i).map_or_else(|| "-".to_owned(), |x| x.to_string()),
            Values::F32(v) => v.get(i).map_or_else(
                || "-".to_owned(),
                |x| format!("{x:?} ({:#010x})", x.to_bits()),
            ),
        }
    }

    /// The first element where `self` and `expected` differ, if any; outputs of
    /// different element types differ at element 0.
    pub fn first_mismatch(&self, expected: &Values) -> Option<Mismatch> {
        let same_type = matches!(
            (self, expected),
            (Values::I32(_), Values::I32(_)) | (Values::F32(_), Values::F32(_))
        );
        let (a, b) = (self.bits(), expected.bits());
        let index = if same_type {
            a.iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))?
        } else {
            0
        };
        Some(Mismatch {
            index,
            got: self.element(index),
            expected: expected.element(index),
        })
    }
}

impl PartialEq for Values {
    fn eq(&self, other: &Self) -> bool {
        self.first_mismatch(other).is_none()
    }
}

impl Eq for Values {}

impl From<Vec<i32>> for Values {
    fn from(v: Vec<i32>) -> Self {
        Values::I32(v)
    }
}

impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::F32(v)
    }
}
