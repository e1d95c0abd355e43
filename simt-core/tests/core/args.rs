//! Arguments by name for kernels compiled at run time: every way of naming
//! them wrongly, and every way of typing them wrongly, is a launch error that
//! names the parameter, returned before any instruction runs.

use simt_core::{launch, Arg, Args, Error, Kernel, LaunchConfig, LaunchErrorKind};

/// `x[i] = x[i] * a + b[i]`, with parameters of each kind.
fn kernel() -> Kernel {
    simt_front::compile(
        "kernel axpb(x: &mut [f32], b: &[f32], a: f32, n: u32) {
            vreg v, w;
            mreg inside;
            v_cmp_lt_u32 inside, global_id, n
            if inside
                global_load  v, x[global_id]
                global_load  w, b[global_id]
                v_fma_f32    v, v, a, w
                global_store x[global_id], v
            endif
        }",
    )
    .expect("compiles")
}

fn config() -> LaunchConfig {
    LaunchConfig::new(2, 32)
}

/// The launch error's kind, or a panic naming what came instead.
fn refused(result: Result<simt_core::Stats, Error>) -> LaunchErrorKind {
    match result {
        Err(Error::Launch(e)) => {
            assert_eq!(e.kernel, "axpb");
            e.kind
        }
        other => panic!("expected a launch error, got {other:?}"),
    }
}

#[test]
fn arguments_by_name_in_any_order_launch_as_by_position() {
    let k = kernel();
    let b: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut by_name = vec![2.0f32; 64];
    let named = Args::new(&k)
        .set("n", 40u32)
        .set("b", Arg::buffer(&b))
        .set("a", 0.5f32)
        .set("x", Arg::buffer_mut(&mut by_name))
        .launch(&config())
        .expect("launches");
    let mut by_position = vec![2.0f32; 64];
    let positional = launch(
        &k,
        &config(),
        &mut [
            Arg::buffer_mut(&mut by_position),
            Arg::buffer(&b),
            Arg::F32(0.5),
            Arg::U32(40),
        ],
    )
    .expect("launches");
    // x[i] = 2 * 0.5 + i below n = 40, untouched from there on.
    assert_eq!(by_name[39], 1.0 + 39.0);
    assert_eq!(by_name[40], 2.0);
    assert_eq!(by_name, by_position);
    assert_eq!(named.totals, positional.totals);
}

#[test]
fn naming_mistakes_name_the_parameter() {
    let k = kernel();
    let b = vec![0.0f32; 64];
    let mut x = vec![1.0f32; 64];
    // Three of the four parameters, rightly.
    fn all<'k, 'a>(k: &'k Kernel, x: &'a mut [f32], b: &'a [f32]) -> Args<'k, 'a> {
        Args::new(k)
            .set("x", Arg::buffer_mut(x))
            .set("b", Arg::buffer(b))
            .set("a", 1.0f32)
    }

    let unknown = refused(
        all(&k, &mut x, &b)
            .set("m", 1u32)
            .set("n", 1u32)
            .launch(&config()),
    );
    assert_eq!(
        unknown,
        LaunchErrorKind::UnknownArg {
            name: "m".into(),
            params: vec!["x".into(), "b".into(), "a".into(), "n".into()],
        }
    );
    assert_eq!(
        unknown.to_string(),
        "no parameter is named `m`; the kernel's parameters are `x`, `b`, `a`, `n`"
    );

    let twice = refused(
        all(&k, &mut x, &b)
            .set("a", 2.0f32)
            .set("n", 1u32)
            .launch(&config()),
    );
    assert_eq!(
        twice,
        LaunchErrorKind::ArgTwice {
            index: 2,
            name: "a".into()
        }
    );

    let missing = refused(all(&k, &mut x, &b).launch(&config()));
    assert_eq!(
        missing,
        LaunchErrorKind::ArgMissing {
            index: 3,
            name: "n".into()
        }
    );
    assert_eq!(missing.to_string(), "argument 3 (`n`) is missing");
    // Nothing ran.
    assert!(x.iter().all(|&v| v == 1.0));
}

#[test]
fn type_mistakes_by_name_name_the_parameter() {
    let k = kernel();
    let b = vec![0.0f32; 64];
    let mut x = vec![1.0f32; 64];
    let mut ints = vec![1u32; 64];
    let mismatch = |index: usize, name: &str, expected: &str, got: &str| LaunchErrorKind::ArgType {
        index,
        name: name.into(),
        expected: expected.into(),
        got: got.into(),
    };

    let element = refused(
        Args::new(&k)
            .set("x", Arg::buffer_mut(&mut ints))
            .set("b", Arg::buffer(&b))
            .set("a", 1.0f32)
            .set("n", 64u32)
            .launch(&config()),
    );
    assert_eq!(element, mismatch(0, "x", "&mut [f32]", "&mut [u32]"));

    let read_only = refused(
        Args::new(&k)
            .set("x", Arg::buffer(&x))
            .set("b", Arg::buffer(&b))
            .set("a", 1.0f32)
            .set("n", 64u32)
            .launch(&config()),
    );
    assert_eq!(read_only, mismatch(0, "x", "&mut [f32]", "&[f32]"));

    let scalar = refused(
        Args::new(&k)
            .set("x", Arg::buffer_mut(&mut x))
            .set("b", Arg::buffer(&b))
            .set("a", 1.0f32)
            .set("n", 64i32)
            .launch(&config()),
    );
    assert_eq!(scalar, mismatch(3, "n", "u32", "i32"));
    assert_eq!(scalar.to_string(), "argument 3 (`n`) must be u32, got i32");
    assert!(x.iter().all(|&v| v == 1.0));
}

#[test]
fn a_wrong_count_by_position_is_refused() {
    let k = kernel();
    let mut x = vec![1.0f32; 64];
    let short = refused(launch(&k, &config(), &mut [Arg::buffer_mut(&mut x)]));
    assert_eq!(
        short,
        LaunchErrorKind::ArgCount {
            expected: 4,
            got: 1
        }
    );
}

/// The arguments by name put in order are what a [`simt_core::Machine`]
/// launches, for callers that launch many times.
#[test]
fn arguments_in_order_are_the_kernels_positions() {
    let k = kernel();
    let b = vec![0.0f32; 64];
    let mut x = vec![1.0f32; 64];
    let args = Args::new(&k)
        .set("n", 7u32)
        .set("a", 3.0f32)
        .set("b", Arg::buffer(&b))
        .set("x", Arg::buffer_mut(&mut x))
        .into_positional()
        .expect("every parameter named once");
    let kinds: Vec<String> = args.iter().map(Arg::describe).collect();
    assert_eq!(kinds, ["&mut [f32]", "&[f32]", "f32", "u32"]);
    assert!(matches!(args[3], Arg::U32(7)));
}
