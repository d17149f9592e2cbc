//! Shared by the integration tests: a server started in-process through
//! `kacl_test_support::ServerBuilder` (on 127.0.0.1:0 with a temporary data directory), and a
//! minimal Kafka client over any byte stream ([`Wire`]; [`Client`] is the TCP one) that sends
//! frames built from kacl-protocol messages. The `security_*` tests add SASL logins and a test
//! PKI on top of this in `security_support`.
#![allow(dead_code)]

use std::borrow::Cow;
use std::net::SocketAddr;
use std::time::Duration;

use kacl_protocol::frame::{decode_response_frame, encode_request_frame};
use kacl_protocol::messages::create_acls::{AclCreation, CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::delete_acls::{
    DeleteAclsFilter, DeleteAclsRequest, DeleteAclsResponse,
};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::{Message, RequestHeader};
use kacl_server::RunningServer;
use kacl_server_config::ServerConfig;
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use kacl_test_support::{init_logs, InProcessServer, ServerBuilder};
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// A server started by [`ServerBuilder`] and the directory holding its data (deleted on
/// drop), with this suite's Kafka client.
pub(crate) struct TestServer {
    pub server: RunningServer,
    pub dir: TempDir,
}

impl From<InProcessServer> for TestServer {
    fn from(InProcessServer { server, dir }: InProcessServer) -> TestServer {
        TestServer { server, dir }
    }
}

impl TestServer {
    /// The PLAINTEXT (or first) listener's address.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.server.listeners()[0].local_addr
    }

    pub(crate) fn addr_of(&self, name: &str) -> SocketAddr {
        self.server.local_addr(name).expect("listener")
    }

    pub(crate) async fn client(&self) -> Client {
        Client::connect(self.addr()).await
    }
}

/// `properties` on top of the test defaults every server gets (a fresh data dir and a short
/// failed-authentication delay; no listener: the caller names them).
pub(crate) fn bare_config(dir: &std::path::Path, properties: &[(&str, &str)]) -> ServerConfig {
    ServerBuilder::bare().properties(properties).config(dir)
}

/// `properties` on top of [`ServerBuilder::plaintext`]: a PLAINTEXT listener on an ephemeral
/// port with `User:ANONYMOUS` a super user.
pub(crate) fn config(dir: &std::path::Path, properties: &[(&str, &str)]) -> ServerConfig {
    ServerBuilder::plaintext()
        .properties(properties)
        .config(dir)
}

/// A server with only the bare defaults under `properties`, in `dir`.
pub(crate) async fn start_bare_in(dir: TempDir, properties: &[(&str, &str)]) -> TestServer {
    ServerBuilder::bare()
        .properties(properties)
        .in_dir(dir)
        .start()
        .await
        .into()
}

/// A [`ServerBuilder::plaintext`] server with `properties`.
pub(crate) async fn start(properties: &[(&str, &str)]) -> TestServer {
    ServerBuilder::plaintext()
        .properties(properties)
        .start()
        .await
        .into()
}

/// Restarts on the same data directory with new properties.
pub(crate) async fn restart(old: TestServer, properties: &[(&str, &str)]) -> TestServer {
    let TestServer { server, dir } = old;
    InProcessServer { server, dir }
        .restart(ServerBuilder::plaintext().properties(properties))
        .await
        .into()
}

/// A Kafka client over any byte stream (TCP, or TLS in the security tests): frames in, frames
/// out.
pub(crate) struct Wire<S> {
    pub stream: S,
    next_correlation: i32,
}

/// The plain TCP client most tests use.
pub(crate) type Client = Wire<TcpStream>;

impl Wire<TcpStream> {
    pub(crate) async fn connect(addr: SocketAddr) -> Client {
        Wire::new(TcpStream::connect(addr).await.expect("connect"))
    }

