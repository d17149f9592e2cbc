//! Bounds on what reading one desired-state file may cost, checked before the file is turned
//! into a [`crate::Document`]: the work per byte of the file, never its size. A hostile file
//! is refused because it asks more of the reader than its bytes could honestly ask: values
//! that aliases expand beyond the file's own size (a 150 KB "billion laughs", or one 512 KB
//! string named 4,000 times), nesting deeper than any ACL file needs, or more ACLs than its
//! bytes could spell out. An honest file of millions of ACLs passes every bound; its size is
//! bounded only by the caller's own limit (`kacl acls plan --max-file-bytes`, a high default).
//!
//! Two passes guard the parser. [`prescan`] reads the text's bytes before any parser sees them
//! and bounds the flow nesting (`[`, `{`), so that no parser ever builds a deep document.
//! [`walk`] then visits every value the parser yields, aliases expanded, without keeping any:
//! it counts each value's bytes against the file's size and bounds the nesting again (block
//! style too). Its errors are raised inside the parser, so they carry the line and column of
//! the value at which a bound was crossed; the document itself is built only after both passed.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// The default largest file `kacl acls plan | apply` read (`--max-file-bytes`): 4 GiB, far
/// above any honest ACL file (10.8 MB holds 200,000 ACLs). Work per byte is bounded anyway.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 4 << 30;

/// The deepest nesting of lists and mappings. The schema needs 6 (document, `acls`, block,
/// `allow`, rule, `hosts`); the rest is slack for flow style.
pub const MAX_DEPTH: usize = 16;

/// The ACLs any file may declare however small it is (rules are hosts × operations each);
/// a larger file may declare one per [`BYTES_PER_ACL`] of its bytes.
pub const MAX_ACLS: usize = 1_000_000;

/// Bytes of file per ACL allowed beyond [`MAX_ACLS`]: an ACL written out takes 40 bytes or
/// more, a rule naming many hosts and operations fewer, so a file of millions of ACLs passes
/// while a few KB of hosts × operations cannot become billions.
pub const BYTES_PER_ACL: usize = 16;

/// The ACLs a file of `text_len` bytes may declare.
pub fn max_acls(text_len: usize) -> usize {
    MAX_ACLS.max(text_len / BYTES_PER_ACL)
}

/// Value bytes allowed per byte of the file. Without aliases a value never takes more bytes
/// than it was written with, but for an escape such as `"\L"` (2 bytes, 3 decoded); each
/// value also counts one byte for itself, which a one-byte value plus its separator covers.
const VALUE_BYTES_PER_BYTE: usize = 2;

/// Value bytes allowed beyond those, for tiny files.
const SLACK_BYTES: usize = 4_096;

/// Walks `deserializer`'s document, refusing it once it nests deeper than [`MAX_DEPTH`] or,
/// with aliases expanded, its values take more bytes than `text_len` bytes could write out
/// plainly.
pub(crate) fn walk<'de, D: Deserializer<'de>>(
    deserializer: D,
    text_len: usize,
) -> Result<(), D::Error> {
    let left = Cell::new(
        text_len
            .saturating_mul(VALUE_BYTES_PER_BYTE)
            .saturating_add(SLACK_BYTES),
    );
    Walk {
        left: &left,
        depth: 0,
        text_len,
    }
    .deserialize(deserializer)
}

#[derive(Clone, Copy)]
struct Walk<'a> {
    /// Value bytes still allowed.
    left: &'a Cell<usize>,
    depth: usize,
    text_len: usize,
}

