//! Tokens to a [`Module`]: the directives nvcc writes, kernels with their
//! parameters, register and variable declarations, labels and instructions.
//! Device functions are skipped (a `call` to one is refused when lowered);
//! a directive simt has no use for (`.pragma`, `.maxnreg`) is skipped to its
//! end.

use crate::ast::{Entry, Inst, Module, Operand, ParamDecl, RegDecl, Space, Stmt, VarDecl};
use crate::diagnostic::{Pos, PtxError};
use crate::lex::{Tok, Token};

/// The module of `tokens`, or the first error.
pub fn parse(tokens: &[Token]) -> Result<Module, PtxError> {
    let mut p = Parser {
        t: tokens,
        i: 0,
        loc: None,
    };
    p.module()
}

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    /// The last `.loc` seen.
    loc: Option<(u32, u32, u32)>,
}

/// The size in bytes of a PTX type.
pub fn type_size(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        "pred" => 0,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.t.get(self.i + k).map(|t| &t.tok)
    }

    /// Where the next token is (the last one's end at the end of the text).
    fn pos(&self) -> Pos {
        match self.t.get(self.i) {
            Some(t) => t.at,
            None => self.t.last().map_or(Pos { line: 1, column: 1 }, |t| Pos {
                line: t.at.line,
                column: t.at.column + t.len,
            }),
        }
    }

    fn len(&self) -> u32 {
        self.t.get(self.i).map_or(1, |t| t.len)
    }

    fn next(&mut self) -> Option<&'a Token> {
        let t = self.t.get(self.i);
        self.i += 1;
        t
    }

    fn error(&self, message: impl Into<String>) -> PtxError {
        PtxError::new(self.pos(), self.len(), message)
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Dot(s)) => format!("`.{s}`"),
            Some(Tok::Reg(s)) => format!("`%{s}`"),
            Some(Tok::Int(n)) => format!("`{n}`"),
            Some(Tok::F32(_) | Tok::F64(_)) => "a number".into(),
            Some(Tok::Str(s)) => format!("\"{s}\""),
            Some(Tok::Punct(c)) => format!("`{c}`"),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), PtxError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`, found {}", self.describe())))
        }
    }

    fn eat_dot(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Dot(d)) if d == word) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Result<(String, Pos), PtxError> {
        let at = self.pos();
        match self.peek() {
            Some(Tok::Ident(s)) => {
                self.i += 1;
                Ok((s.clone(), at))
            }
            _ => Err(self.error(format!("expected a name, found {}", self.describe()))),
        }
    }

    fn int(&mut self) -> Result<u64, PtxError> {
        match self.peek() {
            Some(Tok::Int(n)) => {
                self.i += 1;
                Ok(*n)
            }
            _ => Err(self.error(format!("expected a number, found {}", self.describe()))),
        }
    }

    fn u32(&mut self) -> Result<u32, PtxError> {
        let at = self.pos();
        let n = self.int()?;
        u32::try_from(n).map_err(|_| PtxError::new(at, 1, format!("{n} is too large here")))
    }

    /// Skips to the `;` ending a directive (or past a braced block).
    fn skip_statement(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.next() {
            match t.tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                Tok::Punct(';') if depth == 0 => return,
                _ => {}
            }
        }
    }

    fn module(&mut self) -> Result<Module, PtxError> {
        let mut m = Module {
            address_size: 64,
            ..Module::default()
        };
        while let Some(tok) = self.peek() {
            let at = self.pos();
            match tok {
                Tok::Dot(d) => match d.as_str() {
                    "version" => {
                        self.i += 1;
                        self.next();
                    }
                    "target" => {
                        self.i += 1;
                        loop {
                            let (word, _) = self.ident()?;
                            m.target.push(word);
                            if !self.eat(',') {
                                break;
                            }
                        }
                    }
                    "address_size" => {
                        self.i += 1;
                        m.address_size = self.u32()?;
                    }
                    "file" => {
                        self.i += 1;
                        let n = self.u32()?;
                        match self.peek() {
                            Some(Tok::Str(s)) => {
                                m.files.insert(n, s.clone());
                                self.i += 1;
                            }
                            _ => return Err(self.error("expected the file's name")),
                        }
                        while self.eat(',') {
                            self.next();
                        }
                    }
                    "visible" | "extern" | "weak" | "entry" | "func" | "shared" | "global"
                    | "const" => self.linkage(&mut m)?,
                    // Debug sections (`-lineinfo`) and pragmas: nothing to run.
                    "pragma" | "section" => self.skip_statement(),
                    _ => {
                        return Err(PtxError::new(
                            at,
                            self.len(),
                            format!("`.{d}` is not a directive simt reads at module level"),
                        ))
                    }
                },
                _ => {
                    return Err(
                        self.error(format!("expected a directive, found {}", self.describe()))
                    )
                }
            }
        }
        Ok(m)
    }

    /// `[.visible|.extern|.weak] (.entry ... | .func ... | variable)`.
    fn linkage(&mut self, m: &mut Module) -> Result<(), PtxError> {
        while self.eat_dot("visible") || self.eat_dot("extern") || self.eat_dot("weak") {}
        if self.eat_dot("entry") {
            let entry = self.entry()?;
            m.entries.push(entry);
        } else if self.eat_dot("func") {
            // `.func (.param .b32 ret) name (params) { ... }`: skipped.
            if self.peek() == Some(&Tok::Punct('(')) {
                self.parens_skip()?;
            }
            let (name, at) = self.ident()?;
            m.funcs.insert(name, at);
            while !matches!(self.peek(), Some(Tok::Punct('{') | Tok::Punct(';')) | None) {
                self.i += 1;
            }
            self.skip_statement();
        } else {
            let var = self.var()?;
            m.vars.push(var);
        }
        Ok(())
    }

    fn parens_skip(&mut self) -> Result<(), PtxError> {
        self.expect('(')?;
        let mut depth = 1;
        while depth > 0 {
            match self.next().map(|t| &t.tok) {
                Some(Tok::Punct('(')) => depth += 1,
                Some(Tok::Punct(')')) => depth -= 1,
                None => return Err(self.error("a `(` that is never closed")),
                _ => {}
            }
        }
        Ok(())
    }

    /// A variable after its linkage: `.shared .align 4 .b8 name[4096];`.
    fn var(&mut self) -> Result<VarDecl, PtxError> {
        let at = self.pos();
        let space = match self.peek() {
            Some(Tok::Dot(d)) => match d.as_str() {
                "shared" => Space::Shared,
                "global" => Space::Global,
                "local" => Space::Local,
                "const" => Space::Const,
                "param" => Space::Param,
                _ => return Err(self.error(format!("expected a state space, found `.{d}`"))),
            },
            _ => {
                return Err(self.error(format!("expected a state space, found {}", self.describe())))
            }
        };
        self.i += 1;
        let mut align = None;
        let mut ty = None;
        loop {
            match self.peek() {
                Some(Tok::Dot(d)) if d == "align" => {
                    self.i += 1;
                    align = Some(self.u32()?);
                }
                Some(Tok::Dot(d)) if type_size(d).is_some() => {
                    ty = Some(d.clone());
                    self.i += 1;
                }
                Some(Tok::Dot(d)) if matches!(d.as_str(), "v2" | "v4" | "ptr") => self.i += 1,
                _ => break,
            }
        }
        let Some(ty) = ty else {
            return Err(PtxError::new(at, 1, "a variable without a type"));
        };
        let (name, name_at) = self.ident()?;
        let mut count = Some(1);
        if self.eat('[') {
            if self.eat(']') {
                count = None;
            } else {
                count = Some(self.u32()?);
                self.expect(']')?;
            }
        }
        let mut init = false;
        if self.eat('=') {
            init = true;
            while !matches!(self.peek(), Some(Tok::Punct(';')) | None) {
                self.i += 1;
            }
        }
        self.expect(';')?;
        let elem_size = type_size(&ty).unwrap_or(1).max(1);
        Ok(VarDecl {
            name,
            at: name_at,
            space,
            align: align.unwrap_or(elem_size),
            ty,
            elem_size,
            count,
            init,
        })
    }

    fn entry(&mut self) -> Result<Entry, PtxError> {
        let (name, at) = self.ident()?;
        let mut params = Vec::new();
        if self.eat('(') && !self.eat(')') {
            loop {
                params.push(self.param()?);
                if self.eat(')') {
                    break;
                }
                self.expect(',')?;
            }
        }
        let mut reqntid = None;
        // Performance directives before the body.
        while let Some(Tok::Dot(d)) = self.peek() {
            let d = d.clone();
            self.i += 1;
            let mut dims = Vec::new();
            while let Some(Tok::Int(n)) = self.peek() {
                dims.push(*n as u32);
                self.i += 1;
                if !self.eat(',') {
                    break;
                }
            }
            if d == "reqntid" {
                dims.resize(3, 1);
                reqntid = Some([dims[0], dims[1], dims[2]]);
            }
        }
        let mut entry = Entry {
            name,
            at,
            params,
            regs: Vec::new(),
            vars: Vec::new(),
            body: Vec::new(),
            reqntid,
            nounroll: Vec::new(),
        };
        self.expect('{')?;
        self.body(&mut entry)?;
        Ok(entry)
    }

    fn param(&mut self) -> Result<ParamDecl, PtxError> {
        if !self.eat_dot("param") {
            return Err(self.error(format!("expected `.param`, found {}", self.describe())));
        }
        let mut ty = None;
        while let Some(Tok::Dot(d)) = self.peek() {
            if type_size(d).is_some() {
                ty = Some(d.clone());
                self.i += 1;
            } else if d == "align" {
                self.i += 1;
                self.int()?;
            } else {
                // `.ptr`, `.global`, `.shared`: attributes of a pointer.
                self.i += 1;
            }
        }
        let at = self.pos();
        let Some(ty) = ty else {
            return Err(self.error("a parameter without a type"));
        };
        let (name, at) = match self.ident() {
            Ok(x) => x,
            Err(_) => return Err(PtxError::new(at, 1, "expected the parameter's name")),
        };
        let mut array = None;
        if self.eat('[') {
            array = Some(self.u32()?);
            self.expect(']')?;
        }
        Ok(ParamDecl {
            name,
            at,
            ty,
            array,
        })
    }

    /// The statements up to the `}` closing the body; nested `{ }` blocks
    /// are flattened into it.
    fn body(&mut self, e: &mut Entry) -> Result<(), PtxError> {
        let mut depth = 1;
        loop {
            let at = self.pos();
            let Some(tok) = self.peek() else {
                return Err(PtxError::new(
                    e.at,
                    e.name.len() as u32,
                    "this kernel's `{` is never closed",
                ));
            };
            match tok {
                Tok::Punct('{') => {
                    self.i += 1;
                    depth += 1;
                }
                Tok::Punct('}') => {
                    self.i += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Punct(';') => self.i += 1,
                Tok::Dot(d) => match d.as_str() {
                    "reg" => {
                        self.i += 1;
                        let ty = match self.peek() {
                            Some(Tok::Dot(t)) => t.clone(),
                            _ => return Err(self.error("expected the registers' type")),
                        };
                        self.i += 1;
                        loop {
                            let rat = self.pos();
                            let name = match self.peek() {
                                Some(Tok::Reg(r)) => r.clone(),
                                _ => {
                                    return Err(self.error(format!(
                                        "expected a register, found {}",
                                        self.describe()
                                    )))
                                }
                            };
                            self.i += 1;
                            let mut count = None;
                            if self.eat('<') {
                                count = Some(self.u32()?);
                                self.expect('>')?;
                            }
                            e.regs.push(RegDecl {
                                name,
                                ty: ty.clone(),
                                count,
                                at: rat,
                            });
                            if !self.eat(',') {
                                break;
                            }
                        }
                        self.expect(';')?;
                    }
                    "shared" | "local" | "global" | "const" => {
                        let var = self.var()?;
                        e.vars.push(var);
                    }
                    "loc" => {
                        self.i += 1;
                        let file = self.u32()?;
                        let line = self.u32()?;
                        let column = match self.peek() {
                            Some(Tok::Int(c)) => *c as u32,
                            _ => 0,
                        };
                        // The rest of the line: `function_name` and
                        // `inlined_at` tails.
                        while self.t.get(self.i).is_some_and(|t| t.at.line == at.line) {
                            self.i += 1;
                        }
                        self.loc = Some((file, line, column));
                    }
                    "pragma" => {
                        if self.peek_at(1) == Some(&Tok::Str("nounroll".into())) {
                            e.nounroll.push(e.body.len());
                        }
                        self.skip_statement()
                    }
                    "maxnreg" | "maxntid" | "minnctapersm" | "reqntid" => self.skip_statement(),
                    _ => {
                        return Err(PtxError::new(
                            at,
                            self.len(),
                            format!("`.{d}` is not a directive simt reads in a kernel"),
                        ))
                    }
                },
                Tok::Ident(name) if self.peek_at(1) == Some(&Tok::Punct(':')) => {
                    e.body.push(Stmt::Label {
                        name: name.clone(),
                        at,
                    });
                    self.i += 2;
                }
                Tok::Ident(_) | Tok::Punct('@') => {
                    let inst = self.inst()?;
                    e.body.push(Stmt::Inst(inst));
                }
                _ => {
                    return Err(self.error(format!(
                        "expected an instruction, found {}",
                        self.describe()
                    )))
                }
            }
        }
    }

    fn inst(&mut self) -> Result<Inst, PtxError> {
        let mut guard = None;
        if self.eat('@') {
            let not = self.eat('!');
            let at = self.pos();
            match self.peek() {
                Some(Tok::Reg(r)) => {
                    guard = Some((not, r.clone(), at));
                    self.i += 1;
                }
                _ => return Err(self.error("expected the guard's predicate register")),
            }
        }
        let at = self.pos();
        let (op, _) = self.ident()?;
        let mut mods = Vec::new();
        let mut end = at.column + op.len() as u32;
        while let Some(Tok::Dot(d)) = self.peek() {
            end = self.pos().column + self.len();
            mods.push(d.clone());
            self.i += 1;
        }
        let len = end.saturating_sub(at.column).max(1);
        let mut args = Vec::new();
        if op == "call" {
            // Its operands are parenthesised lists; kept as symbols.
            while !matches!(self.peek(), Some(Tok::Punct(';')) | None) {
                if let Some(Tok::Ident(s)) = self.peek() {
                    args.push(Operand::Sym(s.clone(), self.pos()));
                }
                self.i += 1;
            }
        } else if !self.eat(';') {
            loop {
                args.push(self.operand()?);
                if self.eat(';') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.error(format!(
                        "expected `,` or `;` after an operand, found {}",
                        self.describe()
                    )));
                }
            }
            return Ok(Inst {
                guard,
                op,
                mods,
                args,
                at,
                len,
                loc: self.loc,
            });
        }
        self.eat(';');
        Ok(Inst {
            guard,
            op,
            mods,
            args,
            at,
            len,
            loc: self.loc,
        })
    }

    fn operand(&mut self) -> Result<Operand, PtxError> {
        let first = self.simple_operand()?;
        if self.eat('|') {
            let second = self.simple_operand()?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn simple_operand(&mut self) -> Result<Operand, PtxError> {
        let at = self.pos();
        match self.peek() {
            Some(Tok::Punct('!')) => {
                self.i += 1;
                match self.simple_operand()? {
                    Operand::Reg { name, at, .. } => Ok(Operand::Reg {
                        name,
                        not: true,
                        at,
                    }),
                    _ => Err(PtxError::new(
                        at,
                        1,
                        "`!` negates only a predicate register",
                    )),
                }
            }
            Some(Tok::Reg(r)) => {
                let mut name = r.clone();
                self.i += 1;
                // `%tid.x`: a special register's component.
                if let Some(Tok::Dot(d)) = self.peek() {
                    if matches!(d.as_str(), "x" | "y" | "z") {
                        name = format!("{name}.{d}");
                        self.i += 1;
                    }
                }
                Ok(Operand::Reg {
                    name,
                    not: false,
                    at,
                })
            }
            Some(Tok::Punct('-')) => {
                self.i += 1;
                match self.peek() {
                    Some(Tok::Int(n)) => {
                        self.i += 1;
                        Ok(Operand::Int(n.wrapping_neg(), at))
                    }
                    Some(Tok::F32(b)) => {
                        self.i += 1;
                        Ok(Operand::F32(b ^ 0x8000_0000, at))
                    }
                    Some(Tok::F64(b)) => {
                        self.i += 1;
                        Ok(Operand::F64(b ^ (1 << 63), at))
                    }
                    _ => Err(self.error("expected a number after `-`")),
                }
            }
            Some(Tok::Int(n)) => {
                self.i += 1;
                Ok(Operand::Int(*n, at))
            }
            Some(Tok::F32(b)) => {
                self.i += 1;
                Ok(Operand::F32(*b, at))
            }
            Some(Tok::F64(b)) => {
                self.i += 1;
                Ok(Operand::F64(*b, at))
            }
            Some(Tok::Ident(s)) => {
                self.i += 1;
                if s == "_" {
                    return Ok(Operand::Sink(at));
                }
                Ok(Operand::Sym(s.clone(), at))
            }
            Some(Tok::Punct('[')) => {
                self.i += 1;
                let base = self.simple_operand()?;
                let base = match base {
                    Operand::Int(..) => {
                        return Err(PtxError::new(
                            at,
                            1,
                            "an absolute address: simt knows memory only through a kernel's parameters and variables",
                        ))
                    }
                    b => b,
                };
                let mut offset: i64 = 0;
                while matches!(self.peek(), Some(Tok::Punct('+') | Tok::Punct('-'))) {
                    let minus = self.peek() == Some(&Tok::Punct('-'));
                    self.i += 1;
                    let neg = self.eat('-');
                    let n = self.int()? as i64;
                    offset = offset.wrapping_add(if minus != neg { n.wrapping_neg() } else { n });
                }
                self.expect(']')?;
                Ok(Operand::Addr {
                    base: Box::new(base),
                    offset,
                    at,
                })
            }
            Some(Tok::Punct('{')) => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat('}') {
                    loop {
                        items.push(self.simple_operand()?);
                        if self.eat('}') {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Ok(Operand::Vector(items, at))
            }
            _ => Err(self.error(format!("expected an operand, found {}", self.describe()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex;

    fn module(s: &str) -> Module {
        parse(&lex(s).unwrap()).unwrap()
    }

    #[test]
    fn a_kernel_parses_with_its_parameters_registers_and_body() {
        let m = module(
            r#"
.version 8.5
.target sm_90
.address_size 64
.file 1 "k.cu"
.visible .entry _Z1kPfi(
	.param .u64 _Z1kPfi_param_0,
	.param .u32 _Z1kPfi_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.shared .align 4 .b8 tile[128];
	.loc	1 3 5
	ld.param.u32 	%r1, [_Z1kPfi_param_1];
	mov.u32 	%r2, %tid.x;
	setp.ge.s32 	%p1, %r2, %r1;
	@!%p1 bra 	$L__BB0_2;
	shfl.sync.bfly.b32 	%r3|%p1, %r2, 16, 31, -1;
$L__BB0_2:
	ret;
}
"#,
        );
        assert_eq!(m.target, ["sm_90"]);
        assert_eq!(m.files[&1], "k.cu");
        let e = &m.entries[0];
        assert_eq!(e.name, "_Z1kPfi");
        assert_eq!(e.params.len(), 2);
        assert_eq!(e.params[1].ty, "u32");
        assert_eq!(e.regs[1].count, Some(5));
        assert_eq!(e.vars[0].count, Some(128));
        assert_eq!(e.body.len(), 7);
        let Stmt::Inst(ld) = &e.body[0] else { panic!() };
        assert_eq!(
            (ld.op.as_str(), ld.mods.clone()),
            ("ld", vec!["param".into(), "u32".into()])
        );
        assert_eq!(ld.loc, Some((1, 3, 5)));
        let Stmt::Inst(mov) = &e.body[1] else {
            panic!()
        };
        assert!(matches!(&mov.args[1], Operand::Reg { name, .. } if name == "tid.x"));
        let Stmt::Inst(bra) = &e.body[3] else {
            panic!()
        };
        assert_eq!(bra.guard.as_ref().map(|g| g.0), Some(true));
        let Stmt::Inst(shfl) = &e.body[4] else {
            panic!()
        };
        assert!(matches!(&shfl.args[0], Operand::Pair(..)));
        assert_eq!(shfl.args[4], Operand::Int(u64::MAX, shfl.args[4].at()));
    }

    #[test]
    fn addresses_take_signed_offsets() {
        let m = module(".entry k() { ld.shared.f32 %f1, [%r1+-8]; st.shared.f32 [t+4], %f1; }");
        let Stmt::Inst(ld) = &m.entries[0].body[0] else {
            panic!()
        };
        assert!(matches!(&ld.args[1], Operand::Addr { offset: -8, .. }));
        let Stmt::Inst(st) = &m.entries[0].body[1] else {
            panic!()
        };
        assert!(matches!(&st.args[0], Operand::Addr { offset: 4, .. }));
    }

    #[test]
    fn an_unclosed_kernel_is_an_error_at_its_name() {
        let e = parse(&lex(".entry k() { ret;").unwrap()).unwrap_err();
        assert_eq!((e.at.line, e.at.column), (1, 8));
    }
}
