//! A kernel assembled at run time with `ProgramBuilder` launches like one the
//! macro wrote.

use simt_core::{
    launch, Arg, Axis, ElemType, GlobalRef, Inst, LaunchConfig, Operand, ProgramBuilder, Special,
};

#[test]
fn a_built_iota_kernel_launches_and_coalesces() {
    let mut b = ProgramBuilder::new("iota");
    let out = b.buffer_mut::<u32>("out");
    let id = Operand::Special(Special::GlobalId(Axis::X));
    b.push(Inst::GlobalStore {
        ty: ElemType::U32,
        dst: GlobalRef::element(out, id),
        src: id,
    });
    let kernel = b.build().unwrap();
    let mut data = vec![0u32; 64];
    let stats = launch(
        &kernel,
        &LaunchConfig::new(2, 32),
        &mut [Arg::buffer_mut(&mut data)],
    )
    .unwrap();
    assert_eq!(data, (0..64).collect::<Vec<u32>>());
    // 64 lanes store 4 bytes each at consecutive addresses: 256 bytes, which
    // the reference model's 64-byte lines cover in 4 transactions.
    assert_eq!(stats.totals.global_transactions, 4);
}
