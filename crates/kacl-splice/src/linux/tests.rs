//! Real loopback sockets: a "broker" writes a body, the relay splices it from the socket it
//! reads into the socket a "client" reads, and the client must get every byte in order.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

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

#[tokio::test]
async fn a_body_larger_than_its_pipe_arrives_whole_and_in_order() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    // 5 MB through a pipe of at most 1 MiB: the filler waits for room many times.
    let sent = body(5_000_000);
    let expected = sent.clone();
    let (filler, mut spliced) = pipe(sent.len()).expect("a pipe");
    let broker_side = tokio::spawn(async move {
        broker.write_all(&sent).await.unwrap();
        broker
    });
    let client_side = tokio::spawn(async move {
        let mut got = vec![0u8; expected.len()];
        client.read_exact(&mut got).await.unwrap();
        assert!(got == expected, "every byte, in order");
    });
    let fill = filler.fill_from(&relay_in, 5_000_000);
    let drain = async {
        let mut moved = 0;
        loop {
            let n = spliced.splice_some_into(&relay_out).await.unwrap();
            if n == 0 {
                return moved;
            }
            moved += n;
        }
    };
    let (filled, drained) = tokio::join!(fill, drain);
    filled.unwrap();
    assert_eq!(drained, 5_000_000);
    assert_eq!(spliced.remaining(), 0);
    client_side.await.unwrap();
    broker_side.await.unwrap();
}

#[tokio::test]
async fn a_slow_source_and_a_slow_reader_lose_nothing() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, mut client) = socket_pair().await;
    let sent = body(600_000);
    let expected = sent.clone();
    let (filler, mut spliced) = pipe(sent.len()).expect("a pipe");
    // The source trickles in pieces, so the filler often finds the socket empty.
    let broker_side = tokio::spawn(async move {
        for piece in sent.chunks(7_001) {
            broker.write_all(piece).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_micros(200)).await;
        }
    });
    // The client reads late and in small pieces, so the relay often finds its socket full.
    let client_side = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut got = Vec::new();
        let mut piece = [0u8; 3_000];
        while got.len() < expected.len() {
            let n = client.read(&mut piece).await.unwrap();
            assert!(n > 0);
            got.extend_from_slice(&piece[..n]);
        }
        assert!(got == expected, "every byte, in order");
    });
    let fill = filler.fill_from(&relay_in, 600_000);
    let drain = async { while spliced.splice_some_into(&relay_out).await.unwrap() > 0 {} };
    let (filled, ()) = tokio::join!(fill, drain);
    filled.unwrap();
    client_side.await.unwrap();
    broker_side.await.unwrap();
}

#[tokio::test]
async fn read_some_gives_the_body_to_a_destination_that_cannot_splice() {
    let (mut broker, relay_in) = socket_pair().await;
    let sent = body(300_000);
    let expected = sent.clone();
    let (filler, mut spliced) = pipe(sent.len()).expect("a pipe");
    tokio::spawn(async move { broker.write_all(&sent).await.unwrap() });
    let fill = filler.fill_from(&relay_in, 300_000);
    let read = async {
        let mut got = Vec::new();
        let mut piece = vec![0u8; 40_000];
        loop {
            let n = spliced.read_some(&mut piece).await.unwrap();
            if n == 0 {
                return got;
            }
            got.extend_from_slice(&piece[..n]);
        }
    };
    let (filled, got) = tokio::join!(fill, read);
    filled.unwrap();
    assert!(got == expected);
}

#[tokio::test]
async fn a_dropped_body_stops_the_filler_with_what_is_left() {
    let (mut broker, relay_in) = socket_pair().await;
    let sent = body(4_000_000);
    let (filler, spliced) = pipe(sent.len()).expect("a pipe");
    tokio::spawn(async move {
        let _ = broker.write_all(&sent).await;
        // Held open so the relay's socket does not end.
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    });
    drop(spliced);
    match filler.fill_from(&relay_in, 4_000_000).await {
        Err(FillError::Abandoned { left }) => assert!(left > 0 && left <= 4_000_000),
        other => panic!("expected Abandoned, got {other:?}"),
    }
}

#[tokio::test]
async fn a_source_that_ends_early_fails_the_filler_and_the_body() {
    let (mut broker, relay_in) = socket_pair().await;
    let (relay_out, _client) = socket_pair().await;
    let (filler, mut spliced) = pipe(1_000_000).expect("a pipe");
    tokio::spawn(async move {
        broker.write_all(&body(10_000)).await.unwrap();
        // Dropped: the relay's socket ends 990,000 bytes short.
    });
    let filled = filler.fill_from(&relay_in, 1_000_000).await;
    match filled {
        Err(FillError::Source { left, .. }) => assert_eq!(left, 990_000),
        other => panic!("expected Source, got {other:?}"),
    }
    drop(filler);
    // The body gets the 10,000 bytes that came, then the pipe's end: an early end, not a hang.
    let mut moved = 0;
    let err = loop {
        match spliced.splice_some_into(&relay_out).await {
            Ok(n) => moved += n,
            Err(err) => break err,
        }
    };
    assert_eq!(moved, 10_000);
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
}
