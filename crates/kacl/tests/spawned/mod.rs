//! The real `kacl` binary as a child process, for the tests that need a whole server (signals,
//! crashes, restarts on the same data directory).
#![allow(dead_code)] // each test binary uses its own subset

use std::borrow::Cow;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use kacl_protocol::frame::encode_request_frame;
use kacl_protocol::{Message, RequestHeader};

/// The binary under test, built by cargo for the integration tests.
pub(crate) const KACL: &str = env!("CARGO_BIN_EXE_kacl");

/// `kacl serve` arguments: one PLAINTEXT listener on an ephemeral loopback port, data in `dir`.
pub(crate) fn serve_args(dir: &Path) -> Vec<String> {
    vec![
        "serve".to_owned(),
        "--override".to_owned(),
        "listeners=PLAINTEXT://127.0.0.1:0".to_owned(),
        "--override".to_owned(),
        format!("metadata.log.dir={}", dir.display()),
    ]
}

/// Waits for the server's first stdout line, `listening PLAINTEXT://ADDR`, and returns ADDR.
/// The child must have been spawned with a piped stdout.
pub(crate) fn listening_addr(child: &mut Child) -> String {
    kacl_test_support::listening::first_addr(child).unwrap_or_else(|why| panic!("{why}"))
}

/// A blocking Kafka-wire client for these tests: one request at a time, the raw response frame
/// payload back (each test file adds the calls it needs in its own `impl Client`). Its client id
/// is the test binary's name.
pub(crate) struct Client {
    stream: TcpStream,
    correlation: i32,
}

impl Client {
    /// Connects, panicking when the server does not accept.
    pub(crate) fn connect(addr: SocketAddr) -> Client {
        Client::try_connect(addr).expect("connect")
    }

    pub(crate) fn try_connect(addr: SocketAddr) -> std::io::Result<Client> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Client {
            stream,
            correlation: 0,
        })
    }

    /// Sends `body` at `version` and returns the response frame's payload.
    pub(crate) fn call<'a, M: Message<'a>>(
        &mut self,
        version: i16,
        body: &M,
    ) -> std::io::Result<Vec<u8>> {
        self.correlation += 1;
        let header = RequestHeader {
            correlation_id: self.correlation,
            client_id: Some(Cow::Borrowed(env!("CARGO_CRATE_NAME"))),
            ..Default::default()
        };
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, version, body).expect("encodable");
        self.stream.write_all(&out)?;
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size)?;
        let mut payload = vec![0u8; i32::from_be_bytes(size) as usize];
        self.stream.read_exact(&mut payload)?;
        Ok(payload)
    }
}
