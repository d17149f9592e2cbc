//! ACL hosts as Kafka 4.4 reads them: the client address in Java's canonical text, and
//! CIDR ranges (`10.0.0.0/8`, `fd00::/16`, KIP-1190's `CidrUtils`).
//!
//! Kafka parses a range with Apache Commons Net, shaded into kafka-clients: a pattern
//! holding `:` is IPv6 (`SubnetUtils6`: the address part through `InetAddress.getByName`,
//! the prefix through `Integer.parseInt`, 0..=128), any other IPv4 (`SubnetUtils`: the
//! regex `\d{1,3}.\d{1,3}.\d{1,3}.\d{1,3}/\d{1,2}`, octets 0..=255, prefix 0..=32). An
//! IPv4 range is inclusive (network and broadcast addresses match, so do /31 and /32),
//! but the client `0.0.0.0` is never in one; the pattern's host bits are ignored
//! (`10.1.2.3/8` is `10.0.0.0/8`); an IPv4 client is never in an IPv6 range nor the
//! reverse. The messages below are Commons Net's, which Kafka quotes in its refusal.

/// A parsed CIDR range: the masked network and the prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CidrRange {
    /// An IPv4 range.
    V4 {
        /// The network address (the pattern's address with host bits cleared).
        network: u32,
        /// The prefix length, 0..=32.
        prefix: u8,
    },
    /// An IPv6 range.
    V6 {
        /// The network address (the pattern's address with host bits cleared).
        network: u128,
        /// The prefix length, 0..=128.
        prefix: u8,
    },
}

/// A client address, parsed as Kafka's range check parses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ClientAddress {
    V4(u32),
    V6(u128),
}

/// The mask of an IPv4 prefix length (0 for /0).
pub(crate) fn mask_v4(prefix: u8) -> u32 {
    u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0)
}

/// The mask of an IPv6 prefix length (0 for /0).
pub(crate) fn mask_v6(prefix: u8) -> u128 {
    u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0)
}

impl CidrRange {
    /// Parses a pattern holding `/` as `CidrUtils` does; the error is the message of
    /// Commons Net's `IllegalArgumentException`.
    pub(crate) fn parse(pattern: &str) -> Result<CidrRange, String> {
        if pattern.contains(':') {
            parse_v6_range(pattern)
        } else {
            parse_v4_range(pattern)
        }
    }

    /// Is `client` in this range (`SubnetInfo.isInRange`)?
    #[inline]
    pub(crate) fn contains(&self, client: ClientAddress) -> bool {
        match (*self, client) {
            (CidrRange::V4 { network, prefix }, ClientAddress::V4(address)) => {
                address != 0 && address & mask_v4(prefix) == network
            }
            (CidrRange::V6 { network, prefix }, ClientAddress::V6(address)) => {
                address & mask_v6(prefix) == network
            }
            _ => false,
        }
    }
}

impl ClientAddress {
    /// The client address a range is checked against, or `None` when Kafka's check
    /// cannot parse it (so no range holds it).
    pub(crate) fn parse(host: &str) -> Option<ClientAddress> {
        if host.contains(':') || host.starts_with('[') {
            match java_ipv6_literal(host)? {
                JavaAddress::V6(bits) => Some(ClientAddress::V6(bits)),
                JavaAddress::V4(_) => None,
            }
        } else {
            commons_v4_address(host).ok().map(ClientAddress::V4)
        }
    }
}

/// Kafka's `CidrUtils.isInRange(client, pattern)`: `pattern` holds `/`, parses, and
/// holds `client`. A pattern without `/` is never a range.
pub fn host_in_range(client: &str, pattern: &str) -> bool {
    if !pattern.contains('/') {
        return false;
    }
    match (CidrRange::parse(pattern), ClientAddress::parse(client)) {
        (Ok(range), Some(address)) => range.contains(address),
        _ => false,
    }
}

/// Does an ACL's `host` apply to a client at `client` (canonical text)? `*`, the same
/// text, or a CIDR range holding it (Kafka's `StandardAuthorizerData.findResult`).
pub fn host_matches(acl_host: &str, client: &str) -> bool {
    acl_host == crate::types::WILDCARD_HOST || acl_host == client || host_in_range(client, acl_host)
}

/// The text Kafka compares ACL hosts with: Java's `InetAddress.getHostAddress()` of an
/// address literal (`fd00::1` → `fd00:0:0:0:0:0:0:1`, `::ffff:10.0.0.1` → `10.0.0.1`).
/// Anything that is not an address literal (and `*`) is returned as given.
pub fn canonical_host(host: &str) -> String {
    if host.contains(':') || host.starts_with('[') {
        if let Some(address) = java_ipv6_literal(host) {
            return match address {
                JavaAddress::V4(bits) => std::net::Ipv4Addr::from(bits).to_string(),
                JavaAddress::V6(bits) => {
                    let groups: Vec<String> = std::net::Ipv6Addr::from(bits)
                        .segments()
                        .iter()
                        .map(|g| format!("{g:x}"))
                        .collect();
                    groups.join(":")
                }
            };
        }
    } else if let Ok(v4) = host.parse::<std::net::Ipv4Addr>() {
        return v4.to_string();
    }
    host.to_string()
}

