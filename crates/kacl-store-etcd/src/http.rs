//! The little HTTP/1.1 that etcd's gRPC-JSON gateway needs: `POST` a JSON body, read a
//! response framed by `Content-Length` or chunked transfer coding, keep the connection for the
//! next request. Blocking, on `std::net`, with every read and write bounded by a timeout, so
//! an etcd that stops answering turns into an error after the request timeout, never a hang.
//! The same code runs over plain TCP and over TLS (`https://` endpoints, see `tls`).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use rustls::{ClientConnection, StreamOwned};

use crate::tls::EtcdTls;

/// The largest response body accepted: a page of a range is bounded by the request's limit,
/// a watch message by etcd's own message limit; this only stops a hostile peer.
const MAX_BODY: usize = 512 << 20;
/// The longest status or header line accepted.
const MAX_LINE: usize = 16 << 10;

/// A socket, plain or TLS.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(tcp) => tcp,
            Stream::Tls(tls) => tls.get_ref(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.read(buf),
            Stream::Tls(tls) => tls.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.write(buf),
            Stream::Tls(tls) => tls.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(tcp) => tcp.flush(),
            Stream::Tls(tls) => tls.flush(),
        }
    }
}

/// One kept-alive connection to one endpoint.
pub(crate) struct Conn {
    reader: BufReader<Stream>,
    host: String,
}

/// A connect failure: `handshake` when TLS refused the peer (its certificate, or not TLS at
/// all), which no retry mends.
pub(crate) struct ConnectError {
    pub(crate) error: io::Error,
    pub(crate) handshake: bool,
}

impl From<io::Error> for ConnectError {
    fn from(error: io::Error) -> ConnectError {
        ConnectError {
            error,
            handshake: false,
        }
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.handshake {
            write!(f, "TLS handshake failed: {}", self.error)
        } else {
            self.error.fmt(f)
        }
    }
}

impl Conn {
    /// Connects (and runs the TLS handshake when `tls` is set), with `timeout` for the
    /// connect and for every later read and write.
    pub(crate) fn connect(
        host: &str,
        port: u16,
        timeout: Duration,
        tls: Option<&EtcdTls>,
    ) -> Result<Conn, ConnectError> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{host}: no address"));
        for addr in (host, port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(stream) => {
                    stream.set_nodelay(true)?;
                    stream.set_read_timeout(Some(timeout))?;
                    stream.set_write_timeout(Some(timeout))?;
                    let stream = match tls {
                        None => Stream::Plain(stream),
                        Some(tls) => match tls.connect(host, stream) {
                            Ok(tls) => Stream::Tls(Box::new(tls)),
                            Err(error) => {
                                let handshake = matches!(
                                    error.kind(),
                                    io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
                                );
                                return Err(ConnectError { error, handshake });
                            }
                        },
                    };
                    let host = if host.contains(':') {
                        format!("[{host}]:{port}")
                    } else {
                        format!("{host}:{port}")
                    };
                    return Ok(Conn {
                        reader: BufReader::with_capacity(64 << 10, stream),
                        host,
                    });
                }
                Err(err) => last = err,
            }
        }
        Err(last.into())
    }

    /// Sets the read timeout (a watch waits longer than a request).
    pub(crate) fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.reader.get_ref().tcp().set_read_timeout(timeout)
    }

    /// Sends one request. The response must be read (with [`Conn::read_response`] or
    /// [`Conn::read_head`]) before the next.
    pub(crate) fn send(&mut self, path: &str, body: &[u8], token: Option<&str>) -> io::Result<()> {
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n",
            self.host,
            body.len()
        );
        if let Some(token) = token {
            head.push_str("Authorization: ");
            head.push_str(token);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()
    }

    /// Reads a status line and headers.
    pub(crate) fn read_head(&mut self) -> io::Result<Head> {
        let status_line = read_line(&mut self.reader)?;
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| bad(format!("not an HTTP status line: {status_line:.80}")))?;
        let mut head = Head {
            status,
            content_length: None,
            chunked: false,
            close: false,
        };
        loop {
            let line = read_line(&mut self.reader)?;
            if line.is_empty() {
                return Ok(head);
            }
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                head.content_length = Some(
                    value
                        .parse()
                        .map_err(|_| bad(format!("bad Content-Length {value:.40}")))?,
                );
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                head.chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                head.close = value.eq_ignore_ascii_case("close");
            }
        }
    }

    /// Reads a whole response: status, body, and whether the connection may be kept.
    pub(crate) fn read_response(&mut self) -> io::Result<(u16, Vec<u8>, bool)> {
        let head = self.read_head()?;
        let body = if head.chunked {
            let mut body = Vec::new();
            while let Some(chunk) = self.read_chunk()? {
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(bad("response body too large".to_owned()));
                }
                body.extend_from_slice(&chunk);
            }
            body
        } else {
            let len = head.content_length.unwrap_or(0);
            if len > MAX_BODY {
                return Err(bad("response body too large".to_owned()));
            }
            let mut body = vec![0; len];
            self.reader.read_exact(&mut body)?;
            body
        };
        Ok((head.status, body, !head.close))
    }

    /// The next chunk of a chunked body; `None` after the last.
    pub(crate) fn read_chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        let line = read_line(&mut self.reader)?;
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| bad(format!("bad chunk size {size_text:.20}")))?;
        if size > MAX_BODY {
            return Err(bad("chunk too large".to_owned()));
        }
        if size == 0 {
            // Trailers, then the empty line.
            while !read_line(&mut self.reader)?.is_empty() {}
            return Ok(None);
        }
        let mut chunk = vec![0; size];
        self.reader.read_exact(&mut chunk)?;
        if !read_line(&mut self.reader)?.is_empty() {
            return Err(bad("chunk not followed by CRLF".to_owned()));
        }
        Ok(Some(chunk))
    }
}

/// A response's status and framing.
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) status: u16,
    pub(crate) content_length: Option<usize>,
    pub(crate) chunked: bool,
    pub(crate) close: bool,
}

fn read_line(reader: &mut BufReader<Stream>) -> io::Result<String> {
    let mut line = Vec::new();
    let read = reader
        .by_ref()
        .take(MAX_LINE as u64)
        .read_until(b'\n', &mut line)?;
    if read == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "etcd closed the connection",
        ));
    }
    if line.last() != Some(&b'\n') {
        return Err(bad("header line too long".to_owned()));
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map_err(|_| bad("header line is not UTF-8".to_owned()))
}

fn bad(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}
