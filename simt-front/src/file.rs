//! Reading a file a user names, bounded: only a regular file, and only up to
//! what a kernel or a buffer could be. A device (`/dev/zero`), a FIFO or a
//! file past the bound is refused at once, where reading it would never end
//! or grow memory without bound.

use std::io::Read;
use std::path::Path;

/// The most bytes of kernel text a file may hold (`include`, the `simt`
/// command's kernel files).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The bytes of the regular file at `path`, at most `limit` of them; the
/// error says why it cannot be read (it is no regular file, it is larger,
/// or the system refused).
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    // `metadata` does not open the file: a FIFO's open would wait for a
    // writer.
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("it is not a regular file (a device, a FIFO or a folder is never read)".into());
    }
    if meta.len() > limit {
        return Err(format!(
            "it holds {} bytes, more than the {limit} it may",
            meta.len()
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may have grown since: read one byte past the limit to see.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("it holds more than the {limit} bytes it may"));
    }
    Ok(bytes)
}

/// The text of the regular file at `path`, at most [`MAX_SOURCE_BYTES`].
pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, MAX_SOURCE_BYTES)?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".into())
}
