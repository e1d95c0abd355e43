//! The oracle's hand-computed cases.

mod hand;
