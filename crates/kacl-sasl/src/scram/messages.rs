//! The four SCRAM messages (RFC 5802 section 7): parsing what the other side sent and
//! formatting what we send. Parsers keep the exact text they were given where the
//! AuthMessage needs it, since both sides must sign the same bytes.
//!
//! Differences from Kafka's `ScramMessages`, all toward the RFC: user names may be any UTF-8
//! (Kafka allows ASCII only); a client asking for a mandatory extension (`m=`) is refused
//! (Kafka ignores it); the `y` channel-binding flag is accepted, since kacl offers no
//! channel binding (Kafka accepts only `n`).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use thiserror::Error;

/// Why a SCRAM message could not be read. The texts go to logs, never to the client.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MessageError {
    /// The message does not follow the grammar.
    #[error("malformed SCRAM message: {0}")]
    Malformed(&'static str),
    /// The client asked for channel binding (`p=`), which kacl does not offer.
    #[error("channel binding is not supported")]
    ChannelBindingNotSupported,
    /// An `m=` attribute: a mandatory extension nobody defined.
    #[error("mandatory SCRAM extensions (m=) are not supported")]
    MandatoryExtension,
    /// A name with a bad `=` escape, a NUL, or nothing at all.
    #[error("invalid SCRAM user name encoding")]
    InvalidName,
    /// Not base64.
    #[error("invalid base64 in SCRAM attribute {0}")]
    InvalidBase64(char),
}

/// `n=`/`a=` names escape `,` as `=2C` and `=` as `=3D`.
pub fn encode_saslname(name: &str) -> String {
    name.replace('=', "=3D").replace(',', "=2C")
}

/// Undoes [`encode_saslname`]; any other `=` sequence, a NUL or an empty name is an error.
pub fn decode_saslname(text: &str) -> Result<String, MessageError> {
    if text.is_empty() || text.contains('\0') || text.contains(',') {
        return Err(MessageError::InvalidName);
    }
    let mut name = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('=') {
        name.push_str(rest.get(..at).unwrap_or_default());
        let escape = rest.get(at..at + 3);
        match escape {
            Some("=2C") => name.push(','),
            Some("=3D") => name.push('='),
            _ => return Err(MessageError::InvalidName),
        }
        rest = rest.get(at + 3..).unwrap_or_default();
    }
    name.push_str(rest);
    Ok(name)
}

/// RFC 5802 `printable`: `%x21-2B / %x2D-7E`, at least one.
fn is_valid_nonce(nonce: &str) -> bool {
    !nonce.is_empty()
        && nonce
            .bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b',')
}

/// An `attr=value` extension: the name letters only, the value non-empty without NUL.
fn parse_extension(attribute: &str) -> Result<(&str, &str), MessageError> {
    let (key, value) = attribute
        .split_once('=')
        .ok_or(MessageError::Malformed("an attribute without '='"))?;
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(MessageError::Malformed(
            "an attribute name that is not letters",
        ));
    }
    if value.is_empty() || value.contains('\0') {
        return Err(MessageError::Malformed("an empty attribute value"));
    }
    Ok((key, value))
}

fn decode_base64(value: &str, attribute: char) -> Result<Vec<u8>, MessageError> {
    STANDARD
        .decode(value)
        .map_err(|_| MessageError::InvalidBase64(attribute))
}

/// `client-first-message`: `gs2-header client-first-message-bare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFirst {
    /// `n,,` or `n,a=<authzid>,` (or with `y`): repeated, base64, in the client's final message.
    pub gs2_header: String,
    /// The decoded authorization id, if the client sent one.
    pub authzid: Option<String>,
    /// The decoded user name.
    pub username: String,
    /// The client's nonce.
    pub client_nonce: String,
    /// Optional extensions in order (Kafka's `tokenauth=true` among them).
    pub extensions: Vec<(String, String)>,
    /// The message after the gs2 header, exactly as received: part of the AuthMessage.
    pub bare: String,
}

