//! The connection against fake brokers: streamed answers over a duplex pipe, spliced ones
//! over real loopback TCP.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

/// A fake broker over a duplex pipe: answers each request (read whole) with `answer(id)`,
/// written in pieces with a pause between them.
fn broker(
    stream: tokio::io::DuplexStream,
    pieces: usize,
    answer: impl Fn(i32) -> Vec<u8> + Send + 'static,
    gate: tokio::sync::mpsc::Receiver<()>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut gate = gate;
        let (mut rx, mut tx) = tokio::io::split(stream);
        loop {
            let mut size = [0u8; 4];
            if rx.read_exact(&mut size).await.is_err() {
                return;
            }
            let mut request = vec![0u8; i32::from_be_bytes(size) as usize];
            rx.read_exact(&mut request).await.unwrap();
            let id = i32::from_be_bytes(request[4..8].try_into().unwrap());
            let body = answer(id);
            let mut frame = ((body.len() + 4) as i32).to_be_bytes().to_vec();
            frame.extend(id.to_be_bytes());
            frame.extend(body);
            let step = frame.len().div_ceil(pieces);
            for piece in frame.chunks(step) {
                tx.write_all(piece).await.unwrap();
                tx.flush().await.unwrap();
                // Each further piece waits for the test's go-ahead.
                if gate.recv().await.is_none() {
                    return;
                }
            }
        }
    })
}

#[tokio::test]
async fn streamed_responses_arrive_in_chunks_before_the_frame_is_complete() {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let body: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
    let expected = body.clone();
    let (go, gate) = tokio::sync::mpsc::channel(64);
    let _broker = broker(theirs, 4, move |_| body.clone(), gate);
    let conn = Connection::start(ours, "b:9092", "t", Duration::from_secs(10));
    let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
    let mut stream = conn.send_streamed(0, &request).await.unwrap();
    let mut got = Vec::new();
    let mut frame_len = 0;
    // The first quarter arrives while the broker waits for the go-ahead.
    while got.len() < expected.len() / 8 {
        let chunk = stream.next_chunk().await.unwrap().unwrap();
        frame_len = chunk.frame_len;
        got.extend(chunk.bytes);
    }
    assert!(
        got.len() < frame_len,
        "only part of the frame has been sent"
    );
    for _ in 0..4 {
        go.send(()).await.unwrap();
    }
    while let Some(chunk) = stream.next_chunk().await.unwrap() {
        got.extend(chunk.bytes);
    }
    assert_eq!(got.len(), frame_len);
    assert_eq!(&got[4..], &expected[..]);
}

#[tokio::test]
async fn a_dropped_stream_is_read_to_its_end_and_the_connection_goes_on() {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (go, gate) = tokio::sync::mpsc::channel(64);
    for _ in 0..64 {
        go.send(()).await.unwrap();
    }
    let _broker = broker(theirs, 8, |id| vec![id as u8; 3_000_000], gate);
    let conn = Connection::start(ours, "b:9092", "t", Duration::from_secs(10));
    let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
    let mut stream = conn.send_streamed(0, &request).await.unwrap();
    let first = stream.next_chunk().await.unwrap().unwrap();
    assert_eq!(first.frame_len, 3_000_004);
    drop(stream);
    let whole = conn.send(0, &request).await.unwrap();
    assert_eq!(whole.after_correlation_id(), &vec![1u8; 3_000_000][..]);
}

/// A broker on real loopback TCP answering request `id` with a body of `sizes[id]` bytes.
async fn tcp_broker(sizes: Vec<usize>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        loop {
            let mut size = [0u8; 4];
            if socket.read_exact(&mut size).await.is_err() {
                return;
            }
            let mut request = vec![0u8; i32::from_be_bytes(size) as usize];
            socket.read_exact(&mut request).await.unwrap();
            let id = i32::from_be_bytes(request[4..8].try_into().unwrap());
            socket
                .write_all(&answer_frame(id, sizes[id as usize]))
                .await
                .unwrap();
        }
    });
    addr
}

