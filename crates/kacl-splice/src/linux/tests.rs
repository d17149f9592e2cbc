//! Real loopback sockets: a "broker" writes a body, the relay splices it from the socket it
//! reads into the socket a "client" reads, and the client must get every byte in order.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

const STALL: Duration = Duration::from_secs(10);

/// A connected pair of loopback sockets.
async fn socket_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (connected, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
    (connected.unwrap(), accepted.unwrap().0)
}

fn body(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

/// Relays `len` bytes into `destination`, returning the bytes moved and how the body ended.
async fn relay_all(
    source: Arc<TcpStream>,
    len: usize,
    destination: &TcpStream,
) -> (usize, BodyEnd) {
    let (mut spliced, ended) = relay(source, len, STALL).expect("a pipe");
    let mut moved = 0;
    loop {
        let n = spliced.splice_some_into(destination).await.unwrap();
        if n == 0 {
            break;
        }
        moved += n;
    }
    assert_eq!(spliced.remaining(), 0);
    drop(spliced);
    (moved, ended.wait().await)
}

#[tokio::test]
async fn a_body_larger_than_its_pipe_arrives_whole_and_in_order_and_the_source_stays_in_step() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    // 5 MB through a pipe of at most 1 MiB, then a trailer that must stay in the source.
    let sent = body(5_000_000);
    let expected = sent.clone();
    tokio::spawn(async move {
        broker.write_all(&sent).await.unwrap();
        broker.write_all(b"next frame").await.unwrap();
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let client_side = tokio::spawn(async move {
        let mut got = vec![0u8; expected.len()];
        client.read_exact(&mut got).await.unwrap();
        assert!(got == expected, "every byte, in order");
    });
    let source = Arc::new(relay_in);
    let (moved, end) = relay_all(source.clone(), 5_000_000, &relay_out).await;
    assert_eq!(moved, 5_000_000);
    assert!(matches!(end, BodyEnd::Relayed), "{end:?}");
    client_side.await.unwrap();
    let mut trailer = [0u8; 10];
    source.readable().await.unwrap();
    let n = source.try_read(&mut trailer).unwrap();
    assert_eq!(
        &trailer[..n],
        &b"next frame"[..n],
        "the source is at the next frame"
    );
}

#[tokio::test]
async fn a_slow_source_and_a_slow_reader_lose_nothing() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    let sent = body(600_000);
    let expected = sent.clone();
    // The source trickles in pieces, so the relay often finds the socket empty.
    tokio::spawn(async move {
        for piece in sent.chunks(7_001) {
            broker.write_all(piece).await.unwrap();
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
    });
    // The client reads late and in small pieces, so the relay often finds its socket full.
    let client_side = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut got = Vec::new();
        let mut piece = [0u8; 3_000];
        while got.len() < expected.len() {
            let n = client.read(&mut piece).await.unwrap();
            assert!(n > 0);
            got.extend_from_slice(&piece[..n]);
        }
        assert!(got == expected, "every byte, in order");
    });
    let (moved, end) = relay_all(Arc::new(relay_in), 600_000, &relay_out).await;
    assert_eq!(moved, 600_000);
    assert!(matches!(end, BodyEnd::Relayed));
    client_side.await.unwrap();
}

#[tokio::test]
async fn read_some_gives_the_body_to_a_destination_that_cannot_splice() {
    let (mut broker, relay_in) = socket_pair().await;
    let sent = body(300_000);
    let expected = sent.clone();
    tokio::spawn(async move { broker.write_all(&sent).await.unwrap() });
    let (mut spliced, ended) = relay(Arc::new(relay_in), 300_000, STALL).expect("a pipe");
    let mut got = Vec::new();
    let mut piece = vec![0u8; 40_000];
    loop {
        let n = spliced.read_some(&mut piece).await.unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&piece[..n]);
    }
    assert!(got == expected);
    drop(spliced);
    assert!(matches!(ended.wait().await, BodyEnd::Relayed));
}

