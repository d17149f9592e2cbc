//! Kafka's RecordBatch v2 (magic 2), as much of it as the produce and consume workloads need:
//! an encoder of uncompressed, non-transactional batches of equal records (null key, one
//! value, no headers, producer id -1), and a walker that counts the records of fetched
//! batches from their headers alone.
//!
//! The layout (all integers big-endian):
//!
//! ```text
//!  0 base offset        i64     27 base timestamp   i64
//!  8 batch length       i32     35 max timestamp    i64
//! 12 leader epoch       i32     43 producer id      i64
//! 16 magic (2)          i8      51 producer epoch   i16
//! 17 CRC-32C            u32     53 base sequence    i32
//! 21 attributes         i16     57 record count     i32
//! 23 last offset delta  i32     61 records...
//! ```
//!
//! The batch length counts the bytes after its own field; the CRC (Castagnoli) covers the
//! attributes to the end. Each record is `length varint, attributes i8, timestamp delta
//! varlong, offset delta varint, key length varint (-1: null), key, value length varint,
//! value, header count varint, headers`, every varint zigzag-encoded.

/// Bytes of a batch header, up to the first record.
pub const HEADER_LEN: usize = 61;
/// Where the batch length sits.
const LENGTH_AT: usize = 8;
/// Bytes before the part the batch length counts (base offset and the length itself).
pub const LOG_OVERHEAD: usize = 12;
/// Where the magic byte sits.
const MAGIC_AT: usize = 16;
/// Where the CRC sits.
const CRC_AT: usize = 17;
/// Where the CRC's coverage starts (the attributes).
const ATTRIBUTES_AT: usize = 21;
/// Where the last offset delta sits.
const LAST_OFFSET_DELTA_AT: usize = 23;
/// Where the base timestamp sits.
const BASE_TIMESTAMP_AT: usize = 27;
/// Where the max timestamp sits.
const MAX_TIMESTAMP_AT: usize = 35;
/// Where the record count sits.
pub const RECORD_COUNT_AT: usize = 57;
/// The attributes bit of a control batch (transaction markers: no user records).
const CONTROL_BIT: i16 = 1 << 5;

