//! Buffers in NumPy's `.npy` format, through `npyz`: read as the element type
//! of the buffer parameter they are given for, written as 1-D arrays. NumPy
//! has no `bf16`: a `bf16` buffer is read and written as its bit patterns,
//! 16-bit unsigned integers (`<u2`).

use simt::core::ElemType;
use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::Path;

/// The elements of the `.npy` file at `path` as the bytes of a buffer of
/// `elem`s; the error says what is wrong with the file.
pub fn read(path: &Path, elem: ElemType) -> Result<Vec<u8>, String> {
    // Not a device or a FIFO, whose reads never end.
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(format!(
                "cannot read {}: it is not a regular file",
                path.display()
            ))
        }
        _ => {}
    }
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let on_disk = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    let npy = npyz::NpyFile::new(BufReader::new(file))
        .map_err(|e| format!("{} is not a .npy file: {e}", path.display()))?;
    let dtype = npy.dtype().descr();
    if npy.order() == npyz::Order::Fortran && npy.shape().iter().filter(|&&d| d > 1).count() > 1 {
        return Err(format!(
            "{} holds an array in Fortran order; save it in C order (numpy's default)",
            path.display()
        ));
    }
    // A header may claim more elements than the file holds: refuse it before
    // reserving room for them.
    if npy.len().saturating_mul(u64::from(elem.size())) > on_disk {
        return Err(format!(
            "{} claims {} elements, more than the file holds",
            path.display(),
            npy.len()
        ));
    }
    let read = match elem {
        ElemType::U8 => bytes::<u8, _>(npy),
        ElemType::I8 => bytes::<i8, _>(npy),
        ElemType::I16 => bytes::<i16, _>(npy),
        ElemType::U32 => bytes::<u32, _>(npy),
        ElemType::I32 => bytes::<i32, _>(npy),
        ElemType::F32 => bytes::<f32, _>(npy),
        ElemType::U64 => bytes::<u64, _>(npy),
        ElemType::I64 => bytes::<i64, _>(npy),
        ElemType::F64 => bytes::<f64, _>(npy),
        ElemType::F16 => bytes::<simt::core::half::f16, _>(npy),
        // NumPy has no bf16: its bits as 16-bit unsigned integers.
        ElemType::U16 | ElemType::BF16 => bytes::<u16, _>(npy),
    };
    match read {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(format!(
            "{} holds elements of dtype {dtype}, not {} (expected '<{}')",
            path.display(),
            elem.name(),
            simt_report::sweep::numpy_descr(elem)
        )),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The file's elements as `T`s, as bytes; `None` when its dtype is not `T`'s.
fn bytes<T, R>(npy: npyz::NpyFile<R>) -> io::Result<Option<Vec<u8>>>
where
    T: npyz::Deserialize + bytemuck::Pod,
    R: io::Read,
{
    let Ok(reader) = npy.data::<T>() else {
        return Ok(None);
    };
    let values = reader.collect::<io::Result<Vec<T>>>()?;
    Ok(Some(bytemuck::cast_slice(&values).to_vec()))
}

/// Writes the bytes of a buffer of `elem`s to `path` as a 1-D `.npy` array.
pub fn write(path: &Path, elem: ElemType, bytes: &[u8]) -> io::Result<()> {
    match elem {
        ElemType::U8 => write_as::<u8>(path, bytes),
        ElemType::I8 => write_as::<i8>(path, bytes),
        ElemType::U16 => write_as::<u16>(path, bytes),
        ElemType::I16 => write_as::<i16>(path, bytes),
        ElemType::U32 => write_as::<u32>(path, bytes),
        ElemType::I32 => write_as::<i32>(path, bytes),
        ElemType::F32 => write_as::<f32>(path, bytes),
        ElemType::U64 => write_as::<u64>(path, bytes),
        ElemType::I64 => write_as::<i64>(path, bytes),
        ElemType::F64 => write_as::<f64>(path, bytes),
        ElemType::F16 => write_as::<simt::core::half::f16>(path, bytes),
        ElemType::BF16 => write_as::<u16>(path, bytes),
    }
}

fn write_as<T: npyz::AutoSerialize + bytemuck::Pod>(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use npyz::WriterBuilder;
    let values = bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned::<T>);
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[values.len() as u64])
        .writer(BufWriter::new(File::create(path)?))
        .begin_nd()?;
    writer.extend(values)?;
    writer.finish()
}