fn answer_frame(id: i32, body: usize) -> Vec<u8> {
    let mut frame = ((body + 4) as i32).to_be_bytes().to_vec();
    frame.extend(id.to_be_bytes());
    frame.extend((0..body).map(|i| (i * 13 % 251) as u8));
    frame
}

fn spliceable_request() -> OutgoingFrame {
    let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
    OutgoingFrame::whole(encode_request("t", 0, 0, &request).unwrap()).with_spliced_answer()
}

/// A connection over real loopback TCP to a broker answering with bodies of `sizes`.
async fn connect_to(sizes: Vec<usize>) -> Connection {
    let addr = tcp_broker(sizes).await;
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    Connection::start_tcp(stream, "b:9092", "t", Duration::from_secs(10)).unwrap()
}

/// Sends a request whose answer may come spliced.
async fn send_spliceable(conn: &Connection) -> PendingReply {
    conn.send_frame(spliceable_request(), true)
        .await
        .unwrap()
        .unwrap()
}

async fn whole_frame(answer: ForwardedAnswer) -> (bool, Vec<u8>) {
    match answer {
        ForwardedAnswer::Whole(frame) => (false, frame),
        ForwardedAnswer::Spliced(mut frame) => {
            let mut bytes = frame.head.clone();
            let mut piece = vec![0u8; 100_000];
            loop {
                let n = frame.body.read_some(&mut piece).await.unwrap();
                if n == 0 {
                    return (true, bytes);
                }
                bytes.extend_from_slice(&piece[..n]);
            }
        }
    }
}

#[tokio::test]
async fn a_large_forwarded_answer_comes_spliced_and_a_small_one_whole() {
    let conn = connect_to(vec![2_000_000, 100]).await;
    let large = send_spliceable(&conn).await;
    let small = send_spliceable(&conn).await;
    let (spliced, frame) = whole_frame(large.wait().await.unwrap()).await;
    assert!(spliced, "a 2 MB answer over TCP comes through a pipe");
    assert!(frame == answer_frame(0, 2_000_000), "every byte, in order");
    let (spliced, frame) = whole_frame(small.wait().await.unwrap()).await;
    assert!(!spliced, "below SPLICE_MIN_BODY an answer is read whole");
    assert_eq!(frame, answer_frame(1, 100));
}

#[tokio::test]
async fn a_spliced_answer_dropped_half_way_is_read_past_and_the_connection_goes_on() {
    let conn = connect_to(vec![3_000_000, 300_000]).await;
    let first = send_spliceable(&conn).await;
    match first.wait().await.unwrap() {
        ForwardedAnswer::Spliced(frame) => drop(frame),
        ForwardedAnswer::Whole(_) => panic!("expected a spliced answer"),
    }
    let second = send_spliceable(&conn).await;
    let (_, frame) = whole_frame(second.wait().await.unwrap()).await;
    assert!(
        frame == answer_frame(1, 300_000),
        "the next answer is intact"
    );
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn a_frame_sent_without_the_splice_flag_is_always_whole() {
    let conn = connect_to(vec![1_000_000]).await;
    let request = kacl_protocol::messages::api_versions::ApiVersionsRequest::default();
    let frame = OutgoingFrame::whole(encode_request("t", 0, 0, &request).unwrap());
    let reply = conn.send_frame(frame, true).await.unwrap().unwrap();
    assert!(
        matches!(reply.wait().await.unwrap(), ForwardedAnswer::Whole(f) if f == answer_frame(0, 1_000_000))
    );
}

/// A broker that only records what it receives: each whole request frame (size prefix
/// included), or, when the connection ends in the middle of one, how much of it came.
async fn recording_broker() -> (
    std::net::SocketAddr,
    tokio::sync::mpsc::UnboundedReceiver<Result<Vec<u8>, (usize, usize)>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (frames, received) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        loop {
            let mut size = [0u8; 4];
            if socket.read_exact(&mut size).await.is_err() {
                return;
            }
            let len = i32::from_be_bytes(size) as usize;
            let mut frame = size.to_vec();
            frame.resize(4 + len, 0);
            let mut got = 4;
            while got < frame.len() {
                match socket.read(&mut frame[got..]).await {
                    Ok(0) | Err(_) => {
                        let _ = frames.send(Err((got - 4, len)));
                        return;
                    }
                    Ok(n) => got += n,
                }
            }
            let _ = frames.send(Ok(frame));
        }
    });
    (addr, received)
}

