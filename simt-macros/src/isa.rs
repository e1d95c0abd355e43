//! The instruction set as the macro sees it: the mnemonic table of `simt_core`,
//! with the parser's questions about it and suggestions for misspelt words.
//!
//! The parser asks which mnemonics take operands, the checker takes each
//! operand's role from the table, and unknown mnemonics are matched against it
//! for a suggestion. `docs/language.md` is tested against the table so the
//! reference cannot drift.

pub use simt_core::isa::{lookup, Mnemonic, MNEMONICS};

/// Whether an instruction starting with `name` has operands to parse. A
/// misspelt mnemonic is taken to have the operands of what it most likely
/// means, so that a misspelt `endif` does not swallow the next instruction.
pub fn takes_operands(name: &str) -> bool {
    if let Some(m) = lookup(name) {
        return m.operands().next().is_some();
    }
    let suggestions = closest(name, MNEMONICS.iter().map(|m| m.name));
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

/// The edit distance between two words, counting a swap of neighbours as one
/// edit (optimal string alignment), since `endfi` is one slip from `endif`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidates closest to `word`, for "did you mean": every candidate that
/// extends `word` with a `_suffix` (`v_add` -> `v_add_u32`, ...), else the ones
/// at the smallest edit distance if it is small for the word's length.
pub fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Vec<&'a str> {
    let prefix = format!("{word}_");
    let extended: Vec<&str> = candidates
        .clone()
        .into_iter()
        .filter(|c| c.starts_with(&prefix))
        .collect();
    if !extended.is_empty() {
        return extended;
    }
    let limit = (word.chars().count() / 3).max(1);
    let mut best = Vec::new();
    let mut best_d = limit + 1;
    for c in candidates {
        let d = distance(word, c);
        if d < best_d {
            best_d = d;
            best.clear();
        }
        if d == best_d && !best.contains(&c) {
            best.push(c);
        }
    }
    best
}

/// "; did you mean `a`, `b` or `c`?" or nothing.
pub fn did_you_mean(suggestions: &[&str]) -> String {
    let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [init @ .., last] => format!("; did you mean {} or {last}?", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let names = || MNEMONICS.iter().map(|m| m.name);
        assert_eq!(closest("v_add_f23", names()), ["v_add_f32"]);
        assert_eq!(
            closest("v_add", names()),
            ["v_add_u32", "v_add_i32", "v_add_f32"]
        );
        assert_eq!(closest("endfi", names()), ["endif"]);
        assert_eq!(closest("globl_load", names()), ["global_load"]);
        assert!(closest("frobnicate", names()).is_empty());
        assert_eq!(
            did_you_mean(&["a", "b", "c"]),
            "; did you mean `a`, `b` or `c`?"
        );
        assert_eq!(did_you_mean(&["a"]), "; did you mean `a`?");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