impl ClientFirst {
    /// Reads a client-first-message.
    pub fn parse(message: &str) -> Result<ClientFirst, MessageError> {
        let (flag, after_flag) = message
            .split_once(',')
            .ok_or(MessageError::Malformed("no gs2 header"))?;
        match flag {
            "n" | "y" => {}
            f if f.starts_with("p=") => return Err(MessageError::ChannelBindingNotSupported),
            _ => return Err(MessageError::Malformed("bad gs2 channel-binding flag")),
        }
        let (authz, bare) = after_flag
            .split_once(',')
            .ok_or(MessageError::Malformed("gs2 header not closed"))?;
        let authzid = match authz {
            "" => None,
            a => Some(decode_saslname(
                a.strip_prefix("a=")
                    .ok_or(MessageError::Malformed("bad gs2 authzid"))?,
            )?),
        };
        let gs2_header = message
            .get(..message.len() - bare.len())
            .unwrap_or_default()
            .to_owned();
        let mut attributes = bare.split(',');
        let user = attributes.next().unwrap_or_default();
        if user.starts_with("m=") {
            return Err(MessageError::MandatoryExtension);
        }
        let username = decode_saslname(
            user.strip_prefix("n=")
                .ok_or(MessageError::Malformed("no n= user name"))?,
        )?;
        let client_nonce = attributes
            .next()
            .and_then(|a| a.strip_prefix("r="))
            .filter(|n| is_valid_nonce(n))
            .ok_or(MessageError::Malformed("no valid r= nonce"))?
            .to_owned();
        let extensions = attributes
            .map(|a| parse_extension(a).map(|(k, v)| (k.to_owned(), v.to_owned())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ClientFirst {
            gs2_header,
            authzid,
            username,
            client_nonce,
            extensions,
            bare: bare.to_owned(),
        })
    }

    /// The value of an extension, if sent.
    pub fn extension(&self, name: &str) -> Option<&str> {
        self.extensions
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `server-first-message`: `r=<client+server nonce>,s=<salt>,i=<iterations>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFirst {
    /// The client's nonce followed by the server's.
    pub nonce: String,
    /// The user's salt.
    pub salt: Vec<u8>,
    /// The user's iteration count.
    pub iterations: u32,
}

impl ServerFirst {
    /// The message text.
    pub fn format(&self) -> String {
        format!(
            "r={},s={},i={}",
            self.nonce,
            STANDARD.encode(&self.salt),
            self.iterations
        )
    }

    /// Reads a server-first-message (client side). Trailing extensions are ignored.
    pub fn parse(message: &str) -> Result<ServerFirst, MessageError> {
        let mut attributes = message.split(',');
        let first = attributes.next().unwrap_or_default();
        if first.starts_with("m=") {
            return Err(MessageError::MandatoryExtension);
        }
        let nonce = first
            .strip_prefix("r=")
            .filter(|n| is_valid_nonce(n))
            .ok_or(MessageError::Malformed("no valid r= nonce"))?
            .to_owned();
        let salt = attributes
            .next()
            .and_then(|a| a.strip_prefix("s="))
            .ok_or(MessageError::Malformed("no s= salt"))?;
        let salt = decode_base64(salt, 's')?;
        if salt.is_empty() {
            return Err(MessageError::Malformed("empty salt"));
        }
        let iterations = attributes
            .next()
            .and_then(|a| a.strip_prefix("i="))
            .filter(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|i| i.parse::<u32>().ok())
            .filter(|i| *i > 0)
            .ok_or(MessageError::Malformed("no valid i= iteration count"))?;
        for attribute in attributes {
            parse_extension(attribute)?;
        }
        Ok(ServerFirst {
            nonce,
            salt,
            iterations,
        })
    }
}

/// `client-final-message`: `c=<gs2 header, base64>,r=<nonce>[,ext...],p=<proof>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFinal {
    /// The decoded `c=` value: must equal the gs2 header of the first message.
    pub channel_binding: Vec<u8>,
    /// The combined nonce.
    pub nonce: String,
    /// The decoded ClientProof.
    pub proof: Vec<u8>,
    /// Everything before `,p=`, exactly as received: part of the AuthMessage.
    pub without_proof: String,
}

impl ClientFinal {
    /// The message without its proof, as the client signs it.
    pub fn format_without_proof(gs2_header: &str, nonce: &str) -> String {
        format!("c={},r={}", STANDARD.encode(gs2_header), nonce)
    }

    /// Reads a client-final-message (server side).
    pub fn parse(message: &str) -> Result<ClientFinal, MessageError> {
        let (without_proof, proof) = message
            .rsplit_once(",p=")
            .ok_or(MessageError::Malformed("no p= proof"))?;
        let proof = decode_base64(proof, 'p')?;
        let mut attributes = without_proof.split(',');
        let channel_binding = attributes
            .next()
            .and_then(|a| a.strip_prefix("c="))
            .ok_or(MessageError::Malformed("no c= channel binding"))?;
        let channel_binding = decode_base64(channel_binding, 'c')?;
        let nonce = attributes
            .next()
            .and_then(|a| a.strip_prefix("r="))
            .filter(|n| is_valid_nonce(n))
            .ok_or(MessageError::Malformed("no valid r= nonce"))?
            .to_owned();
        for attribute in attributes {
            parse_extension(attribute)?;
        }
        Ok(ClientFinal {
            channel_binding,
            nonce,
            proof,
            without_proof: without_proof.to_owned(),
        })
    }
}

/// `server-final-message`: the server's signature, or an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFinal {
    /// `v=<ServerSignature>`.
    Verifier(Vec<u8>),
    /// `e=<server-error-value>`.
    Error(String),
}

impl ServerFinal {
    /// The message text.
    pub fn format(&self) -> String {
        match self {
            ServerFinal::Verifier(signature) => format!("v={}", STANDARD.encode(signature)),
            ServerFinal::Error(error) => format!("e={error}"),
        }
    }

    /// Reads a server-final-message (client side). Trailing extensions are ignored.
    pub fn parse(message: &str) -> Result<ServerFinal, MessageError> {
        let mut attributes = message.split(',');
        let first = attributes.next().unwrap_or_default();
        let result = if let Some(error) = first.strip_prefix("e=") {
            if error.is_empty() || error.contains('=') {
                return Err(MessageError::Malformed("bad e= server error"));
            }
            ServerFinal::Error(error.to_owned())
        } else if let Some(signature) = first.strip_prefix("v=") {
            ServerFinal::Verifier(decode_base64(signature, 'v')?)
        } else {
            return Err(MessageError::Malformed("neither v= nor e="));
        };
        for attribute in attributes {
            parse_extension(attribute)?;
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saslname_round_trips_and_refuses_bad_escapes() {
        for name in ["user", "a,b", "a=b", "=,=2C", "jürgen"] {
            assert_eq!(decode_saslname(&encode_saslname(name)).unwrap(), name);
        }
        assert_eq!(encode_saslname("a,b=c"), "a=2Cb=3Dc");
        for bad in ["", "a=", "a=2", "a=2c", "a=41", "a\0b", "a,b"] {
            assert_eq!(
                decode_saslname(bad),
                Err(MessageError::InvalidName),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn client_first_with_and_without_authzid() {
        let m = ClientFirst::parse("n,,n=user,r=rOprNGfwEbeRWgbNEkqO").unwrap();
        assert_eq!(m.gs2_header, "n,,");
        assert_eq!(m.authzid, None);
        assert_eq!(m.username, "user");
        assert_eq!(m.client_nonce, "rOprNGfwEbeRWgbNEkqO");
        assert_eq!(m.bare, "n=user,r=rOprNGfwEbeRWgbNEkqO");
        let m = ClientFirst::parse("y,a=a=3Db,n=a=3Db,r=x,tokenauth=true,foo=bar").unwrap();
        assert_eq!(m.gs2_header, "y,a=a=3Db,");
        assert_eq!(m.authzid.as_deref(), Some("a=b"));
        assert_eq!(m.username, "a=b");
        assert_eq!(m.extension("tokenauth"), Some("true"));
        assert_eq!(m.extension("foo"), Some("bar"));
        assert_eq!(m.extension("nope"), None);
    }

    #[test]
    fn client_first_errors() {
        let cases = [
            (
                "p=tls-unique,,n=u,r=x",
                MessageError::ChannelBindingNotSupported,
            ),
            ("n,,m=ext,n=u,r=x", MessageError::MandatoryExtension),
            ("n,,n=u=41,r=x", MessageError::InvalidName),
            ("n,,n=,r=x", MessageError::InvalidName),
        ];
        for (text, expected) in cases {
            assert_eq!(ClientFirst::parse(text), Err(expected), "{text:?}");
        }
        for text in [
            "",
            "n",
            "n,",
            "x,,n=u,r=x",
            "n,b=u,n=u,r=x",
            "n,,r=x,n=u",
            "n,,n=u",
            "n,,n=u,r=",
            "n,,n=u,r=a b",
            "n,,n=u,r=x,=v",
            "n,,n=u,r=x,k=",
            "n,,n=u,r=x,k1=v",
        ] {
            assert!(ClientFirst::parse(text).is_err(), "{text:?} accepted");
        }
    }

    #[test]
    fn server_first_round_trip() {
        let m = ServerFirst {
            nonce: "abc%def".into(),
            salt: vec![1, 2, 3],
            iterations: 4096,
        };
        assert_eq!(m.format(), "r=abc%def,s=AQID,i=4096");
        assert_eq!(ServerFirst::parse(&m.format()).unwrap(), m);
        assert_eq!(
            ServerFirst::parse("r=a,s=AQID,i=1,ext=x")
                .unwrap()
                .iterations,
            1
        );
        for bad in [
            "r=a,s=AQID",
            "r=a,s=AQID,i=0",
            "r=a,s=AQID,i=-1",
            "r=a,s=AQID,i=+5",
            "r=a,s=AQID,i=99999999999",
            "r=a,s=!!,i=4096",
            "r=a,s=,i=4096",
            "m=x,r=a,s=AQID,i=4096",
            "s=AQID,r=a,i=4096",
        ] {
            assert!(ServerFirst::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn client_final_keeps_the_signed_text() {
        let m = ClientFinal::parse("c=biws,r=abc,ext=1,p=AQID").unwrap();
        assert_eq!(m.channel_binding, b"n,,");
        assert_eq!(m.nonce, "abc");
        assert_eq!(m.proof, [1, 2, 3]);
        assert_eq!(m.without_proof, "c=biws,r=abc,ext=1");
        assert_eq!(
            ClientFinal::format_without_proof("n,,", "abc"),
            "c=biws,r=abc"
        );
        for bad in [
            "c=biws,r=abc",
            "r=abc,c=biws,p=AQID",
            "c=biws,p=AQID",
            "c=b!ws,r=abc,p=AQID",
            "c=biws,r=abc,p=AQ",
        ] {
            assert!(ClientFinal::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn server_final_both_forms() {
        let v = ServerFinal::Verifier(vec![9; 4]);
        assert_eq!(ServerFinal::parse(&v.format()).unwrap(), v);
        let e = ServerFinal::Error("invalid-proof".into());
        assert_eq!(e.format(), "e=invalid-proof");
        assert_eq!(ServerFinal::parse("e=invalid-proof").unwrap(), e);
        for bad in ["", "x=1", "e=", "v=!!"] {
            assert!(ServerFinal::parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
