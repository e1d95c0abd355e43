//! Element-wise kernels: one thread per element, guarded by `i < n`.

use super::{COPY_STRIDE, GROUPS, GROUP_SIZE, N};
use crate::registry::{Case, KernelSpec, Workload};
use crate::rng::SplitMix64;

simt::simt_kernel! {
    /// `c[i] = a[i] + b[i]` (wrapping) for `i < n`.
    pub kernel vecadd_i32(a: &[i32], b: &[i32], c: &mut [i32], n: u32) {
        vreg i, x, y;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  x, a[i]
            global_load  y, b[i]
            v_add_i32    x, x, y
            global_store c[i], x
        endif
    }

    /// `c[i] = a[i] + b[i]` for `i < n`.
    pub kernel vecadd_f32(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
        vreg i, x, y;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  x, a[i]
            global_load  y, b[i]
            v_add_f32    x, x, y
            global_store c[i], x
        endif
    }

    /// `y[i] = a * x[i] + y[i]` (fused) for `i < n`.
    pub kernel saxpy_f32(x: &[f32], y: &mut [f32], a: f32, n: u32) {
        vreg i, xi, yi;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  xi, x[i]
            global_load  yi, y[i]
            v_fma_f32    yi, a, xi, yi
            global_store y[i], yi
        endif
    }

    /// `dst[i] = src[i]` for `i < n`: 32 lanes read 128 contiguous bytes, two lines.
    pub kernel copy_coalesced_f32(src: &[f32], dst: &mut [f32], n: u32) {
        vreg i, x;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            global_load  x, src[i]
            global_store dst[i], x
        endif
    }

    /// `dst[i] = src[i * stride]` for `i < n`: with a stride of 16 words every lane
    /// reads its own 64-byte line, while the stores stay coalesced.
    pub kernel copy_strided_f32(src: &[f32], dst: &mut [f32], n: u32, stride: u32) {
        vreg i, j, x;
        mreg inside;
        v_mov        i, global_id.x
        v_cmp_lt_u32 inside, i, n
        if inside
            v_mul_u32    j, i, stride
            global_load  x, src[j]
            global_store dst[i], x
        endif
    }
}

/// The scalar oracles: the same arithmetic, element by element.
pub mod oracle {
    /// `a[i] + b[i]`, wrapping.
    pub fn vecadd_i32(a: &[i32], b: &[i32]) -> Vec<i32> {
        a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect()
    }

    /// `a[i] + b[i]`.
    pub fn vecadd_f32(a: &[f32], b: &[f32]) -> Vec<f32> {
        a.iter().zip(b).map(|(x, y)| x + y).collect()
    }

    /// `a * x[i] + y[i]` with one rounding, as `v_fma_f32`.
    pub fn saxpy_f32(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
        x.iter()
            .zip(y)
            .map(|(xi, yi)| a.mul_add(*xi, *yi))
            .collect()
    }

    /// `src[i]` for `i < n`.
    pub fn copy_coalesced_f32(src: &[f32], n: usize) -> Vec<f32> {
        src[..n].to_vec()
    }

    /// `src[i * stride]` for `i < n`.
    pub fn copy_strided_f32(src: &[f32], n: usize, stride: usize) -> Vec<f32> {
        (0..n).map(|i| src[i * stride]).collect()
    }
}

const INT_RANGE: (i32, i32) = (-1_000_000, 1_000_000);

struct Pair<T> {
    a: Vec<T>,
    b: Vec<T>,
}

fn prepare_vecadd_i32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let a = rng.i32_vec(N, INT_RANGE.0, INT_RANGE.1);
    let b = rng.i32_vec(N, INT_RANGE.0, INT_RANGE.1);
    let expected = oracle::vecadd_i32(&a, &b);
    Case::boxed(Pair { a, b }, vec![0; N], expected, |config, p, c| {
        vecadd_i32::launch(config, &p.a, &p.b, c, N as u32)
    })
}

fn prepare_vecadd_f32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let a = rng.f32_vec(N, -1.0, 1.0);
    let b = rng.f32_vec(N, -1.0, 1.0);
    let expected = oracle::vecadd_f32(&a, &b);
    Case::boxed(Pair { a, b }, vec![0.0; N], expected, |config, p, c| {
        vecadd_f32::launch(config, &p.a, &p.b, c, N as u32)
    })
}

struct Saxpy {
    x: Vec<f32>,
    a: f32,
}

fn prepare_saxpy_f32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let a = rng.f32_in(-2.0, 2.0);
    let x = rng.f32_vec(N, -1.0, 1.0);
    let y = rng.f32_vec(N, -1.0, 1.0);
    let expected = oracle::saxpy_f32(a, &x, &y);
    Case::boxed(Saxpy { x, a }, y, expected, |config, s, y| {
        saxpy_f32::launch(config, &s.x, y, s.a, N as u32)
    })
}

fn prepare_copy_coalesced_f32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let src = rng.f32_vec(N, -1.0, 1.0);
    let expected = oracle::copy_coalesced_f32(&src, N);
    Case::boxed(src, vec![0.0; N], expected, |config, src, dst| {
        copy_coalesced_f32::launch(config, src, dst, N as u32)
    })
}

fn prepare_copy_strided_f32(seed: u64) -> Box<dyn Workload> {
    let mut rng = SplitMix64::new(seed);
    let src = rng.f32_vec(N * COPY_STRIDE, -1.0, 1.0);
    let expected = oracle::copy_strided_f32(&src, N, COPY_STRIDE);
    Case::boxed(src, vec![0.0; N], expected, |config, src, dst| {
        copy_strided_f32::launch(config, src, dst, N as u32, COPY_STRIDE as u32)
    })
}

pub(crate) const VECADD_I32: KernelSpec = KernelSpec {
    name: "vecadd_i32",
    summary: "c[i] = a[i] + b[i] on 4096 i32",
    program: &vecadd_i32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_vecadd_i32,
};

pub(crate) const VECADD_F32: KernelSpec = KernelSpec {
    name: "vecadd_f32",
    summary: "c[i] = a[i] + b[i] on 4096 f32",
    program: &vecadd_f32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_vecadd_f32,
};

pub(crate) const SAXPY_F32: KernelSpec = KernelSpec {
    name: "saxpy_f32",
    summary: "y[i] = a * x[i] + y[i] (fused) on 4096 f32",
    program: &saxpy_f32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_saxpy_f32,
};

pub(crate) const COPY_COALESCED_F32: KernelSpec = KernelSpec {
    name: "copy_coalesced_f32",
    summary: "dst[i] = src[i] on 4096 f32",
    program: &copy_coalesced_f32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_copy_coalesced_f32,
};

pub(crate) const COPY_STRIDED_F32: KernelSpec = KernelSpec {
    name: "copy_strided_f32",
    summary: "dst[i] = src[16 * i] on 4096 f32",
    program: &copy_strided_f32::PROGRAM,
    grid: GROUPS,
    workgroup: GROUP_SIZE,
    prepare: prepare_copy_strided_f32,
};
