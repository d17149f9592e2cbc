//! A view of the database file that never writes to it: reads come from the file,
//! writes stay in memory. Opening the file needs a few writes (redb marks it open, and
//! after a crash repairs it), which a full disk refuses; through this view the store can
//! still open the file and serve reads, while writes keep failing honestly.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io;
use std::ops::Bound;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use redb::backends::FileBackend;
use redb::{BackendError, Builder, Database, DatabaseError, StorageBackend};

const BLOCK: u64 = 4096;

/// Opens the database at `path` through a [`Scratch`] view, with redb's page cache bounded
/// to `cache_bytes`.
pub(crate) fn open_without_writing(
    path: &Path,
    cache_bytes: usize,
) -> Result<Database, DatabaseError> {
    // Read and write access, so that redb's byte-range locks (which need a writable
    // descriptor) work; nothing is ever written through it.
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    let file_len = file.metadata()?.len();
    Builder::new()
        .set_cache_size(cache_bytes)
        .create_with_backend(Scratch {
            file: FileBackend::new(file)?,
            state: Mutex::new(ScratchState {
                len: file_len,
                file_len,
                blocks: HashMap::new(),
            }),
        })
}

#[derive(Debug)]
struct Scratch {
    file: FileBackend,
    state: Mutex<ScratchState>,
}

#[derive(Debug)]
struct ScratchState {
    /// The length redb sees.
    len: u64,
    /// How much of the file still shows through (a shrink hides the rest).
    file_len: u64,
    /// Blocks written since opening, by index.
    blocks: HashMap<u64, Vec<u8>>,
}

impl Scratch {
    fn state(&self) -> MutexGuard<'_, ScratchState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A whole block as redb would see it: written, else from the file, else zeros.
    fn block(&self, state: &ScratchState, index: u64) -> io::Result<Vec<u8>> {
        if let Some(block) = state.blocks.get(&index) {
            return Ok(block.clone());
        }
        let mut block = vec![0u8; BLOCK as usize];
        let start = index * BLOCK;
        if start < state.file_len {
            let from_file = (state.file_len - start).min(BLOCK) as usize;
            if let Some(head) = block.get_mut(..from_file) {
                self.file.read(start, head)?;
            }
        }
        Ok(block)
    }

    /// Calls `each` with every block that `offset..offset + len` touches, the range's
    /// part of the block, and the part's position in the caller's buffer.
    fn for_blocks(
        offset: u64,
        len: usize,
        mut each: impl FnMut(u64, std::ops::Range<usize>, std::ops::Range<usize>) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut done = 0usize;
        while done < len {
            let position = offset + done as u64;
            let index = position / BLOCK;
            let within = (position % BLOCK) as usize;
            let take = (BLOCK as usize - within).min(len - done);
            each(index, within..within + take, done..done + take)?;
            done += take;
        }
        Ok(())
    }
}

fn out_of_range() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "read past the end of the database",
    )
}

impl StorageBackend for Scratch {
    fn len(&self) -> io::Result<u64> {
        Ok(self.state().len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let state = self.state();
        let end = offset
            .checked_add(out.len() as u64)
            .ok_or_else(out_of_range)?;
        if end > state.len {
            return Err(out_of_range());
        }
        Self::for_blocks(offset, out.len(), |index, in_block, in_out| {
            let block = self.block(&state, index)?;
            let (Some(dst), Some(src)) = (out.get_mut(in_out), block.get(in_block)) else {
                return Err(out_of_range());
            };
            dst.copy_from_slice(src);
            Ok(())
        })
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.state();
        if len < state.len {
            // What lies beyond the new end must read as zeros if the file grows again.
            let keep_blocks = len.div_ceil(BLOCK);
            state.blocks.retain(|index, _| *index < keep_blocks);
            if len % BLOCK != 0 {
                let index = len / BLOCK;
                let mut block = self.block(&state, index)?;
                if let Some(tail) = block.get_mut((len % BLOCK) as usize..) {
                    tail.fill(0);
                }
                state.blocks.insert(index, block);
            }
            state.file_len = state.file_len.min(len);
        }
        state.len = len;
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut state = self.state();
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or_else(out_of_range)?;
        if end > state.len {
            return Err(out_of_range());
        }
        Self::for_blocks(offset, data.len(), |index, in_block, in_data| {
            let mut block = self.block(&state, index)?;
            let (Some(dst), Some(src)) = (block.get_mut(in_block), data.get(in_data)) else {
                return Err(out_of_range());
            };
            dst.copy_from_slice(src);
            state.blocks.insert(index, block);
            Ok(())
        })
    }

    fn close(&self) -> io::Result<()> {
        self.file.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.file.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_over(bytes: &[u8]) -> (tempfile::NamedTempFile, Scratch) {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(file.path(), bytes).expect("write");
        let handle = OpenOptions::new()
            .read(true)
            .write(true)
            .open(file.path())
            .expect("open");
        let scratch = Scratch {
            file: FileBackend::new(handle).expect("backend"),
            state: Mutex::new(ScratchState {
                len: bytes.len() as u64,
                file_len: bytes.len() as u64,
                blocks: HashMap::new(),
            }),
        };
        (file, scratch)
    }

    #[test]
    fn writes_are_seen_by_reads_but_never_reach_the_file() {
        let original: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let (file, scratch) = scratch_over(&original);
        scratch
            .write(4090, &[0xaa; 20])
            .expect("write across a block edge");
        let mut out = vec![0u8; 30];
        scratch.read(4085, &mut out).expect("read");
        assert_eq!(&out[..5], &original[4085..4090]);
        assert_eq!(&out[5..25], &[0xaa; 20]);
        assert_eq!(&out[25..], &original[4110..4115]);
        assert_eq!(std::fs::read(file.path()).expect("read file"), original);
    }

    #[test]
    fn growing_reads_zeros_and_shrinking_hides_the_tail() {
        let (_file, scratch) = scratch_over(&[7u8; 5000]);
        scratch.set_len(12_000).expect("grow");
        let mut out = vec![1u8; 100];
        scratch.read(11_000, &mut out).expect("read new space");
        assert!(out.iter().all(|b| *b == 0));
        scratch.set_len(4500).expect("shrink");
        scratch.set_len(5000).expect("grow again");
        let mut out = vec![1u8; 600];
        scratch.read(4400, &mut out).expect("read");
        assert!(out[..100].iter().all(|b| *b == 7));
        assert!(out[100..].iter().all(|b| *b == 0), "the old tail is gone");
        assert!(scratch.read(4990, &mut [0u8; 20]).is_err(), "past the end");
    }
}
