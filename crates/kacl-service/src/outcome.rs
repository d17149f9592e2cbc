//! [`Outcome`]: what the connection does after a request. Handlers return it and the connection
//! loop acts on it; it lives apart from the router so that neither handlers nor the context import
//! the router that imports them.

use std::time::Duration;

/// What the connection does after a request.
#[derive(Debug)]
pub enum Outcome {
    /// Write this response frame and read the next request.
    Respond(Vec<u8>),
    /// Wait `delay`, write this frame, then close (a failed authentication).
    RespondThenClose {
        /// The complete response frame.
        response: Vec<u8>,
        /// `connection.failed.authentication.delay.ms`.
        delay: Duration,
        /// For the log.
        reason: String,
    },
    /// Close without answering.
    Close {
        /// For the log.
        reason: String,
    },
}

impl Outcome {
    /// A close with a reason for the log.
    pub fn close(reason: impl Into<String>) -> Outcome {
        Outcome::Close {
            reason: reason.into(),
        }
    }
}