    pub(crate) async fn tcp(addr: SocketAddr) -> Client {
        Wire::connect(addr).await
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Wire<S> {
    pub(crate) fn new(stream: S) -> Wire<S> {
        Wire {
            stream,
            next_correlation: 1,
        }
    }

    /// Sends `body` at `version`; returns the correlation id used.
    pub(crate) async fn send<'a, M: Message<'a>>(&mut self, version: i16, body: &M) -> i32 {
        let correlation_id = self.next_correlation;
        self.next_correlation += 1;
        let header = RequestHeader {
            correlation_id,
            client_id: Some(Cow::Borrowed("kacl-test")),
            ..Default::default()
        };
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, version, body).expect("encodable request");
        self.send_raw(&out).await;
        correlation_id
    }

    pub(crate) async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
        self.stream.flush().await.expect("flush");
    }

    /// The next frame's payload, or `None` if the server closed the connection.
    pub(crate) async fn read_frame(&mut self) -> Option<Vec<u8>> {
        let read = async {
            let mut size = [0u8; 4];
            self.stream.read_exact(&mut size).await.ok()?;
            let mut payload = vec![0u8; i32::from_be_bytes(size) as usize];
            self.stream.read_exact(&mut payload).await.ok()?;
            Some(payload)
        };
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .expect("server answered or closed in time")
    }

    /// True if the server closes the connection without sending anything more.
    pub(crate) async fn is_closed(&mut self) -> bool {
        self.read_frame().await.is_none()
    }

    /// Sends and returns the response payload (checked to carry the right correlation id).
    pub(crate) async fn call<'a, M: Message<'a>>(&mut self, version: i16, body: &M) -> Vec<u8> {
        let correlation_id = self.send(version, body).await;
        let payload = self.read_frame().await.expect("a response");
        assert_eq!(
            i32::from_be_bytes(payload[..4].try_into().unwrap()),
            correlation_id,
            "correlation id"
        );
        payload
    }

    pub(crate) async fn describe(
        &mut self,
        version: i16,
        req: &DescribeAclsRequest<'_>,
    ) -> DescribeAclsResponse<'static> {
        let payload = self.call(version, req).await;
        decode::<DescribeAclsResponse>(&payload, version).into_static()
    }

    pub(crate) async fn create(
        &mut self,
        version: i16,
        creations: Vec<AclCreation<'static>>,
    ) -> CreateAclsResponse<'static> {
        let req = CreateAclsRequest {
            creations,
            ..Default::default()
        };
        let payload = self.call(version, &req).await;
        decode::<CreateAclsResponse>(&payload, version).into_static()
    }

    pub(crate) async fn delete(
        &mut self,
        version: i16,
        filters: Vec<DeleteAclsFilter<'static>>,
    ) -> DeleteAclsResponse<'static> {
        let req = DeleteAclsRequest {
            filters,
            ..Default::default()
        };
        let payload = self.call(version, &req).await;
        decode::<DeleteAclsResponse>(&payload, version).into_static()
    }
}

/// One ACL as DescribeAcls shows it: resource type, name, pattern type, principal, host,
/// operation, permission type.
pub(crate) type AclRow = (i8, String, i8, String, String, i8, i8);

/// Every ACL of a DescribeAcls answer, flattened in answer order.
pub(crate) fn acl_rows(response: &DescribeAclsResponse<'_>) -> Vec<AclRow> {
    response
        .resources
        .iter()
        .flat_map(|resource| {
            resource.acls.iter().map(move |acl| {
                (
                    resource.resource_type,
                    resource.resource_name.to_string(),
                    resource.pattern_type,
                    acl.principal.to_string(),
                    acl.host.to_string(),
                    acl.operation,
                    acl.permission_type,
                )
            })
        })
        .collect()
}

/// Decodes a response payload (header included) at `version`.
pub(crate) fn decode<'a, M: Message<'a>>(payload: &'a [u8], version: i16) -> M {
    decode_response_frame::<M>(payload, version)
        .expect("well-formed response")
        .1
}

use kacl_protocol::IntoStatic;

