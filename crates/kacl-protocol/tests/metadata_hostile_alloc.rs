//! Regression: the 5-byte body `03 3c 0c 00 b6` read as a Metadata v1 request (which makes
//! kafka-protocol 0.18.0 try to allocate ~54 million topics and abort the process, see
//! `shared/reference/clients.md`) must come back as a typed error, and decoding it must not
//! allocate anything large.
//!
//! This binary installs a counting global allocator that tracks the peak of live heap bytes
//! allocated by the thread under test, so the assertion is about real allocations, not about
//! the decoder's own bookkeeping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kacl_protocol::frame::{split_frame, RequestFrame};
use kacl_protocol::messages::metadata::MetadataRequest;
use kacl_protocol::{ApiKey, DecodeError, Message, RequestHeader};

/// The hostile body.
const BODY: [u8; 5] = [0x03, 0x3c, 0x0c, 0x00, 0xb6];

/// Peak live bytes allowed while decoding it.
const PEAK_LIMIT: usize = 64 * 1024;

/// Counts the live and peak heap bytes of threads that opted in, per thread, so that tests
/// running in parallel do not see each other's allocations.
struct CountingAllocator;

/// Per-thread counters. `const` initialisation without a destructor: reading them never
/// allocates, so the allocator itself may use them.
#[derive(Clone, Copy)]
struct Counters {
    tracking: bool,
    live: usize,
    peak: usize,
}

thread_local! {
    static COUNTERS: Cell<Counters> = const {
        Cell::new(Counters { tracking: false, live: 0, peak: 0 })
    };
}

fn on_alloc(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        let mut n = c.get();
        if n.tracking {
            n.live += size;
            n.peak = n.peak.max(n.live);
            c.set(n);
        }
    });
}

fn on_dealloc(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        let mut n = c.get();
        if n.tracking {
            n.live = n.live.saturating_sub(size);
            c.set(n);
        }
    });
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the `GlobalAlloc`
// contract; the wrapper only updates thread-local counters. A test binary cannot count
// allocations without this one `unsafe` impl.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        on_alloc(layout.size());
        // SAFETY: same layout as given to us.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_dealloc(layout.size());
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `f` with allocation tracking on for this thread and returns its result and the peak of
/// live bytes it allocated.
fn peak_bytes_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    COUNTERS.with(|c| {
        c.set(Counters {
            tracking: true,
            live: 0,
            peak: 0,
        })
    });
    let result = f();
    let counters = COUNTERS.with(|c| {
        c.replace(Counters {
            tracking: false,
            live: 0,
            peak: 0,
        })
    });
    (result, counters.peak)
}

#[test]
fn counting_allocator_sees_allocations() {
    // Guards the other tests against a silently broken counter.
    let (buffer, peak) = peak_bytes_of(|| vec![0u8; 100_000]);
    assert_eq!(buffer.len(), 100_000);
    assert!(peak >= 100_000, "peak {peak}");
}

#[test]
fn five_byte_metadata_v1_body_is_rejected_without_allocating() {
    let (result, peak) = peak_bytes_of(|| MetadataRequest::decode_exact(&BODY, 1));
    assert_eq!(
        result,
        Err(DecodeError::TooManyElements {
            what: "MetadataRequest.topics",
            count: 0x033c_0c00,
            remaining: 1,
        })
    );
    assert!(peak < PEAK_LIMIT, "decoding allocated {peak} bytes at peak");
}

#[test]
fn five_byte_body_is_rejected_at_every_metadata_version() {
    for version in MetadataRequest::VERSIONS.min..=MetadataRequest::VERSIONS.max {
        let (result, peak) = peak_bytes_of(|| MetadataRequest::decode_exact(&BODY, version));
        assert!(result.is_err(), "v{version} decoded: {result:?}");
        assert!(
            peak < PEAK_LIMIT,
            "v{version} allocated {peak} bytes at peak"
        );
    }
}

#[test]
fn five_byte_body_in_a_whole_frame_is_rejected_without_allocating() {
    let header = RequestHeader {
        request_api_key: ApiKey::Metadata.key(),
        request_api_version: 1,
        correlation_id: 7,
        client_id: Some("hostile".into()),
        ..RequestHeader::default()
    };
    let mut payload = Vec::new();
    header
        .encode(&mut payload, ApiKey::Metadata.request_header_version(1))
        .unwrap();
    payload.extend_from_slice(&BODY);
    let mut wire = (payload.len() as i32).to_be_bytes().to_vec();
    wire.extend_from_slice(&payload);

    let (result, peak) = peak_bytes_of(|| {
        let (payload, consumed) = split_frame(&wire, 1 << 20).unwrap().unwrap();
        assert_eq!(consumed, wire.len());
        let frame = RequestFrame::parse(payload).unwrap();
        assert_eq!(frame.api_key, ApiKey::Metadata);
        assert_eq!(frame.header.correlation_id, 7);
        frame.decode_body::<MetadataRequest>()
    });
    assert!(
        matches!(
            result,
            Err(DecodeError::TooManyElements {
                what: "MetadataRequest.topics",
                ..
            })
        ),
        "{result:?}"
    );
    assert!(peak < PEAK_LIMIT, "decoding allocated {peak} bytes at peak");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Short random Metadata bodies at any version never make the decoder allocate large
    /// buffers: element counts are checked against the bytes left before any allocation.
    #[test]
    fn random_short_bodies_allocate_little(
        version in 0i16..=13,
        body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
    ) {
        let (_, peak) = peak_bytes_of(|| MetadataRequest::decode_exact(&body, version).is_ok());
        proptest::prop_assert!(peak < PEAK_LIMIT, "v{} {:02x?}: {} bytes", version, body, peak);
    }
}