impl Walk<'_> {
    /// Counts one value of `bytes` bytes.
    fn count<E: de::Error>(self, bytes: usize) -> Result<(), E> {
        match self.left.get().checked_sub(bytes.saturating_add(1)) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(E::custom(format!(
                "aliases expand the file beyond its own size (its values, aliases expanded, \
                 take more than {} bytes: {VALUE_BYTES_PER_BYTE} per byte of the file); write \
                 the repeated parts out instead",
                crate::thousands(
                    self.text_len
                        .saturating_mul(VALUE_BYTES_PER_BYTE)
                        .saturating_add(SLACK_BYTES)
                )
            ))),
        }
    }

    fn nested<E: de::Error>(self) -> Result<Self, E> {
        self.count(0)?;
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(format!(
                "nested deeper than {MAX_DEPTH} levels (an ACL file needs 6)"
            )));
        }
        Ok(Walk {
            depth: self.depth + 1,
            ..self
        })
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.count(1)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.count(8)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.count(8)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.count(8)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.count(v.len())
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.count(v.len())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.count(0)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.count(0)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.nested()?.deserialize(deserializer)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.nested()?.deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.nested()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.nested()?;
        while map.next_key_seed(inner)?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A YAML tag (`!Tag value`): the value under it.
        let inner = self.nested()?;
        let ((), variant) = data.variant_seed(inner)?;
        de::VariantAccess::newtype_variant_seed(variant, inner)
    }
}

thread_local! {
    /// The ACL bound of the file being parsed on this thread ([`max_acls`] of its size): the
    /// derived deserializers that count ACLs take no arguments.
    static ACL_LIMIT: Cell<usize> = const { Cell::new(MAX_ACLS) };
}

/// The ACL bound in force on this thread.
pub(crate) fn acl_limit() -> usize {
    ACL_LIMIT.with(Cell::get)
}

/// Sets this thread's ACL bound while it lives.
pub(crate) struct AclLimit(usize);

impl AclLimit {
    pub(crate) fn set(limit: usize) -> AclLimit {
        AclLimit(ACL_LIMIT.with(|c| c.replace(limit)))
    }
}

impl Drop for AclLimit {
    fn drop(&mut self) {
        ACL_LIMIT.with(|c| c.set(self.0));
    }
}

