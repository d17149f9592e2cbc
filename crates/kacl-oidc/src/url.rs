//! The `http://` and `https://` URLs kacl fetches from an identity provider: scheme, host,
//! port and request target, nothing else (no user info, no fragment).

use std::fmt;

use super::OidcError;

/// A parsed `http(s)://host[:port][/path][?query]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    /// True for `https`.
    pub tls: bool,
    /// The host as written (an IPv6 address without its brackets).
    pub host: String,
    /// The port (80 / 443 by default).
    pub port: u16,
    /// The request target: path and query, at least `/`.
    pub target: String,
}

impl HttpUrl {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<HttpUrl, OidcError> {
        let bad = |why: &str| OidcError::Url(format!("`{text}`: {why}"));
        let text_trim = text.trim();
        let (tls, rest) = if let Some(rest) = strip_prefix_ci(text_trim, "https://") {
            (true, rest)
        } else if let Some(rest) = strip_prefix_ci(text_trim, "http://") {
            (false, rest)
        } else {
            return Err(bad("not an http:// or https:// URL"));
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let (authority, target) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'?' => (&rest[..i], format!("/{}", &rest[i..])),
            Some(i) => (&rest[..i], rest[i..].to_owned()),
            None => (rest, "/".to_owned()),
        };
        if authority.contains('@') {
            return Err(bad("user info in the URL is not supported"));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let end = v6.find(']').ok_or_else(|| bad("unclosed IPv6 address"))?;
            let port = v6[end + 1..].strip_prefix(':');
            (&v6[..end], port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        if target.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(bad("spaces or control characters in the path"));
        }
        let port = match port {
            None => {
                if tls {
                    443
                } else {
                    80
                }
            }
            Some(p) => p.parse().map_err(|_| bad("bad port"))?,
        };
        Ok(HttpUrl {
            tls,
            host: host.to_owned(),
            port,
            target,
        })
    }

    /// The `Host` header value.
    pub fn host_header(&self) -> String {
        let default = if self.tls { 443 } else { 80 };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// `host:port` to connect to.
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl fmt::Display for HttpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}{}", self.host_header(), self.target)
    }
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_providers_publish() {
        let u =
            HttpUrl::parse("https://idp.example/realms/k/protocol/openid-connect/certs").unwrap();
        assert!(u.tls);
        assert_eq!((u.host.as_str(), u.port), ("idp.example", 443));
        assert_eq!(u.target, "/realms/k/protocol/openid-connect/certs");
        assert_eq!(u.host_header(), "idp.example");
        let u = HttpUrl::parse("http://127.0.0.1:8080?x=1#frag").unwrap();
        assert_eq!((u.port, u.target.as_str()), (8080, "/?x=1"));
        assert_eq!(u.to_string(), "http://127.0.0.1:8080/?x=1");
        let u = HttpUrl::parse("HTTP://[::1]:9000/jwks").unwrap();
        assert_eq!(
            (u.host.as_str(), u.address().as_str()),
            ("::1", "[::1]:9000")
        );
        assert_eq!(u.host_header(), "[::1]:9000");
        for bad in [
            "ftp://x",
            "http://",
            "http://:80/",
            "http://u:p@h/",
            "http://h:99999/",
            "http://h/a b",
            "http://[::1/x",
        ] {
            assert!(HttpUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
