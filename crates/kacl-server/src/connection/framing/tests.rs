//! Framing over in-memory pipes and real loopback sockets: limits, pooled large frames, and
//! cut-through frames (yielded at their first part, relayed, read past or read whole).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

#[tokio::test]
async fn a_declared_size_alone_allocates_nothing_large() {
    let (server_side, mut client) = tokio::io::duplex(1 << 20);
    let mut connection = Connection::new(server_side, 104_857_600);
    client
        .write_all(&100_000_000i32.to_be_bytes())
        .await
        .unwrap();
    client.write_all(&[7u8; 10]).await.unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(100), connection.read_frame()).await;
    assert!(waited.is_err(), "the body is still missing");
    assert!(
        connection.buffer.capacity() < 1 << 20,
        "a 100 MB declaration made the buffer {} bytes",
        connection.buffer.capacity()
    );

    // As the body arrives the buffer grows with it, and the frame comes out whole.
    let body = vec![7u8; 3_000_000];
    let (server_side, mut client) = tokio::io::duplex(1 << 16);
    let mut connection = Connection::new(server_side, 104_857_600);
    let sender = tokio::spawn(async move {
        client
            .write_all(&(body.len() as i32).to_be_bytes())
            .await
            .unwrap();
        client.write_all(&body).await.unwrap();
        client
    });
    let frame = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(frame.payload.len(), 3_000_000);
    assert!(frame.payload.iter().all(|b| *b == 7));
    drop(sender.await.unwrap());
}

/// Two frames of `len` bytes (each byte its frame's number) and a small third, written in
/// pieces of `piece` bytes.
async fn send_frames(mut client: tokio::io::DuplexStream, len: usize, piece: usize) {
    let mut bytes = Vec::new();
    for (n, size) in [(1u8, len), (2, len), (3, 10)] {
        bytes.extend_from_slice(&(size as i32).to_be_bytes());
        bytes.extend(std::iter::repeat_n(n, size));
    }
    for chunk in bytes.chunks(piece) {
        client.write_all(chunk).await.unwrap();
    }
    // Kept open until the reader is done.
    std::future::pending::<()>().await;
}

#[tokio::test]
async fn a_large_frame_is_read_into_a_reused_buffer_and_the_next_frame_follows() {
    // 400,000 bytes: the 512 KiB class, which no other test uses.
    let len = 400_000;
    let (server_side, client) = tokio::io::duplex(1 << 16);
    let sender = tokio::spawn(send_frames(client, len, 50_000));
    let mut connection = Connection::new(server_side, 104_857_600);
    let first = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(first.payload.len(), len);
    assert!(first.payload.iter().all(|b| *b == 1));
    let at = first.payload.as_ptr();
    drop(first);
    let second = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(second.payload.len(), len);
    assert!(second.payload.iter().all(|b| *b == 2));
    assert_eq!(
        second.payload.as_ptr(),
        at,
        "the first frame's buffer, read into again"
    );
    let third = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(&third.payload[..], &[3u8; 10]);
    sender.abort();
}

#[tokio::test]
async fn a_large_frame_before_authentication_or_cut_short_is_not_pooled_wrongly() {
    // Before authentication: the buffer grows as before.
    let (server_side, client) = tokio::io::duplex(1 << 16);
    let sender = tokio::spawn(send_frames(client, 300_000, 40_000));
    let mut connection = Connection::new(server_side, 104_857_600);
    connection.set_limits(104_857_600, false);
    let frame = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(frame.payload.len(), 300_000);
    assert!(connection.large.is_none());
    sender.abort();

    // The client goes away in the middle of a pooled frame: reset mid-frame.
    let (server_side, mut client) = tokio::io::duplex(1 << 20);
    let mut connection = Connection::new(server_side, 104_857_600);
    client.write_all(&300_000i32.to_be_bytes()).await.unwrap();
    client.write_all(&[9u8; 100_000]).await.unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(100), connection.read_frame()).await;
    assert!(waited.is_err(), "the body is still missing");
    assert!(connection.large.is_some(), "moved into a pooled buffer");
    assert!(!connection.frame_ready());
    drop(client);
    assert!(matches!(
        connection.read_frame().await,
        Err(ConnectionError::ResetMidFrame)
    ));
}

/// A connected pair of loopback sockets.
async fn socket_pair() -> (TcpStream, TcpStream) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (connected, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
    (connected.unwrap(), accepted.unwrap().0)
}