/// `SubnetUtils(String)`: the IPv4 CIDR regex, then each octet, then the prefix.
fn parse_v4_range(pattern: &str) -> Result<CidrRange, String> {
    let fail = || format!("Could not parse [{pattern}]");
    let (address, prefix) = pattern.split_once('/').ok_or_else(fail)?;
    let octets = v4_octets(address).ok_or_else(fail)?;
    if prefix.is_empty() || prefix.len() > 2 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail());
    }
    let address = check_octets(octets)?;
    let prefix: u32 = prefix.parse().map_err(|_| fail())?;
    if prefix > 32 {
        return Err(format!("Value [{prefix}] not in range [0,32]"));
    }
    let prefix = prefix as u8;
    Ok(CidrRange::V4 {
        network: address & mask_v4(prefix),
        prefix,
    })
}

/// The four `\d{1,3}` groups of a dotted address, unchecked.
fn v4_octets(address: &str) -> Option<[u32; 4]> {
    let mut octets = [0u32; 4];
    let mut parts = address.split('.');
    for octet in octets.iter_mut() {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *octet = part.parse().ok()?;
    }
    parts.next().is_none().then_some(octets)
}

/// Commons Net's `rangeCheck` of each octet, in order.
fn check_octets(octets: [u32; 4]) -> Result<u32, String> {
    let mut address = 0u32;
    for octet in octets {
        if octet > 255 {
            return Err(format!("Value [{octet}] not in range [0,255]"));
        }
        address = (address << 8) | octet;
    }
    Ok(address)
}

/// `SubnetUtils.toInteger`: a client address in the IPv4 range check.
fn commons_v4_address(address: &str) -> Result<u32, String> {
    let octets = v4_octets(address).ok_or_else(|| format!("Could not parse [{address}]"))?;
    check_octets(octets)
}

/// `SubnetUtils6(String)`: prefix after the first `/` (`Integer.parseInt`, 0..=128),
/// then the address through `InetAddress.getByName`, which must give an IPv6 address.
fn parse_v6_range(pattern: &str) -> Result<CidrRange, String> {
    let Some((address, prefix)) = pattern.split_once('/') else {
        return Err(format!(
            "Could not parse [{pattern}] - missing prefix length"
        ));
    };
    let prefix = java_parse_int(prefix)
        .ok_or_else(|| format!("Could not parse [{pattern}] - invalid prefix length"))?;
    if !(0..=128).contains(&prefix) {
        return Err(format!(
            "Could not parse [{pattern}] - prefix length must be between 0 and 128"
        ));
    }
    let prefix = prefix as u8;
    match java_ipv6_literal(address) {
        Some(JavaAddress::V6(bits)) => Ok(CidrRange::V6 {
            network: bits & mask_v6(prefix),
            prefix,
        }),
        Some(JavaAddress::V4(_)) => {
            Err(format!("Could not parse [{address}] - not an IPv6 address"))
        }
        None => Err(format!("Could not parse [{address}]")),
    }
}

/// `Integer.parseInt` over ASCII digits: an optional sign, then at least one digit.
fn java_parse_int(text: &str) -> Option<i64> {
    let digits = text
        .strip_prefix('-')
        .or_else(|| text.strip_prefix('+'))
        .unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: i64 = digits.parse().ok()?;
    let value = if text.starts_with('-') { -value } else { value };
    i32::try_from(value).ok().map(i64::from)
}

/// What `InetAddress.getByName` makes of an IPv6 literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JavaAddress {
    /// An IPv4-mapped literal (`::ffff:a.b.c.d`), which Java turns into an `Inet4Address`.
    V4(u32),
    V6(u128),
}

/// `InetAddress.getByName` on text holding `:`: optional brackets, a numeric scope
/// (`%3`) allowed and ignored, then `IPAddressUtil.textToNumericFormatV6`. `None` where
/// Java throws (names that would go to DNS, interface-name scopes, bad literals).
fn java_ipv6_literal(text: &str) -> Option<JavaAddress> {
    let text = match text.strip_prefix('[') {
        Some(rest) => rest.strip_suffix(']').filter(|r| !r.is_empty())?,
        None => text,
    };
    let first = text.chars().next()?;
    if !(first.is_ascii_hexdigit() || first == ':') {
        return None;
    }
    let text = match text.split_once('%') {
        Some((address, scope)) => {
            if scope.is_empty() || !scope.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            address
        }
        None => text,
    };
    let bytes = text_to_numeric_v6(text)?;
    let bits = u128::from_be_bytes(bytes);
    if bits >> 32 == 0xffff {
        Some(JavaAddress::V4(bits as u32))
    } else {
        Some(JavaAddress::V6(bits))
    }
}

