//! Arguments by name: what a kernel compiled at run time is launched with,
//! where no generated `launch` function spells out its parameters.

use crate::error::{Error, LaunchError, LaunchErrorKind};
use crate::launch::{Arg, LaunchConfig};
use crate::stats::Stats;
use crate::Kernel;

/// A kernel's arguments given by parameter name, in any order, and launched
/// in the order of its signature.
///
/// Naming is checked when the arguments are put in order
/// ([`Args::into_positional`], which [`Args::launch`] does first): a name no
/// parameter has ([`LaunchErrorKind::UnknownArg`]), a parameter named twice
/// ([`LaunchErrorKind::ArgTwice`]) or left without an argument
/// ([`LaunchErrorKind::ArgMissing`]). Each argument's type is then checked
/// against its parameter by the launch, as for arguments by position
/// ([`launch`](crate::launch)), before any instruction runs: a buffer of
/// another element type, a read-only buffer for a `&mut` parameter or a
/// scalar of another type is a [`LaunchErrorKind::ArgType`] naming the
/// parameter. Nothing here panics.
///
/// ```
/// use simt_core::{Arg, Args, LaunchConfig};
///
/// let kernel = simt_front::compile(
///     "kernel scale(x: &mut [f32], a: f32) {
///         vreg v;
///         global_load  v, x[global_id]
///         v_mul_f32    v, v, a
///         global_store x[global_id], v
///     }",
/// )
/// .unwrap();
/// let config = LaunchConfig::new(2, 32);
/// let mut x = vec![1.5f32; 64];
/// Args::new(&kernel)
///     .set("a", 2.0f32)
///     .set("x", Arg::buffer_mut(&mut x))
///     .launch(&config)
///     .unwrap();
/// assert_eq!(x[63], 3.0);
///
/// let forgot = Args::new(&kernel).set("x", Arg::buffer_mut(&mut x));
/// assert_eq!(
///     forgot.launch(&config).unwrap_err().to_string(),
///     "bad launch of `scale`: argument 1 (`a`) is missing"
/// );
/// ```
#[derive(Debug)]
pub struct Args<'k, 'a> {
    kernel: &'k Kernel,
    /// Each parameter's argument, by position.
    slots: Vec<Option<Arg<'a>>>,
    /// The first naming mistake, reported when the arguments are put in order.
    mistake: Option<LaunchErrorKind>,
}

impl<'k, 'a> Args<'k, 'a> {
    /// No arguments yet for `kernel`.
    pub fn new(kernel: &'k Kernel) -> Self {
        Args {
            kernel,
            slots: kernel.host_params().iter().map(|_| None).collect(),
            mistake: None,
        }
    }

    /// Gives `arg` to the parameter named `name` (as the kernel spells it,
    /// without `r#`). A scalar converts from `u32`, `i32` or `f32`; a buffer is
    /// [`Arg::buffer`] or [`Arg::buffer_mut`].
    pub fn set(mut self, name: &str, arg: impl Into<Arg<'a>>) -> Self {
        let params = self.kernel.host_params();
        let mistake = match params.iter().position(|p| p.name == name) {
            None => Some(LaunchErrorKind::UnknownArg {
                name: name.to_owned(),
                params: params.iter().map(|p| p.name.to_string()).collect(),
            }),
            Some(index) if self.slots[index].is_some() => Some(LaunchErrorKind::ArgTwice {
                index,
                name: name.to_owned(),
            }),
            Some(index) => {
                self.slots[index] = Some(arg.into());
                None
            }
        };
        if self.mistake.is_none() {
            self.mistake = mistake;
        }
        self
    }

    /// The arguments in the kernel's parameter order, ready for
    /// [`launch`](crate::launch) or [`Machine::launch`](crate::Machine::launch),
    /// or the first naming mistake: an unknown or repeated name, else the first
    /// parameter without an argument.
    pub fn into_positional(self) -> Result<Vec<Arg<'a>>, LaunchError> {
        let refuse = |kind| LaunchError {
            kernel: self.kernel.name.to_string(),
            kind,
        };
        if let Some(kind) = self.mistake {
            return Err(refuse(kind));
        }
        let missing = self.slots.iter().position(Option::is_none);
        if let Some(index) = missing {
            return Err(refuse(LaunchErrorKind::ArgMissing {
                index,
                name: self.kernel.params[index].name.to_string(),
            }));
        }
        Ok(self.slots.into_iter().flatten().collect())
    }

    /// Launches the kernel over the grid `config` describes with these
    /// arguments, checked as [`launch`](crate::launch) checks arguments by
    /// position, and returns its statistics.
    pub fn launch(self, config: &LaunchConfig) -> Result<Stats, Error> {
        let kernel = self.kernel;
        let mut args = self.into_positional()?;
        crate::launch(kernel, config, &mut args)
    }
}