/// A frame of `len` bytes (without its size prefix) for API `api`, each body byte a
/// function of its position so that a misplaced byte shows.
fn frame_of(api: i16, len: usize) -> Vec<u8> {
    let mut frame = (len as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&api.to_be_bytes());
    frame.extend((2..len).map(|i| (i * 13 % 251) as u8));
    frame
}

const PRODUCE_FIRST: CutThrough = CutThrough {
    api: kacl_protocol::ApiKey::Produce,
    min_frame: 128 * 1024,
    first_part: 1024,
};

/// A connection reading cut-through Produce frames from a client that sends a 300 KB
/// Produce, then a 300 KB frame of another API, then a small Produce, then waits.
async fn cut_through_connection() -> (Connection<TcpStream>, Vec<Vec<u8>>) {
    let (mut client, server_side) = socket_pair().await;
    let frames = vec![frame_of(0, 300_000), frame_of(3, 300_000), frame_of(0, 500)];
    let sent = frames.clone();
    tokio::spawn(async move {
        for frame in &sent {
            client.write_all(frame).await.unwrap();
        }
        tokio::time::sleep(Duration::from_secs(20)).await;
    });
    let mut connection = Connection::new(server_side, 104_857_600);
    connection.set_cut_through(PRODUCE_FIRST, Duration::from_secs(10));
    (connection, frames)
}

/// The frames after the first come whole and intact.
async fn the_others_follow(connection: &mut Connection<TcpStream>, frames: &[Vec<u8>]) {
    for expected in &frames[1..] {
        let frame = connection.read_frame().await.unwrap().expect("a frame");
        assert_eq!(frame.rest, 0, "only a large Produce is cut through");
        assert!(frame.payload[..] == expected[4..]);
    }
}

#[tokio::test]
async fn a_large_produce_comes_at_its_first_part_and_whole_when_declined() {
    let (mut connection, frames) = cut_through_connection().await;
    let first = connection.read_frame().await.unwrap().expect("a frame");
    assert!(first.rest > 0 && first.payload.len() >= 1024);
    assert_eq!(first.payload.len() + first.rest, 300_000);
    assert!(first.payload[..] == frames[0][4..4 + first.payload.len()]);
    assert!(!connection.frame_ready(), "its rest is unsettled");
    connection.read_rest(first.payload, first.lease);
    let whole = connection.read_frame().await.unwrap().expect("a frame");
    assert_eq!(whole.rest, 0, "declined once, read whole");
    assert!(whole.payload[..] == frames[0][4..]);
    the_others_follow(&mut connection, &frames).await;
}

#[tokio::test]
async fn a_relayed_rest_goes_out_through_the_pipe_and_the_next_frame_follows() {
    let (mut connection, frames) = cut_through_connection().await;
    let first = connection.read_frame().await.unwrap().expect("a frame");
    let rest = first.rest;
    let mut body = FrameRest::relay(&mut connection).expect("a pipe");
    assert_eq!((body.remaining(), FrameRest::len(&connection)), (rest, 0));
    connection.settle_rest();
    let (out, mut upstream) = socket_pair().await;
    let relayed = tokio::spawn(async move {
        while body.splice_some_into(&out).await.unwrap() > 0 {}
        drop(body);
        out
    });
    let mut got = vec![0u8; rest];
    upstream.read_exact(&mut got).await.unwrap();
    assert!(got[..] == frames[0][4 + first.payload.len()..]);
    drop(relayed.await.unwrap());
    the_others_follow(&mut connection, &frames).await;
}

#[tokio::test]
async fn a_rest_nobody_took_or_dropped_untouched_is_read_past() {
    // Answered without its rest (a refusal): settled, never relayed.
    let (mut connection, frames) = cut_through_connection().await;
    let first = connection.read_frame().await.unwrap().expect("a frame");
    assert!(first.rest > 0);
    connection.settle_rest();
    the_others_follow(&mut connection, &frames).await;

    // Taken, then dropped before anything was relayed (refused after the relay was made).
    let (mut connection, frames) = cut_through_connection().await;
    connection.read_frame().await.unwrap().expect("a frame");
    let body = FrameRest::relay(&mut connection).expect("a pipe");
    connection.settle_rest();
    drop(body);
    the_others_follow(&mut connection, &frames).await;
}

#[tokio::test]
async fn a_relayed_rest_that_fails_ends_the_connection() {
    let (mut connection, _) = cut_through_connection().await;
    connection.read_frame().await.unwrap().expect("a frame");
    let body = FrameRest::relay(&mut connection).expect("a pipe");
    connection.settle_rest();
    body.fail();
    assert!(matches!(
        connection.read_frame().await,
        Err(ConnectionError::RelayFailed)
    ));
}