/// A Produce-like frame: a request header's first 8 bytes, then `len - 8` body bytes.
fn request_frame(len: usize) -> Vec<u8> {
    let mut frame = (len as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&[0, 0, 0, 9, 0, 0, 0, 42]);
    frame.extend((8..len).map(|i| (i * 11 % 251) as u8));
    frame
}

/// Sends `frame` cut through: its first 2,000 bytes from memory, the rest relayed from a
/// client socket into which the rest is written (with `end` in place of its last 3 bytes), over
/// a connection that splices (`splice`) or reads and writes the rest.
async fn send_cut_through(
    frame: &[u8],
    end: [u8; 3],
    splice: bool,
) -> (
    Connection,
    tokio::sync::mpsc::UnboundedReceiver<Result<Vec<u8>, (usize, usize)>>,
) {
    let (addr, received) = recording_broker().await;
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let conn = if splice {
        Connection::start_tcp(stream, "b:9092", "t", Duration::from_secs(10)).unwrap()
    } else {
        Connection::start(stream, "b:9092", "t", Duration::from_secs(10))
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (client, accepted) = tokio::join!(
        tokio::net::TcpStream::connect(listener.local_addr().unwrap()),
        listener.accept()
    );
    let mut client = client.unwrap();
    let source = Arc::new(accepted.unwrap().0);
    let first = bytes::Bytes::copy_from_slice(&frame[4..2_004]);
    let mut rest = frame[2_004..].to_vec();
    let at = rest.len() - 3;
    rest[at..].copy_from_slice(&end);
    tokio::spawn(async move {
        client.write_all(&rest).await.unwrap();
        tokio::time::sleep(Duration::from_secs(20)).await;
    });
    let (body, _ended) =
        kacl_splice::relay(source, frame.len() - 2_004, Duration::from_secs(10)).unwrap();
    let expected_end = frame[frame.len() - 3..].to_vec();
    let outgoing = OutgoingFrame::cut_through(first, body, expected_end).unwrap();
    assert_eq!(outgoing.len(), frame.len());
    assert!(conn.send_frame(outgoing, false).await.unwrap().is_none());
    (conn, received)
}

#[tokio::test]
async fn a_cut_through_request_reaches_the_broker_whole_spliced_or_copied() {
    for splice in [true, false] {
        let frame = request_frame(700_000);
        let last = frame[frame.len() - 3..].try_into().unwrap();
        let (conn, mut received) = send_cut_through(&frame, last, splice).await;
        let got = received.recv().await.unwrap().expect("a whole frame");
        let mut expected = frame.clone();
        // The connection's own correlation id (its first: 0) replaces the client's.
        expected[8..12].copy_from_slice(&0i32.to_be_bytes());
        assert!(got == expected, "every byte, in order (splice: {splice})");
        assert!(!conn.is_closed());
    }
}

#[tokio::test]
async fn a_cut_through_request_that_ends_otherwise_never_completes_upstream() {
    for splice in [true, false] {
        let frame = request_frame(700_000);
        let (conn, mut received) = send_cut_through(&frame, [7, 7, 7], splice).await;
        match received.recv().await.unwrap() {
            Err((got, len)) => assert_eq!((got, len), (700_000 - 3, 700_000)),
            Ok(_) => panic!("a frame that ended otherwise was completed (splice: {splice})"),
        }
        assert!(conn.is_closed());
    }
}
