//! The index as bytes (`AclIndex::to_bytes` / `from_bytes`), so that a restart can rebuild it
//! without re-reading and re-indexing every stored ACL. These bytes are the payload of the
//! ACL snapshot file beside a redb store (`kacl_store::acl_snapshot`), which keeps the file
//! and decides whether it may be trusted.
//!
//! Rebuilding from this form skips what makes a load from the store slow: no `AclBinding`
//! (three owned strings) per ACL, no string hashing per entry (principals and hosts come as
//! table indices), no sorting or merging (each pattern's entries come sorted, as the index
//! keeps them). The bytes are still read as hostile: every index, code, mask and order is
//! checked, and anything the index could not have produced is refused.
//!
//! Layout (integers unsigned LEB128 unless said otherwise), version 1:
//! `version` (=1), `acl_count`, `string_count`, each string as `len` + UTF-8 bytes (distinct),
//! `pattern_count`, each pattern as `resource_type` (byte, Kafka's code), `pattern_type`
//! (byte), `name_len` + UTF-8 bytes, `entry_count` (≥ 1), each entry as `principal`, `host`
//! (indices into the string table) and `mask` (4 bytes little-endian, the index's bit set),
//! entries strictly ascending by (principal, host). Nothing may follow.

use std::collections::HashMap;
use std::sync::Arc;

use crate::enums::{PatternType, ResourceType};

use super::entries::{self, Entry};
use super::intern::Interner;
use super::{stored_kind, AclIndex, PatternSlot};

const VERSION: u64 = 1;

/// Why encoded index bytes were refused (the caller then loads from the store instead).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the encoded ACL index is invalid: {0}")]
pub struct IndexBytesError(&'static str);

impl AclIndex {
    /// The whole set in the encoded layout (see the module documentation). Patterns are
    /// written in (resource type, name, pattern type) order, so a rebuild appends to every
    /// principal's name list.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.len * 8);
        put_uint(&mut out, VERSION);
        put_uint(&mut out, self.len as u64);
        let mut slots: Vec<&PatternSlot> = self.patterns.iter().flatten().collect();
        slots.sort_unstable_by(|a, b| {
            (a.resource_type, &a.name, a.pattern_type).cmp(&(
                b.resource_type,
                &b.name,
                b.pattern_type,
            ))
        });
        // The live strings, renumbered densely in text order, so that the bytes depend on
        // the set only (not on the order it was built in).
        let mut live: Vec<bool> = Vec::new();
        for e in slots.iter().flat_map(|slot| &slot.entries) {
            for id in [e.principal as usize, e.host as usize] {
                if live.len() <= id {
                    live.resize(id + 1, false);
                }
                if let Some(flag) = live.get_mut(id) {
                    *flag = true;
                }
            }
        }
        let mut texts: Vec<(&str, u32)> = (0..live.len() as u32)
            .filter(|&id| live.get(id as usize).copied().unwrap_or(false))
            .map(|id| (self.strings.resolve(id), id))
            .collect();
        texts.sort_unstable();
        let mut dense = vec![u32::MAX; live.len()];
        for (at, &(_, id)) in texts.iter().enumerate() {
            if let Some(slot) = dense.get_mut(id as usize) {
                *slot = at as u32;
            }
        }
        put_uint(&mut out, texts.len() as u64);
        for (text, _) in &texts {
            put_bytes(&mut out, text.as_bytes());
        }
        put_uint(&mut out, slots.len() as u64);
        let mut renumbered: Vec<Entry> = Vec::new();
        for slot in slots {
            out.push(slot.resource_type.code() as u8);
            out.push(slot.pattern_type.code() as u8);
            put_bytes(&mut out, slot.name.as_bytes());
            renumbered.clear();
            renumbered.extend(slot.entries.iter().map(|e| Entry {
                principal: dense.get(e.principal as usize).copied().unwrap_or(u32::MAX),
                host: dense.get(e.host as usize).copied().unwrap_or(u32::MAX),
                mask: e.mask,
            }));
            renumbered.sort_unstable_by_key(|e| (e.principal, e.host));
            put_uint(&mut out, renumbered.len() as u64);
            for e in &renumbered {
                put_uint(&mut out, u64::from(e.principal));
                put_uint(&mut out, u64::from(e.host));
                out.extend_from_slice(&e.mask.to_le_bytes());
            }
        }
        out
    }

    /// Rebuilds a set from [`AclIndex::to_bytes`]'s bytes, refusing anything malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<AclIndex, IndexBytesError> {
        let mut r = Reader { bytes };
        if r.uint()? != VERSION {
            return Err(IndexBytesError("unknown version"));
        }
        let acl_count = r.uint()?;
        let string_count = r.count(1)?;
        let mut texts: Vec<Arc<str>> = Vec::with_capacity(string_count);
        let mut seen: HashMap<Arc<str>, ()> = HashMap::with_capacity(string_count);
        for _ in 0..string_count {
            let text: Arc<str> = Arc::from(r.str()?);
            if seen.insert(text.clone(), ()).is_some() {
                return Err(IndexBytesError("a repeated string"));
            }
            texts.push(text);
        }
        drop(seen);
        let mut uses = vec![0u32; string_count];
        let mut index = AclIndex::new();
        let pattern_count = r.count(4)?;
        index.patterns.reserve_exact(pattern_count);
        let mut len = 0u64;
        for _ in 0..pattern_count {
            let resource_type = ResourceType::from_code(r.byte()? as i8);
            let pattern_type = PatternType::from_code(r.byte()? as i8);
            stored_kind(pattern_type).ok_or(IndexBytesError("a filter pattern type"))?;
            if matches!(resource_type, ResourceType::Any | ResourceType::Unknown) {
                return Err(IndexBytesError("a filter resource type"));
            }
            let name: Arc<str> = Arc::from(r.str()?);
            let entry_count = r.count(6)?;
            if entry_count == 0 {
                return Err(IndexBytesError("a pattern without entries"));
            }
            let mut list: Vec<Entry> = Vec::with_capacity(entry_count);
            for _ in 0..entry_count {
                let principal = r.string_id(string_count)?;
                let host = r.string_id(string_count)?;
                let mask = r.mask()?;
                if list
                    .last()
                    .is_some_and(|last| (last.principal, last.host) >= (principal, host))
                {
                    return Err(IndexBytesError("entries out of order"));
                }
                for id in [principal, host] {
                    if let Some(n) = uses.get_mut(id as usize) {
                        *n += 1;
                    }
                }
                len += u64::from(mask.count_ones());
                list.push(Entry {
                    principal,
                    host,
                    mask,
                });
            }
            // Refused if repeated (or not storable, checked above).
            if !index.insert_new_pattern(resource_type, pattern_type, name, list, true) {
                return Err(IndexBytesError("a repeated pattern"));
            }
        }
        if !r.bytes.is_empty() {
            return Err(IndexBytesError("bytes after the last pattern"));
        }
        if len != acl_count {
            return Err(IndexBytesError("the ACL count differs from the entries"));
        }
        if uses.contains(&0) {
            return Err(IndexBytesError("a string no entry uses"));
        }
        index.strings = Interner::from_counted(texts.into_iter().zip(uses));
        index.len = usize::try_from(len).map_err(|_| IndexBytesError("too many ACLs"))?;
        Ok(index)
    }
}

