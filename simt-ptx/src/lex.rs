//! PTX text to tokens, each with its line and column. Comments are dropped;
//! numbers keep their spelling's kind (`0f` hex floats, `0d` hex doubles,
//! integers in decimal, hex, octal or binary).

use crate::diagnostic::{Pos, PtxError};

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name: an opcode, a label, a symbol (`add`, `$L__BB0_2`, `_Z3fooPf`).
    Ident(String),
    /// A word after a dot: a directive, a type or a modifier (`.reg`, `.f32`).
    Dot(String),
    /// A register or special register, without its `%` (`r1`, `tid`).
    Reg(String),
    /// An integer, as its 64 bits (negative numbers come as `-` and the number).
    Int(u64),
    /// A single-precision constant, as its bits (`0f3F800000`).
    F32(u32),
    /// A double-precision constant, as its bits (`0d3FF0000000000000`), or a
    /// decimal number with a point or an exponent.
    F64(u64),
    /// A string (`.file 1 "seeds.cu"`).
    Str(String),
    /// One of `{ } ( ) [ ] ; , : < > + - | @ ! =`.
    Punct(char),
}

/// A token and where it starts.
#[derive(Clone, Debug)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it starts.
    pub at: Pos,
    /// Its length in characters, for underlining.
    pub len: u32,
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The tokens of `text`, or the first character that starts none.
pub fn lex(text: &str) -> Result<Vec<Token>, PtxError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(text.len() / 4);
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let at = Pos { line, column: col };
        let start = i;
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            col += 2;
            loop {
                match chars.get(i) {
                    None => return Err(PtxError::new(at, 2, "a comment that never ends")),
                    Some('*') if chars.get(i + 1) == Some(&'/') => {
                        i += 2;
                        col += 2;
                        break;
                    }
                    Some('\n') => {
                        i += 1;
                        line += 1;
                        col = 1;
                    }
                    Some(_) => {
                        i += 1;
                        col += 1;
                    }
                }
            }
            continue;
        }
        let tok = if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(PtxError::new(at, 1, "a string that never ends"))
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some('\\') if i + 1 < chars.len() => {
                        s.push(chars[i + 1]);
                        i += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            Tok::Str(s)
        } else if c == '.' && chars.get(i + 1).is_some_and(|&d| ident_start(d)) {
            i += 1;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            Tok::Dot(chars[start + 1..i].iter().collect())
        } else if c == '%' && chars.get(i + 1).is_some_and(|&d| ident_char(d)) {
            i += 1;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            Tok::Reg(chars[start + 1..i].iter().collect())
        } else if ident_start(c) {
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                // An exponent's sign belongs to the number.
                if (chars[i] == 'e' || chars[i] == 'E')
                    && matches!(chars.get(i + 1), Some('+') | Some('-'))
                    && !is_hex_prefixed(&chars[start..i])
                {
                    i += 1;
                }
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            number(&word).ok_or_else(|| {
                PtxError::new(at, word.len() as u32, format!("`{word}` is not a number"))
            })?
        } else if "{}()[];,:<>+-|@!=".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(PtxError::new(at, 1, format!("`{c}` starts no PTX token")));
        };
        let len = (i - start) as u32;
        col += len;
        out.push(Token { tok, at, len });
    }
    Ok(out)
}

fn is_hex_prefixed(word: &[char]) -> bool {
    word.len() >= 2 && word[0] == '0' && matches!(word[1], 'x' | 'X' | 'f' | 'F' | 'd' | 'D')
}

/// A number's token: `0f`/`0d` hex floats, `0x` hex, `0b` binary, a leading
/// `0` octal, decimal integers and decimal floats; a trailing `U` is allowed.
fn number(word: &str) -> Option<Tok> {
    let w = word.strip_suffix(['U', 'u']).unwrap_or(word);
    let lower = w.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        return (h.len() == 8)
            .then(|| u32::from_str_radix(h, 16).ok())
            .flatten()
            .map(Tok::F32);
    }
    if let Some(h) = lower.strip_prefix("0d") {
        return (h.len() == 16)
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten()
            .map(Tok::F64);
    }
    if let Some(h) = lower.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(Tok::Int);
    }
    if let Some(b) = lower.strip_prefix("0b") {
        return u64::from_str_radix(b, 2).ok().map(Tok::Int);
    }
    if lower.contains(['.', 'e']) {
        return lower.parse::<f64>().ok().map(|x| Tok::F64(x.to_bits()));
    }
    if lower.len() > 1 && lower.starts_with('0') {
        return u64::from_str_radix(&lower[1..], 8).ok().map(Tok::Int);
    }
    lower.parse::<u64>().ok().map(Tok::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn an_instruction_lexes_into_its_parts() {
        assert_eq!(
            toks("@%p1 ld.global.f32 %f1, [%rd4+-8]; // load"),
            vec![
                Tok::Punct('@'),
                Tok::Reg("p1".into()),
                Tok::Ident("ld".into()),
                Tok::Dot("global".into()),
                Tok::Dot("f32".into()),
                Tok::Reg("f1".into()),
                Tok::Punct(','),
                Tok::Punct('['),
                Tok::Reg("rd4".into()),
                Tok::Punct('+'),
                Tok::Punct('-'),
                Tok::Int(8),
                Tok::Punct(']'),
                Tok::Punct(';'),
            ]
        );
    }

    #[test]
    fn numbers_keep_their_kind() {
        assert_eq!(toks("0f3F800000"), vec![Tok::F32(0x3f80_0000)]);
        assert_eq!(
            toks("0d3FF0000000000000"),
            vec![Tok::F64(0x3ff0_0000_0000_0000)]
        );
        assert_eq!(
            toks("0xff 017 0b101 42U"),
            vec![Tok::Int(255), Tok::Int(15), Tok::Int(5), Tok::Int(42)]
        );
        assert_eq!(toks("1.5e-3"), vec![Tok::F64(1.5e-3f64.to_bits())]);
    }

    #[test]
    fn positions_count_lines_and_columns() {
        let t = lex("/* a\n b */ mov.u32\n  %r1").unwrap();
        assert_eq!((t[0].at.line, t[0].at.column), (2, 7));
        assert_eq!((t[2].at.line, t[2].at.column), (3, 3));
    }

    #[test]
    fn a_stray_character_is_an_error_at_it() {
        let e = lex("add.s32 %r1, #2;").unwrap_err();
        assert_eq!((e.at.line, e.at.column), (1, 14));
    }
}