/// Reads a YAML text's bytes once, before any parser does, and refuses it where its flow
/// collections (`[`, `{`) may nest deeper than [`MAX_DEPTH`]: `Err((line, message))`.
///
/// The YAML parser would otherwise read the whole document into events before the walk
/// could count a single level, spending time on every bracket of a 100,000-deep paste.
///
/// The count never falls below the parser's own flow depth. A bracket outside any scalar or
/// comment counts as the parser counts it. Within anything this scan takes for a scalar or a
/// comment (quoted, plain, a block scalar's lines), the brackets count as if they were
/// structure: the deepest point they would reach and what they would leave open add to the
/// depth, what they would close is ignored. So a mistaken guess about where a scalar starts
/// or ends can only make the count higher, never hide a level; an honest file whose names
/// hold brackets (`"g[1]"`) balances them and costs nothing.
pub(crate) fn prescan(text: &str) -> Result<(), (usize, String)> {
    let bytes = text.as_bytes();
    let mut scan = Prescan {
        depth: 0,
        line: 1,
        region: None,
    };
    let mut i = 0;
    // Whether the previous byte was a blank or a line start (what `#` and quotes need).
    let mut after_blank = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            scan.line += 1;
        }
        match b {
            b'#' if after_blank => {
                // A comment, to the end of the line.
                scan.open_region();
                while i < bytes.len() && bytes[i] != b'\n' {
                    scan.region_byte(bytes[i])?;
                    i += 1;
                }
                scan.close_region()?;
                continue;
            }
            b'\'' | b'"' => {
                // A quoted scalar, to its closing quote (`''` and `\"` escape one).
                scan.open_region();
                i += 1;
                while i < bytes.len() {
                    let c = bytes[i];
                    if c == b'\n' {
                        scan.line += 1;
                    }
                    scan.region_byte(c)?;
                    if b == b'"' && c == b'\\' {
                        if bytes.get(i + 1) == Some(&b'\n') {
                            scan.line += 1;
                        }
                        i += 2;
                        continue;
                    }
                    if c == b {
                        if b == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                scan.close_region()?;
                i += 1;
                after_blank = false;
                continue;
            }
            b'[' | b'{' => scan.open()?,
            b']' | b'}' => scan.depth = scan.depth.saturating_sub(1),
            b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
            // `- `, `? `, `: `: indicators, not the start of a scalar.
            b'-' | b'?' | b':'
                if matches!(bytes.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n')) => {}
            b'|' | b'>' if scan.depth == 0 => {
                // A block scalar: its header line, then every line indented deeper than the
                // line it starts on (or blank).
                let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
                let indent = indentation(&bytes[start..]);
                scan.open_region();
                while i < bytes.len() {
                    let c = bytes[i];
                    if c == b'\n' {
                        let next = &bytes[i + 1..];
                        let blank = next
                            .iter()
                            .take_while(|&&c| c != b'\n')
                            .all(|c| c.is_ascii_whitespace());
                        if !blank && indentation(next) <= indent {
                            break;
                        }
                        scan.line += 1;
                    }
                    scan.region_byte(c)?;
                    i += 1;
                }
                scan.close_region()?;
                after_blank = true;
                continue;
            }
            _ => {
                // A plain scalar (or an anchor, alias, tag): to `: ` or ` #`, and to a flow
                // indicator in flow context; to the end of the line in block context (in flow
                // context it goes on over lines, as the parser's does).
                scan.open_region();
                let start = i;
                while i < bytes.len() {
                    let c = bytes[i];
                    let next = bytes.get(i + 1).copied();
                    let ends = i > start
                        && match c {
                            b'\n' => scan.depth == 0,
                            b' ' | b'\t' => next == Some(b'#'),
                            b',' | b'[' | b']' | b'{' | b'}' => scan.depth > 0,
                            b':' => {
                                matches!(next, None | Some(b' ' | b'\t' | b'\r' | b'\n'))
                                    || (scan.depth > 0
                                        && matches!(next, Some(b',' | b'[' | b']' | b'{' | b'}')))
                            }
                            _ => false,
                        };
                    if ends {
                        break;
                    }
                    if c == b'\n' {
                        scan.line += 1;
                    }
                    scan.region_byte(c)?;
                    i += 1;
                }
                scan.close_region()?;
                after_blank = false;
                continue;
            }
        }
        after_blank = matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'[' | b'{' | b',');
        i += 1;
    }
    Ok(())
}

/// The leading spaces of `line`.
fn indentation(line: &[u8]) -> usize {
    line.iter().take_while(|&&c| c == b' ').count()
}

struct Prescan {
    /// Flow depth outside scalars.
    depth: usize,
    line: usize,
    /// Within a scalar or comment: the brackets' (running balance, highest balance).
    region: Option<(isize, isize)>,
}

impl Prescan {
    fn too_deep(&self) -> (usize, String) {
        (
            self.line,
            format!(
                "nested deeper than {MAX_DEPTH} levels (an ACL file needs 6): too many \
                 unclosed `[` or `{{`"
            ),
        )
    }

    fn open(&mut self) -> Result<(), (usize, String)> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn open_region(&mut self) {
        self.region = Some((0, 0));
    }

    fn region_byte(&mut self, c: u8) -> Result<(), (usize, String)> {
        if let Some((balance, highest)) = &mut self.region {
            match c {
                b'[' | b'{' => {
                    *balance += 1;
                    *highest = (*highest).max(*balance);
                    if self.depth + highest.unsigned_abs() > MAX_DEPTH {
                        return Err(self.too_deep());
                    }
                }
                b']' | b'}' => *balance -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn close_region(&mut self) -> Result<(), (usize, String)> {
        if let Some((balance, _)) = self.region.take() {
            self.depth += usize::try_from(balance).unwrap_or(0);
            if self.depth > MAX_DEPTH {
                return Err(self.too_deep());
            }
        }
        Ok(())
    }
}
