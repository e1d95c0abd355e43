//! `print`: the active lanes' values, logged for the launch's
//! [`Prints`](crate::Prints).

use super::super::decode::Print;
use super::super::instrument::Instrument;
use super::{Exec, Flow, Parts};

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    /// Logs the values of every active lane.
    pub(super) fn print(&mut self, x: Print) -> Flow {
        let Parts { vr, rd, s, .. } = self.parts();
        let vr = &*vr;
        let [a, b, c, d] = x.values;
        let values = [
            *rd.fetch(a, vr, &mut s.a),
            *rd.fetch(b, vr, &mut s.b),
            *rd.fetch(c, vr, &mut s.c),
            *rd.fetch(d, vr, &mut s.out),
        ];
        let [a, b, c, d] = &values;
        self.prints
            .issue::<W>(self.wave, self.pc, self.exec, [a, b, c, d]);
        self.next()
    }
}
