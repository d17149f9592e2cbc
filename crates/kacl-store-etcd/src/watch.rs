//! An open watch: etcd's bidirectional `Watch` stream, read by a task on the etcd runtime and
//! handed to the blocking feed one message at a time.

use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;

use bytes::Bytes;
use prost::Message;

use crate::error::{stale_token, EtcdError, TokenSlot};
use crate::grpc::GrpcError;
use crate::http::{self, CallError};
use crate::proto::WatchResponse;

/// Messages (or the stream's end) that the reader task hands to [`WatchStream`].
type WatchItem = Result<Bytes, EtcdError>;

/// An open watch: a task on the etcd runtime reads the stream and hands each message over a
/// bounded channel (so a slow consumer slows the stream through HTTP/2 flow control).
pub struct WatchStream {
    messages: Receiver<WatchItem>,
    reader: tokio::task::JoinHandle<()>,
    idle: Duration,
    token: TokenSlot,
}

impl std::fmt::Debug for WatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchStream")
    }
}

/// Hands one item to the consumer; an error once it is gone.
fn hand_over(tx: &SyncSender<WatchItem>, item: WatchItem) -> Result<(), GrpcError> {
    let gone = || GrpcError::Protocol("the watch was closed".to_owned());
    match tx.try_send(item) {
        Ok(()) => Ok(()),
        Err(TrySendError::Full(item)) => {
            tokio::task::block_in_place(|| tx.send(item)).map_err(|_| gone())
        }
        Err(TrySendError::Disconnected(_)) => Err(gone()),
    }
}

impl WatchStream {
    /// Reads the watch opened on `conn` (its own connection). While it is read, `conn` is
    /// PINGed every `probe`: a member that stops answering (frozen, cut off) ends the watch
    /// within two probes, so the feed re-opens it on another member instead of waiting for
    /// its idle timeout while this node's writes wait for their changes to come back.
    pub(crate) fn start(
        send: h2::SendStream<Bytes>,
        body: h2::RecvStream,
        token: TokenSlot,
        conn: http::Conn,
        probe: Duration,
    ) -> Result<WatchStream, EtcdError> {
        let (tx, messages) = std::sync::mpsc::sync_channel(64);
        let reader = http::spawn(async move {
            // The request side stays open for as long as the watch is read.
            let _send = send;
            let read = http::read_messages(body, |message| hand_over(&tx, Ok(message)));
            let result = conn.watched(read, probe).await;
            let end = match result {
                Ok(()) => EtcdError::Unavailable {
                    endpoints: String::new(),
                    detail: "the watch stream ended".to_owned(),
                },
                Err(CallError::Grpc(GrpcError::Status { code, message })) => {
                    EtcdError::Status { code, message }
                }
                Err(CallError::Grpc(GrpcError::Protocol(detail))) => EtcdError::Protocol(detail),
                Err(
                    CallError::NotSent(detail)
                    | CallError::Lost(detail)
                    | CallError::Unresponsive(detail),
                ) => EtcdError::Unavailable {
                    endpoints: String::new(),
                    detail: format!("watch: {detail}"),
                },
            };
            let _ = hand_over(&tx, Err(end));
        })
        .map_err(EtcdError::Protocol)?;
        Ok(WatchStream {
            messages,
            reader,
            idle: Duration::from_secs(3600),
            token,
        })
    }

    /// Sets how long [`WatchStream::next_message`] waits for a message.
    pub fn set_idle_timeout(&mut self, timeout: Duration) -> std::io::Result<()> {
        self.idle = timeout;
        Ok(())
    }

    /// The next message, waiting at most the idle timeout. A watcher that etcd cancels for
    /// another reason than a compaction (a refused or expired token) is an error: the next
    /// watch authenticates again.
    pub fn next_message(&mut self) -> Result<WatchResponse, EtcdError> {
        match self.messages.recv_timeout(self.idle) {
            Ok(Ok(bytes)) => {
                let message = WatchResponse::decode(bytes)
                    .map_err(|e| EtcdError::Protocol(format!("watch message: {e}")))?;
                if message.canceled && message.compact_revision == 0 {
                    *self.token.write() = None;
                    return Err(EtcdError::Status {
                        code: 1,
                        message: format!("etcd canceled the watch: {:.200}", message.cancel_reason),
                    });
                }
                Ok(message)
            }
            Ok(Err(err)) => {
                if let EtcdError::Status { code, message } = &err {
                    if stale_token(*code, message) || *code == 7 {
                        *self.token.write() = None;
                    }
                }
                Err(err)
            }
            Err(RecvTimeoutError::Timeout) => Err(EtcdError::WatchIdle),
            Err(RecvTimeoutError::Disconnected) => Err(EtcdError::Unavailable {
                endpoints: String::new(),
                detail: "the watch stream ended".to_owned(),
            }),
        }
    }
}

impl Drop for WatchStream {
    fn drop(&mut self) {
        // Dropping the task drops the stream: HTTP/2 resets it, and the connection closes.
        self.reader.abort();
    }
}