/// A CreateAcls entry.
pub(crate) fn creation(
    rt: i8,
    name: &str,
    pt: i8,
    principal: &str,
    host: &str,
    op: i8,
    perm: i8,
) -> AclCreation<'static> {
    AclCreation {
        resource_type: rt,
        resource_name: Cow::Owned(name.to_owned()),
        resource_pattern_type: pt,
        principal: Cow::Owned(principal.to_owned()),
        host: Cow::Owned(host.to_owned()),
        operation: op,
        permission_type: perm,
        unknown_tagged_fields: Default::default(),
    }
}

/// ALLOW READ on a LITERAL topic for a principal from any host.
pub(crate) fn allow_read(topic: &str, principal: &str) -> AclCreation<'static> {
    creation(TOPIC, topic, LITERAL, principal, "*", READ, ALLOW)
}

pub(crate) fn describe_filter(
    rt: i8,
    name: Option<&str>,
    pt: i8,
    principal: Option<&str>,
    op: i8,
    perm: i8,
) -> DescribeAclsRequest<'static> {
    DescribeAclsRequest {
        resource_type_filter: rt,
        resource_name_filter: name.map(|n| Cow::Owned(n.to_owned())),
        pattern_type_filter: pt,
        principal_filter: principal.map(|p| Cow::Owned(p.to_owned())),
        host_filter: None,
        operation: op,
        permission_type: perm,
        unknown_tagged_fields: Default::default(),
    }
}

pub(crate) fn describe_all() -> DescribeAclsRequest<'static> {
    describe_filter(ANY, None, ANY, None, ANY, ANY)
}

pub(crate) fn delete_filter(
    rt: i8,
    name: Option<&str>,
    pt: i8,
    principal: Option<&str>,
    op: i8,
    perm: i8,
) -> DeleteAclsFilter<'static> {
    DeleteAclsFilter {
        resource_type_filter: rt,
        resource_name_filter: name.map(|n| Cow::Owned(n.to_owned())),
        pattern_type_filter: pt,
        principal_filter: principal.map(|p| Cow::Owned(p.to_owned())),
        host_filter: None,
        operation: op,
        permission_type: perm,
        unknown_tagged_fields: Default::default(),
    }
}

/// Number of ACLs in a describe response.
pub(crate) fn acl_count(resp: &DescribeAclsResponse<'_>) -> usize {
    resp.resources.iter().map(|r| r.acls.len()).sum()
}

// Kafka's codes, spelled out so tests read like the protocol.
pub(crate) const ANY: i8 = 1;
pub(crate) const MATCH: i8 = 2;
pub(crate) const LITERAL: i8 = 3;
pub(crate) const PREFIXED: i8 = 4;
pub(crate) const TOPIC: i8 = 2;
pub(crate) const GROUP: i8 = 3;
pub(crate) const CLUSTER: i8 = 4;
pub(crate) const USER: i8 = 7;
pub(crate) const ALL: i8 = 2;
pub(crate) const READ: i8 = 3;
pub(crate) const WRITE: i8 = 4;
pub(crate) const ALTER: i8 = 7;
pub(crate) const DESCRIBE: i8 = 8;
pub(crate) const DENY: i8 = 2;
pub(crate) const ALLOW: i8 = 3;

impl Wire<TcpStream> {
    /// A client whose socket receive buffer is as small as the kernel allows, so that an
    /// answer it does not read yet stays in the server's write (the server's
    /// `socket.send.buffer.bytes` bounds the other end).
    pub(crate) async fn with_small_window(addr: SocketAddr) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
        Wire::new(socket.connect(addr).await.expect("connect"))
    }
}

/// The request latency histogram of `api` on `server` once it holds `count` requests (the
/// connection records a latency after its answer's last write, a moment after the client
/// may have read it); panics after 10 s.
pub(crate) async fn latency_after(
    server: &TestServer,
    api: kacl_protocol::ApiKey,
    count: u64,
) -> kacl_service::metrics::HistogramSnapshot {
    let metrics = &server.server.state().metrics;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let latency = metrics.request_latency(api).expect("a counted API");
        if latency.count >= count {
            return latency;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{api}: {} latencies recorded, {count} expected",
            latency.count
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