fn put_uint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_uint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A cursor over the encoded bytes; every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, IndexBytesError> {
        let (&first, rest) = self.bytes.split_first().ok_or(TRUNCATED)?;
        self.bytes = rest;
        Ok(first)
    }

    fn uint(&mut self) -> Result<u64, IndexBytesError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(IndexBytesError("an integer longer than 64 bits"))
    }

    /// A count of items that take at least `min_bytes` each: one the remaining bytes cannot
    /// hold is refused before anything is allocated for it.
    fn count(&mut self, min_bytes: usize) -> Result<usize, IndexBytesError> {
        let n = usize::try_from(self.uint()?).map_err(|_| TRUNCATED)?;
        if n.checked_mul(min_bytes)
            .is_none_or(|need| need > self.bytes.len())
        {
            return Err(TRUNCATED);
        }
        Ok(n)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], IndexBytesError> {
        if n > self.bytes.len() {
            return Err(TRUNCATED);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn str(&mut self) -> Result<&'a str, IndexBytesError> {
        let len = usize::try_from(self.uint()?).map_err(|_| TRUNCATED)?;
        std::str::from_utf8(self.take(len)?).map_err(|_| IndexBytesError("a string is not UTF-8"))
    }

    fn string_id(&mut self, string_count: usize) -> Result<u32, IndexBytesError> {
        let id = self.uint()?;
        if id >= string_count as u64 {
            return Err(IndexBytesError("a string index out of range"));
        }
        Ok(id as u32)
    }

    fn mask(&mut self) -> Result<u32, IndexBytesError> {
        let raw: [u8; 4] = self.take(4)?.try_into().map_err(|_| TRUNCATED)?;
        let mask = u32::from_le_bytes(raw);
        if mask == 0 || mask & !entries::STORABLE_BITS != 0 {
            return Err(IndexBytesError("an entry mask with no or filter-only bits"));
        }
        Ok(mask)
    }
}

const TRUNCATED: IndexBytesError = IndexBytesError("truncated");
