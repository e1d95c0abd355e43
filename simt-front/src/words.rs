//! The instruction set as the front end sees it: the mnemonic table, with the
//! parser's questions about it and suggestions for misspelt words.
//!
//! The parser asks which mnemonics take operands, the checker takes each
//! operand's role from the table, and unknown mnemonics are matched against it
//! for a suggestion. `docs/src/language/instructions.md` is tested against the table so the
//! reference cannot drift.

pub use simt_lang::isa::lookup;

/// Whether an instruction starting with `name` has operands to parse. A
/// misspelt mnemonic is taken to have the operands of what it most likely
/// means, so that a misspelt `endif` does not swallow the next instruction.
pub fn takes_operands(name: &str) -> bool {
    if let Some(m) = lookup(name) {
        return m.operands().next().is_some();
    }
    let suggestions = crate::suggest::mnemonics(name);
    suggestions.is_empty()
        || suggestions
            .iter()
            .any(|s| lookup(s).is_some_and(|m| m.operands().next().is_some()))
}

/// Words that start a declaration, not an instruction.
pub const DECLARATIONS: &[&str] = &["vreg", "sreg", "mreg", "lds"];

/// Whether `name` starts an instruction or declaration, so it can never be an operand.
pub fn is_reserved(name: &str) -> bool {
    DECLARATIONS.contains(&name) || lookup(name).is_some()
}
