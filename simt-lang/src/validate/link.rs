//! Resolves control-flow jump targets from the nesting of `if`/`else`/`endif` and
//! `loop`/`endloop`, reporting every nesting error on the way.

use super::error::{NoteKind, ValidationError, ValidationErrorKind as Kind};
use crate::ir::InstIdx;
use crate::isa::Inst;
use crate::limits::MAX_NESTING;

/// An open construct while linking.
enum Frame {
    If { at: usize, else_at: Option<usize> },
    Loop { at: usize, exits: Vec<usize> },
}

impl Frame {
    fn name(&self) -> &'static str {
        match self {
            Frame::If { .. } => "if",
            Frame::Loop { .. } => "loop",
        }
    }

    fn at(&self) -> usize {
        match *self {
            Frame::If { at, .. } | Frame::Loop { at, .. } => at,
        }
    }
}

fn idx(i: usize) -> InstIdx {
    InstIdx(i as u32)
}

/// Fills in the jump targets of every control-flow instruction in `insts`.
///
/// Errors name the offending instruction, with a note at the related opener; all
/// of them are returned together. After an error the targets are left partly filled.
pub fn link(insts: &mut [Inst]) -> Result<(), Vec<ValidationError>> {
    let mut errors = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for i in 0..insts.len() {
        match insts[i] {
            Inst::If { .. } | Inst::Loop { .. } => {
                if stack.len() as u32 >= MAX_NESTING {
                    errors.push(ValidationError::at(
                        i,
                        Kind::NestingTooDeep { limit: MAX_NESTING },
                    ));
                }
                stack.push(match insts[i] {
                    Inst::If { .. } => Frame::If {
                        at: i,
                        else_at: None,
                    },
                    _ => Frame::Loop {
                        at: i,
                        exits: Vec::new(),
                    },
                });
            }
            Inst::Else { .. } => match stack.last_mut() {
                None => errors.push(ValidationError::at(i, Kind::ElseWithoutIf)),
                Some(Frame::If {
                    else_at: Some(first),
                    ..
                }) => {
                    let first = *first;
                    errors.push(
                        ValidationError::at(i, Kind::SecondElse).note(first, NoteKind::FirstElse),
                    );
                }
                Some(Frame::If { at, else_at }) => {
                    if let Inst::If { next, .. } = &mut insts[*at] {
                        *next = idx(i);
                    }
                    *else_at = Some(i);
                }
                Some(frame @ Frame::Loop { .. }) => {
                    errors.push(crossed(i, frame, "else"));
                }
            },
            Inst::EndIf => match stack.pop() {
                None => errors.push(ValidationError::at(i, Kind::EndIfWithoutIf)),
                Some(Frame::If { at, else_at }) => match else_at {
                    Some(e) => insts[e] = Inst::Else { end: idx(i) },
                    None => {
                        if let Inst::If { next, .. } = &mut insts[at] {
                            *next = idx(i);
                        }
                    }
                },
                Some(frame) => errors.push(crossed(i, &frame, "endif")),
            },
            Inst::EndLoop { mask, .. } => match stack.pop() {
                None => errors.push(ValidationError::at(i, Kind::EndLoopWithoutLoop)),
                Some(Frame::Loop { at, exits }) => {
                    insts[at] = Inst::Loop { end: idx(i) };
                    insts[i] = Inst::EndLoop {
                        mask,
                        start: idx(at),
                    };
                    for e in exits {
                        match &mut insts[e] {
                            Inst::Break { end, .. } | Inst::Continue { end, .. } => *end = idx(i),
                            _ => {}
                        }
                    }
                }
                Some(frame) => errors.push(crossed(i, &frame, "endloop")),
            },
            Inst::Break { .. } | Inst::Continue { .. } => {
                let innermost = stack.iter_mut().rev().find_map(|f| match f {
                    Frame::Loop { exits, .. } => Some(exits),
                    Frame::If { .. } => None,
                });
                match innermost {
                    Some(exits) => exits.push(i),
                    None if matches!(insts[i], Inst::Break { .. }) => {
                        errors.push(ValidationError::at(i, Kind::BreakOutsideLoop))
                    }
                    None => errors.push(ValidationError::at(i, Kind::ContinueOutsideLoop)),
                }
            }
            Inst::End if i + 1 != insts.len() => {
                errors.push(ValidationError::at(i, Kind::MisplacedEnd));
            }
            _ => {}
        }
    }
    for frame in stack {
        let kind = match frame {
            Frame::If { .. } => Kind::UnclosedIf,
            Frame::Loop { .. } => Kind::UnclosedLoop,
        };
        errors.push(ValidationError::at(frame.at(), kind));
    }
    if !matches!(insts.last(), Some(Inst::End)) {
        errors.push(ValidationError::program(Kind::MisplacedEnd));
    }
    errors.sort_by_key(|e| e.inst);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn crossed(i: usize, frame: &Frame, closer: &'static str) -> ValidationError {
    let opener = frame.name();
    ValidationError::at(i, Kind::CrossedNesting { opener, closer })
        .note(frame.at(), NoteKind::InnermostOpen { opener })
}