/// Appends `value` as an unsigned LEB128 varint.
fn put_uvarint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a zigzag varint (Kafka's `varint`).
pub fn put_varint(out: &mut Vec<u8>, value: i32) {
    put_uvarint(out, u64::from(((value << 1) ^ (value >> 31)) as u32));
}

/// Appends a zigzag varlong (Kafka's `varlong`).
pub fn put_varlong(out: &mut Vec<u8>, value: i64) {
    put_uvarint(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// Bytes a zigzag varint takes.
fn varint_len(value: i32) -> usize {
    let mut zigzag = ((value << 1) ^ (value >> 31)) as u32;
    let mut len = 1;
    while zigzag >= 0x80 {
        zigzag >>= 7;
        len += 1;
    }
    len
}

/// Appends one RecordBatch v2 of `count` records, each with a null key, `value`, no headers
/// and timestamp `timestamp_ms`: base offset 0 (the broker assigns offsets), leader epoch -1,
/// no compression, CreateTime, producer id -1, epoch -1, sequence -1. Returns the batch's
/// length in bytes.
pub fn encode_batch(out: &mut Vec<u8>, count: i32, value: &[u8], timestamp_ms: i64) -> usize {
    let count = count.max(1);
    let value_len = i32::try_from(value.len()).unwrap_or(i32::MAX);
    let start = out.len();
    out.extend_from_slice(&0i64.to_be_bytes()); // base offset
    out.extend_from_slice(&0i32.to_be_bytes()); // batch length, filled in below
    out.extend_from_slice(&(-1i32).to_be_bytes()); // partition leader epoch
    out.push(2); // magic
    out.extend_from_slice(&0u32.to_be_bytes()); // CRC, filled in below
    out.extend_from_slice(&0i16.to_be_bytes()); // attributes
    out.extend_from_slice(&(count - 1).to_be_bytes()); // last offset delta
    out.extend_from_slice(&timestamp_ms.to_be_bytes()); // base timestamp
    out.extend_from_slice(&timestamp_ms.to_be_bytes()); // max timestamp
    out.extend_from_slice(&(-1i64).to_be_bytes()); // producer id
    out.extend_from_slice(&(-1i16).to_be_bytes()); // producer epoch
    out.extend_from_slice(&(-1i32).to_be_bytes()); // base sequence
    out.extend_from_slice(&count.to_be_bytes()); // record count
    for offset_delta in 0..count {
        // attributes, timestamp delta 0, offset delta, key -1, value length, value, 0 headers
        let body = 1 + 1 + varint_len(offset_delta) + 1 + varint_len(value_len) + value.len() + 1;
        put_varint(out, i32::try_from(body).unwrap_or(i32::MAX));
        out.push(0);
        put_varlong(out, 0);
        put_varint(out, offset_delta);
        put_varint(out, -1);
        put_varint(out, value_len);
        out.extend_from_slice(value);
        put_varint(out, 0);
    }
    let len = out.len() - start;
    let batch_length = i32::try_from(len - LOG_OVERHEAD).unwrap_or(i32::MAX);
    out[start + LENGTH_AT..start + LENGTH_AT + 4].copy_from_slice(&batch_length.to_be_bytes());
    seal(&mut out[start..]);
    len
}

/// Sets the base and max timestamps of an encoded batch (all its records keep delta 0) and
/// recomputes the CRC, so that one buffer can be sent again and again with fresh timestamps.
pub fn restamp(batch: &mut [u8], timestamp_ms: i64) {
    if batch.len() < HEADER_LEN {
        return;
    }
    let stamp = timestamp_ms.to_be_bytes();
    batch[BASE_TIMESTAMP_AT..BASE_TIMESTAMP_AT + 8].copy_from_slice(&stamp);
    batch[MAX_TIMESTAMP_AT..MAX_TIMESTAMP_AT + 8].copy_from_slice(&stamp);
    seal(batch);
}

/// Writes the CRC-32C of `batch[21..]` into `batch[17..21]`.
fn seal(batch: &mut [u8]) {
    if batch.len() < HEADER_LEN {
        return;
    }
    let crc = crc32c::crc32c(&batch[ATTRIBUTES_AT..]);
    batch[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
}

/// What a walk over fetched record bytes found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walk {
    /// Complete batches.
    pub batches: u64,
    /// Records in complete data batches (control batches hold no user records).
    pub records: u64,
    /// Bytes of the complete batches.
    pub bytes: u64,
    /// The offset after the last complete batch, if there was one.
    pub next_offset: Option<i64>,
    /// Batches whose magic is not 2 (counted in `bytes` and `next_offset`, not `records`).
    pub old_format: u64,
}

fn be_i16(bytes: &[u8], at: usize) -> i16 {
    let mut b = [0; 2];
    b.copy_from_slice(&bytes[at..at + 2]);
    i16::from_be_bytes(b)
}

fn be_i32(bytes: &[u8], at: usize) -> i32 {
    let mut b = [0; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    i32::from_be_bytes(b)
}

fn be_i64(bytes: &[u8], at: usize) -> i64 {
    let mut b = [0; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    i64::from_be_bytes(b)
}

/// Walks the batches of a fetched partition's `records` by their headers only: counts the
/// records (the count field at offset 57 of each v2 batch) and finds the next offset to
/// fetch. A trailing partial batch (a broker may cut the last one at the size limit) is left
/// out, to be fetched whole next time.
///
/// Brokers answer with whole batches, so a fetch from offset `from` inside a batch gets the
/// records before it too, as a consumer would skip them: a batch that ends before `from` is
/// not counted, and of one that straddles it only the offsets from `from` on (assuming its
/// offsets are contiguous, as they are unless the topic is compacted).
pub fn walk(records: &[u8], from: i64) -> Walk {
    let mut walk = Walk::default();
    let mut at = 0usize;
    while records.len() - at >= LOG_OVERHEAD {
        let length = be_i32(records, at + LENGTH_AT);
        let Ok(length) = usize::try_from(length) else {
            break;
        };
        let total = LOG_OVERHEAD + length;
        if records.len() - at < total {
            break;
        }
        let batch = &records[at..at + total];
        let base_offset = be_i64(batch, 0);
        if batch.len() >= HEADER_LEN && batch[MAGIC_AT] == 2 {
            let attributes = be_i16(batch, ATTRIBUTES_AT);
            let last_delta = be_i32(batch, LAST_OFFSET_DELTA_AT);
            let next = base_offset + i64::from(last_delta) + 1;
            if attributes & CONTROL_BIT == 0 {
                let count = i64::from(be_i32(batch, RECORD_COUNT_AT).max(0));
                let skipped = from.saturating_sub(base_offset).max(0);
                let wanted = count.min(next.saturating_sub(from.max(base_offset)).max(0));
                walk.records +=
                    u64::try_from(if skipped == 0 { count } else { wanted }).unwrap_or(0);
            }
            walk.next_offset = Some(next);
        } else {
            // Magic 0/1 message sets: the offset field is the (last) message's own offset.
            walk.old_format += 1;
            walk.next_offset = Some(base_offset + 1);
        }
        walk.batches += 1;
        walk.bytes += total as u64;
        at += total;
    }
    walk
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An independent reader of the fields, for the round trip.
    struct Reader<'a> {
        bytes: &'a [u8],
        at: usize,
    }

    impl Reader<'_> {
        fn take(&mut self, n: usize) -> &[u8] {
            let slice = &self.bytes[self.at..self.at + n];
            self.at += n;
            slice
        }
        fn i8(&mut self) -> i8 {
            self.take(1)[0] as i8
        }
        fn i16(&mut self) -> i16 {
            i16::from_be_bytes(self.take(2).try_into().unwrap())
        }
        fn i32(&mut self) -> i32 {
            i32::from_be_bytes(self.take(4).try_into().unwrap())
        }
        fn u32(&mut self) -> u32 {
            u32::from_be_bytes(self.take(4).try_into().unwrap())
        }
        fn i64(&mut self) -> i64 {
            i64::from_be_bytes(self.take(8).try_into().unwrap())
        }
        fn uvarint(&mut self) -> u64 {
            let mut value = 0u64;
            for shift in (0..70).step_by(7) {
                let byte = self.take(1)[0];
                value |= u64::from(byte & 0x7f) << shift;
                if byte & 0x80 == 0 {
                    return value;
                }
            }
            panic!("varint too long");
        }
        fn varint(&mut self) -> i64 {
            let raw = self.uvarint();
            ((raw >> 1) as i64) ^ -((raw & 1) as i64)
        }
    }

    #[test]
    fn crc32c_known_answers() {
        // RFC 3720 (iSCSI) B.4 and the usual check value of CRC-32C.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c::crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(crc32c::crc32c(&[0xffu8; 32]), 0x62a8_ab43);
    }

    #[test]
    fn zigzag_varints() {
        let mut out = Vec::new();
        for (value, bytes) in [
            (0, &[0x00][..]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (1024, &[0x80, 0x10]),
            (i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ] {
            out.clear();
            put_varint(&mut out, value);
            assert_eq!(out, bytes, "{value}");
            assert_eq!(varint_len(value), bytes.len(), "{value}");
        }
        out.clear();
        put_varlong(&mut out, i64::MIN);
        assert_eq!(out.len(), 10);
        assert_eq!(Reader { bytes: &out, at: 0 }.varint(), i64::MIN);
    }

    #[test]
    fn batch_decodes_back_field_by_field() {
        let value: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let mut out = vec![0xaa; 3]; // something before: the encoder appends
        let len = encode_batch(&mut out, 200, &value, 1_700_000_000_123);
        let batch = &out[3..];
        assert_eq!(batch.len(), len);
        let mut r = Reader {
            bytes: batch,
            at: 0,
        };
        assert_eq!(r.i64(), 0, "base offset");
        assert_eq!(r.i32() as usize, len - LOG_OVERHEAD, "batch length");
        assert_eq!(r.i32(), -1, "partition leader epoch");
        assert_eq!(r.i8(), 2, "magic");
        let crc = r.u32();
        assert_eq!(crc, crc32c::crc32c(&batch[ATTRIBUTES_AT..]), "crc");
        assert_eq!(r.i16(), 0, "attributes");
        assert_eq!(r.i32(), 199, "last offset delta");
        assert_eq!(r.i64(), 1_700_000_000_123, "base timestamp");
        assert_eq!(r.i64(), 1_700_000_000_123, "max timestamp");
        assert_eq!(r.i64(), -1, "producer id");
        assert_eq!(r.i16(), -1, "producer epoch");
        assert_eq!(r.i32(), -1, "base sequence");
        assert_eq!(r.i32(), 200, "record count");
        assert_eq!(r.at, HEADER_LEN);
        for i in 0..200 {
            let length = r.varint() as usize;
            let start = r.at;
            assert_eq!(r.i8(), 0, "record attributes");
            assert_eq!(r.varint(), 0, "timestamp delta");
            assert_eq!(r.varint(), i, "offset delta");
            assert_eq!(r.varint(), -1, "null key");
            assert_eq!(r.varint(), 300, "value length");
            assert_eq!(r.take(300), &value[..]);
            assert_eq!(r.varint(), 0, "headers");
            assert_eq!(r.at - start, length, "record {i} length");
        }
        assert_eq!(r.at, batch.len(), "nothing after the records");
    }

    #[test]
    fn restamp_changes_timestamps_and_crc() {
        let mut batch = Vec::new();
        encode_batch(&mut batch, 3, b"abc", 1);
        let mut expected = Vec::new();
        encode_batch(&mut expected, 3, b"abc", 99);
        assert_ne!(batch, expected);
        restamp(&mut batch, 99);
        assert_eq!(batch, expected);
    }

    #[test]
    fn walk_counts_complete_batches() {
        let mut records = Vec::new();
        encode_batch(&mut records, 16, &[7; 100], 5);
        let first = records.len();
        encode_batch(&mut records, 4, &[7; 10], 5);
        // As a broker stores them: offsets 0-15 and 16-19.
        records[first..first + 8].copy_from_slice(&16i64.to_be_bytes());
        let whole = records.len();
        assert_eq!(
            walk(&records, 0),
            Walk {
                batches: 2,
                records: 20,
                bytes: whole as u64,
                next_offset: Some(20),
                old_format: 0,
            }
        );
        // A cut-off third batch is not counted.
        encode_batch(&mut records, 8, &[7; 10], 5);
        records.truncate(whole + 30);
        let cut = walk(&records, 0);
        assert_eq!(
            (cut.batches, cut.records, cut.next_offset),
            (2, 20, Some(20))
        );
        // A control batch advances the offset but holds no user records.
        let mut control = Vec::new();
        encode_batch(&mut control, 1, b"", 5);
        control[ATTRIBUTES_AT..ATTRIBUTES_AT + 2]
            .copy_from_slice(&(CONTROL_BIT | 1 << 4).to_be_bytes());
        control[0..8].copy_from_slice(&41i64.to_be_bytes());
        let w = walk(&control, 0);
        assert_eq!((w.batches, w.records, w.next_offset), (1, 0, Some(42)));
        assert_eq!(walk(&[], 0), Walk::default());
        assert_eq!(walk(&[0; 11], 0), Walk::default());
    }

    #[test]
    fn walk_skips_records_before_the_fetch_offset() {
        let mut records = Vec::new();
        encode_batch(&mut records, 16, b"v", 5);
        let first = records.len();
        encode_batch(&mut records, 16, b"v", 5);
        records[first..first + 8].copy_from_slice(&16i64.to_be_bytes());
        // From 5: 11 of the first batch (5..=15) and all 16 of the second.
        let w = walk(&records, 5);
        assert_eq!((w.batches, w.records, w.next_offset), (2, 27, Some(32)));
        // From 20: the first batch is behind, the second counts from 20.
        let w = walk(&records, 20);
        assert_eq!((w.records, w.next_offset), (12, Some(32)));
        // From its end: nothing new.
        let w = walk(&records, 32);
        assert_eq!((w.records, w.next_offset), (0, Some(32)));
        assert_eq!(
            w.bytes,
            records.len() as u64,
            "the bytes still crossed the wire"
        );
    }

    /// Byte-for-byte the batch an independent implementation (the kafka-protocol crate's
    /// RecordBatchEncoder, as used by Rust Kafka clients) writes for the same records, and
    /// its decoder, which checks the CRC, reads ours back.
    #[test]
    fn same_bytes_as_kafka_protocol_crate() {
        use bytes::{Bytes, BytesMut};
        use kafka_protocol::records::{
            Compression, Record, RecordBatchDecoder, RecordBatchEncoder, RecordEncodeOptions,
            TimestampType,
        };
        let value = Bytes::from(vec![b'K'; 1024]);
        let records: Vec<Record> = (0..16)
            .map(|offset| Record {
                transactional: false,
                control: false,
                delete_horizon: false,
                partition_leader_epoch: -1,
                producer_id: -1,
                producer_epoch: -1,
                timestamp_type: TimestampType::Creation,
                offset,
                sequence: -1 + offset as i32,
                timestamp: 1_722_000_000_000,
                key: None,
                value: Some(value.clone()),
                headers: Default::default(),
            })
            .collect();
        let mut theirs = BytesMut::new();
        RecordBatchEncoder::encode(
            &mut theirs,
            &records,
            &RecordEncodeOptions {
                version: 2,
                compression: Compression::None,
            },
        )
        .unwrap();
        let mut ours = Vec::new();
        encode_batch(&mut ours, 16, &value, 1_722_000_000_000);
        // kafka-protocol derives the base sequence from the first record's (-1 here).
        assert_eq!(&ours[..], &theirs[..]);

        let mut buf = Bytes::from(ours);
        let set = RecordBatchDecoder::decode(&mut buf).unwrap();
        assert_eq!(set.records.len(), 16);
        assert!(set
            .records
            .iter()
            .all(|r| r.value.as_deref() == Some(&value[..])));
        assert!(set
            .records
            .iter()
            .all(|r| r.key.is_none() && r.headers.is_empty()));
        assert_eq!(set.records[15].offset, 15);
    }
}
