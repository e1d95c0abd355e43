use crate::ir::ElemType;

/// A Rust type that can be a buffer element.
pub trait Element: bytemuck::Pod {
    /// The IR element type.
    const TYPE: ElemType;
}

macro_rules! element {
    ($($t:ty => $e:ident),*) => {$(
        impl Element for $t {
            const TYPE: ElemType = ElemType::$e;
        }
    )*};
}
element!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32);
element!(half::f16 => F16, half::bf16 => BF16);
element!(u64 => U64, i64 => I64, f64 => F64);
