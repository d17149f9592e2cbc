//! The real client against a hostile gRPC peer on loopback: an HTTP/2 server (the `h2`
//! crate's) that answers every call with one kind of broken answer. Each must come back as a
//! typed error naming what is wrong, never a panic or a hang. Needs no etcd.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kacl_store_etcd::{ClientOptions, EtcdClient, EtcdError};

#[derive(Clone, Copy, Debug)]
enum Answer {
    /// A message prefix announcing 10 bytes, then 2 bytes and the end.
    Truncated,
    /// A length prefix of 4 GiB.
    OverBound,
    /// The compressed flag, though no compression was asked for.
    Compressed,
    /// A whole frame whose bytes are not protobuf.
    Garbage,
    /// A valid message, then the end without trailers.
    NoStatus,
    /// A trailers-only answer with an error status and a percent-encoded message.
    ErrorStatus,
    /// HTTP 503, no gRPC at all.
    HttpUnavailable,
}

fn trailers(code: &str) -> http::HeaderMap {
    let mut map = http::HeaderMap::new();
    map.insert("grpc-status", code.parse().unwrap());
    map
}

async fn answer(
    mut respond: h2::server::SendResponse<Bytes>,
    answer: Answer,
) -> Result<(), h2::Error> {
    let grpc = || {
        http::Response::builder()
            .status(200)
            .header("content-type", "application/grpc")
            .body(())
            .unwrap()
    };
    let data: &'static [u8] = match answer {
        Answer::ErrorStatus => {
            let head = http::Response::builder()
                .status(200)
                .header("content-type", "application/grpc")
                .header("grpc-status", "11")
                .header(
                    "grpc-message",
                    "etcdserver:%20mvcc:%20required%20revision%20has%20been%20compacted",
                )
                .body(())
                .unwrap();
            respond.send_response(head, true)?;
            return Ok(());
        }
        Answer::HttpUnavailable => {
            let head = http::Response::builder().status(503).body(()).unwrap();
            respond.send_response(head, true)?;
            return Ok(());
        }
        Answer::NoStatus => {
            let mut body = respond.send_response(grpc(), false)?;
            body.send_data(Bytes::from_static(&[0, 0, 0, 0, 0]), true)?;
            return Ok(());
        }
        Answer::Truncated => &[0, 0, 0, 0, 10, 1, 2],
        Answer::OverBound => &[0, 0xff, 0xff, 0xff, 0xff],
        Answer::Compressed => &[1, 0, 0, 0, 0],
        Answer::Garbage => &[0, 0, 0, 0, 3, 0xff, 0xff, 0xff],
    };
    let mut body = respond.send_response(grpc(), false)?;
    body.send_data(Bytes::from_static(data), false)?;
    body.send_trailers(trailers("0"))
}

/// Starts the hostile server on its own thread; its port.
fn serve(kind: Answer) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let Ok(mut conn) = h2::server::handshake(socket).await else {
                        return;
                    };
                    while let Some(Ok((request, respond))) = conn.accept().await {
                        let _request = request;
                        let _ = answer(respond, kind).await;
                    }
                });
            }
        });
    });
    port
}

fn call(kind: Answer) -> EtcdError {
    let client = EtcdClient::new(ClientOptions {
        endpoints: vec![("127.0.0.1".to_owned(), serve(kind))],
        timeout: Duration::from_millis(1500),
        credentials: None,
        tls: None,
    });
    let started = Instant::now();
    let err = client
        .range(b"/kacl/", None, 0, 0)
        .expect_err("a broken answer is an error");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{kind:?} took {:?}",
        started.elapsed()
    );
    err
}

fn protocol(kind: Answer, expected: &str) {
    match call(kind) {
        EtcdError::Protocol(detail) => assert!(detail.contains(expected), "{kind:?}: {detail}"),
        other => panic!("{kind:?}: expected a protocol error, got {other:?}"),
    }
}

#[test]
fn a_truncated_frame_is_a_protocol_error() {
    protocol(Answer::Truncated, "ended inside a message");
}

#[test]
fn a_length_over_the_bound_is_refused() {
    protocol(Answer::OverBound, "over kacl's bound");
}

#[test]
fn a_compressed_message_is_refused() {
    protocol(Answer::Compressed, "compressed");
}

#[test]
fn garbage_protobuf_is_a_protocol_error() {
    protocol(Answer::Garbage, "/etcdserverpb.KV/Range");
}

#[test]
fn a_missing_grpc_status_is_a_protocol_error() {
    protocol(Answer::NoStatus, "without a grpc-status");
}

#[test]
fn an_error_status_keeps_its_code_and_message() {
    let err = call(Answer::ErrorStatus);
    assert!(err.is_compacted(), "{err:?}");
    match err {
        EtcdError::Status { code, message } => {
            assert_eq!(code, 11);
            assert_eq!(
                message,
                "etcdserver: mvcc: required revision has been compacted"
            );
        }
        other => panic!("expected a status, got {other:?}"),
    }
}

#[test]
fn http_unavailable_is_retried_then_unavailable() {
    match call(Answer::HttpUnavailable) {
        EtcdError::Unavailable { detail, .. } => assert!(detail.contains("HTTP 503"), "{detail}"),
        other => panic!("expected unavailable, got {other:?}"),
    }
}