/// `IPAddressUtil.textToNumericFormatV6`: hex groups (value ≤ 0xffff), one `::`, an
/// optional dotted IPv4 tail of exactly four parts.
fn text_to_numeric_v6(src: &str) -> Option<[u8; 16]> {
    let chars = src.as_bytes();
    if chars.len() < 2 {
        return None;
    }
    let mut dst = [0u8; 16];
    let mut i = 0;
    if chars.first() == Some(&b':') {
        i += 1;
        if chars.get(i) != Some(&b':') {
            return None;
        }
    }
    let mut curtok = i;
    let mut saw_xdigit = false;
    let mut val: u32 = 0;
    let mut j = 0usize;
    let mut colonp: Option<usize> = None;
    let mut saw_v4 = false;
    while i < chars.len() {
        let ch = chars.get(i).copied()?;
        i += 1;
        if let Some(d) = (ch as char).to_digit(16) {
            val = (val << 4) | d;
            if val > 0xffff {
                return None;
            }
            saw_xdigit = true;
            continue;
        }
        if ch == b':' {
            curtok = i;
            if !saw_xdigit {
                if colonp.is_some() {
                    return None;
                }
                colonp = Some(j);
                continue;
            } else if i == chars.len() {
                return None;
            }
            if j + 2 > 16 {
                return None;
            }
            *dst.get_mut(j)? = (val >> 8) as u8;
            *dst.get_mut(j + 1)? = val as u8;
            j += 2;
            saw_xdigit = false;
            val = 0;
            continue;
        }
        if ch == b'.' && j + 4 <= 16 {
            let tail = src.get(curtok..)?;
            if tail.bytes().filter(|b| *b == b'.').count() != 3 {
                return None;
            }
            let octets = v4_octets(tail)?;
            for (k, octet) in octets.iter().enumerate() {
                if *octet > 255 {
                    return None;
                }
                *dst.get_mut(j + k)? = *octet as u8;
            }
            j += 4;
            saw_xdigit = false;
            saw_v4 = true;
            break;
        }
        return None;
    }
    if saw_xdigit && !saw_v4 {
        if j + 2 > 16 {
            return None;
        }
        *dst.get_mut(j)? = (val >> 8) as u8;
        *dst.get_mut(j + 1)? = val as u8;
        j += 2;
    }
    if let Some(colonp) = colonp {
        if j == 16 {
            return None;
        }
        let n = j - colonp;
        for k in 1..=n {
            let from = colonp + n - k;
            let to = 16 - k;
            let byte = *dst.get(from)?;
            *dst.get_mut(to)? = byte;
            *dst.get_mut(from)? = 0;
        }
        j = 16;
    }
    (j == 16).then_some(dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(pattern: &str) -> String {
        CidrRange::parse(pattern).err().unwrap_or_default()
    }

    #[test]
    fn messages_are_commons_nets() {
        assert_eq!(refused("10.0.0.0/33"), "Value [33] not in range [0,32]");
        assert_eq!(refused("10.0.0.0/033"), "Could not parse [10.0.0.0/033]");
        assert_eq!(refused("256.0.0.0/8"), "Value [256] not in range [0,255]");
        assert_eq!(refused("10.0.0/8"), "Could not parse [10.0.0/8]");
        assert_eq!(
            refused("fd00::/129"),
            "Could not parse [fd00::/129] - prefix length must be between 0 and 128"
        );
        assert_eq!(
            refused("fd00::/x"),
            "Could not parse [fd00::/x] - invalid prefix length"
        );
        assert_eq!(
            refused("::ffff:1.2.3.4/96"),
            "Could not parse [::ffff:1.2.3.4] - not an IPv6 address"
        );
        assert_eq!(refused("fd00:::1/64"), "Could not parse [fd00:::1]");
        for ok in [
            "fd00::/-0",
            "fd00::/+64",
            "[fd00::]/64",
            "::1.2.3.4/96",
            "01.2.3.4/8",
        ] {
            assert!(CidrRange::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn ranges_hold_what_kafka_says() {
        assert!(host_in_range("10.0.0.1", "10.0.0.0/8"));
        assert!(host_in_range("10.255.255.255", "10.1.2.3/8"));
        assert!(!host_in_range("0.0.0.0", "0.0.0.0/0"));
        assert!(host_in_range("1.2.3.4", "0.0.0.0/0"));
        assert!(host_in_range("10.0.0.1", "10.0.0.0/31"));
        assert!(host_in_range("10.0.0.1", "10.0.0.1/32"));
        assert!(host_in_range("fd00:0:0:0:0:0:0:1", "fd00::/8"));
        assert!(!host_in_range("10.0.0.1", "::/0"));
        assert!(host_in_range("0:0:0:0:0:0:0:0", "::/0"));
        assert!(!host_in_range("10.0.0.1", "10.0.0.1"));
    }

    #[test]
    fn canonical_text_is_javas() {
        assert_eq!(canonical_host("fd00::1"), "fd00:0:0:0:0:0:0:1");
        assert_eq!(canonical_host("::ffff:10.0.0.1"), "10.0.0.1");
        assert_eq!(canonical_host("::"), "0:0:0:0:0:0:0:0");
        assert_eq!(canonical_host("10.0.0.1"), "10.0.0.1");
        assert_eq!(canonical_host("*"), "*");
        assert_eq!(canonical_host("FD00:0::AB"), "fd00:0:0:0:0:0:0:ab");
    }
}
