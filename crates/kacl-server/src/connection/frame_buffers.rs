//! Reused buffers for large request frames. A megabyte Produce request read into memory fresh
//! from the allocator pays a page fault and the kernel's zeroing for every page before the copy
//! itself: in a gateway's profile on produce, `clear_page` alone was 12% of its CPU. A
//! frame's buffer comes back here when the last reference to its bytes is dropped (the upstream
//! connection has written them), keeps its pages, and is read into again by the next frame.
//!
//! Bounded: only frames of [`POOLED_MIN`] to [`POOLED_MAX`] bytes, in power-of-two size
//! classes, at most [`IDLE_PER_CLASS`] idle buffers per class (under 32 MiB idle in all).

use bytes::Bytes;
use parking_lot::Mutex;

/// The smallest frame read into a pooled buffer (smaller ones fault in few pages).
pub(crate) const POOLED_MIN: usize = 128 * 1024;
/// The largest: above it a frame grows its buffer as its bytes arrive, as before (a Produce
/// request is at most 1 MiB under librdkafka's and the Java client's defaults).
pub(crate) const POOLED_MAX: usize = 2 * 1024 * 1024;
/// Idle buffers kept per size class; more go back to the allocator.
const IDLE_PER_CLASS: usize = 8;
/// 128 KiB, 256 KiB, 512 KiB, 1 MiB, 2 MiB.
const CLASSES: usize = (POOLED_MAX.trailing_zeros() - POOLED_MIN.trailing_zeros() + 1) as usize;

/// Idle buffers by size class, empty (length 0) and at their class's capacity.
struct FrameBuffers {
    idle: [Mutex<Vec<Vec<u8>>>; CLASSES],
}

/// One pool for the process: buffers move between connections (a buffer is given back on
/// whichever thread drops its bytes), as the allocator's memory would.
static SHARED: FrameBuffers = FrameBuffers {
    idle: [const { Mutex::new(Vec::new()) }; CLASSES],
};

/// The size class of a frame of `len` bytes, if it is pooled.
fn class_of(len: usize) -> Option<usize> {
    if !(POOLED_MIN..=POOLED_MAX).contains(&len) {
        return None;
    }
    Some((len.next_power_of_two().trailing_zeros() - POOLED_MIN.trailing_zeros()) as usize)
}

/// An empty buffer with room for `len` bytes, reused when one is idle; `None` when frames of
/// that size are not pooled.
pub(crate) fn take(len: usize) -> Option<Vec<u8>> {
    let class = class_of(len)?;
    let reused = SHARED.idle[class].lock().pop();
    Some(reused.unwrap_or_else(|| Vec::with_capacity(POOLED_MIN << class)))
}

/// A filled buffer as the frame's bytes; the buffer returns to the pool with the last clone.
pub(crate) fn freeze(buffer: Vec<u8>) -> Bytes {
    Bytes::from_owner(Pooled(buffer))
}

/// A frame's buffer while its bytes are referenced.
struct Pooled(Vec<u8>);

impl AsRef<[u8]> for Pooled {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let mut buffer = std::mem::take(&mut self.0);
        // Only a buffer at exactly its class's capacity goes back, so that every buffer taken
        // from a class has that class's room.
        let Some(class) = class_of(buffer.capacity()) else {
            return;
        };
        if buffer.capacity() != POOLED_MIN << class {
            return;
        }
        buffer.clear();
        let mut idle = SHARED.idle[class].lock();
        if idle.len() < IDLE_PER_CLASS {
            idle.push(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_classed_by_the_next_power_of_two() {
        assert_eq!(class_of(POOLED_MIN - 1), None);
        assert_eq!(class_of(POOLED_MIN), Some(0));
        assert_eq!(class_of(POOLED_MIN + 1), Some(1));
        assert_eq!(class_of(1_000_000), Some(3));
        assert_eq!(class_of(POOLED_MAX), Some(CLASSES - 1));
        assert_eq!(class_of(POOLED_MAX + 1), None);
        assert_eq!(CLASSES, 5);
    }

    #[test]
    fn a_buffer_comes_back_when_its_last_clone_is_dropped() {
        // Its own class (700,000 bytes: 1 MiB) so that no other test takes the buffer.
        let mut buffer = take(700_000).expect("pooled");
        assert!(buffer.capacity() >= 700_000);
        buffer.extend(std::iter::repeat_n(3u8, 700_000));
        let at = buffer.as_ptr();
        let bytes = freeze(buffer);
        let clone = bytes.slice(10..20);
        drop(bytes);
        assert_eq!(&clone[..], &[3u8; 10]);
        drop(clone);
        let again = take(600_000).expect("pooled");
        assert_eq!(again.as_ptr(), at, "the same memory, read into again");
        assert!(again.is_empty());
        assert_eq!(take(POOLED_MAX + 1), None);
    }
}