#[tokio::test]
async fn a_body_dropped_half_way_says_how_much_is_left_in_the_source() {
    // 32 MB: more than the pipe and both sockets' buffers hold, so some stays in the source.
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, _client) = socket_pair().await;
    tokio::spawn(async move {
        let _ = broker.write_all(&body(32_000_000)).await;
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let (mut spliced, ended) = relay(Arc::new(relay_in), 32_000_000, STALL).expect("a pipe");
    // The client never reads: the relay moves what the sockets and the pipe take, then waits.
    let _ = tokio::time::timeout(Duration::from_millis(300), async {
        while spliced.splice_some_into(&relay_out).await.unwrap() > 0 {}
    })
    .await;
    let remaining = spliced.remaining();
    assert!(remaining > 0 && remaining < 32_000_000);
    drop(spliced);
    match ended.wait().await {
        BodyEnd::Abandoned { left_in_source } => {
            assert!(left_in_source > 0 && left_in_source <= remaining)
        }
        other => panic!("expected Abandoned, got {other:?}"),
    }
}

#[tokio::test]
async fn a_source_that_ends_early_fails_the_body() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    tokio::spawn(async move {
        broker.write_all(&body(10_000)).await.unwrap();
        // Dropped: the relay's source ends 990,000 bytes short.
    });
    tokio::spawn(async move {
        let mut sink = vec![0u8; 1 << 16];
        while client.read(&mut sink).await.is_ok_and(|n| n > 0) {}
    });
    let (mut spliced, ended) = relay(Arc::new(relay_in), 1_000_000, STALL).expect("a pipe");
    let mut moved = 0;
    let err = loop {
        match spliced.splice_some_into(&relay_out).await {
            Ok(n) => moved += n,
            Err(err) => break err,
        }
    };
    assert_eq!(moved, 10_000, "what came went out");
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    drop(spliced);
    assert!(matches!(ended.wait().await, BodyEnd::SourceFailed));
}

#[tokio::test]
async fn a_source_that_stalls_mid_body_fails_it_after_the_stall_bound() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    tokio::spawn(async move {
        broker.write_all(&body(10_000)).await.unwrap();
        // Held open and silent: the body never completes.
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    tokio::spawn(async move {
        let mut sink = vec![0u8; 1 << 16];
        while client.read(&mut sink).await.is_ok_and(|n| n > 0) {}
    });
    let (mut spliced, ended) =
        relay(Arc::new(relay_in), 1_000_000, Duration::from_millis(200)).expect("a pipe");
    let started = std::time::Instant::now();
    let err = loop {
        match spliced.splice_some_into(&relay_out).await {
            Ok(_) => {}
            Err(err) => break err,
        }
    };
    assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(spliced);
    assert!(matches!(ended.wait().await, BodyEnd::SourceFailed));
}

#[tokio::test]
async fn a_held_back_end_is_not_spliced_but_read_and_the_body_ends_relayed() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    let sent = body(400_000);
    let expected = sent.clone();
    tokio::spawn(async move {
        broker.write_all(&sent).await.unwrap();
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let (spliced, ended) = relay(Arc::new(relay_in), 400_000, STALL).expect("a pipe");
    let mut spliced = spliced.hold_back(3);
    let mut moved = 0;
    loop {
        let n = spliced.splice_some_into(&relay_out).await.unwrap();
        if n == 0 {
            break;
        }
        moved += n;
    }
    assert_eq!(
        moved, 399_997,
        "all but the held-back end went through the pipe"
    );
    assert_eq!(spliced.remaining(), 3);
    let mut end = [0u8; 8];
    let mut got_end = Vec::new();
    while got_end.len() < 3 {
        let n = spliced.read_some(&mut end).await.unwrap();
        assert!(n > 0);
        got_end.extend_from_slice(&end[..n]);
    }
    assert_eq!(&got_end[..], &expected[399_997..]);
    assert_eq!(spliced.remaining(), 0);
    drop(spliced);
    assert!(matches!(ended.wait().await, BodyEnd::Relayed));
    let mut got = vec![0u8; 399_997];
    client.read_exact(&mut got).await.unwrap();
    assert!(got[..] == expected[..399_997]);
}
