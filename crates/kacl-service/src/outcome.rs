//! [`Outcome`]: what the connection does after a request. Handlers return it and the connection
//! loop acts on it; it lives apart from the router so that neither handlers nor the context import
//! the router that imports them.

use std::time::Duration;

use kacl_protocol::{ApiKey, EncodeError};

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

impl Outcome {
    /// The one "encode or close" step every response takes: the frame `out` if encoding
    /// succeeded, else a close (a response this version cannot express is never sent half-made).
    /// A body that did not fill the size computed for it is a bug in a size computation, never
    /// the client's doing: debug builds (tests, the fuzzer) stop on it; release builds close
    /// the connection like any other encoding failure.
    pub fn encoded(
        api: ApiKey,
        version: i16,
        out: Vec<u8>,
        encoded: Result<(), EncodeError>,
    ) -> Outcome {
        debug_assert!(
            !matches!(encoded, Err(EncodeError::SizeMismatch { .. })),
            "{encoded:?}"
        );
        match encoded {
            Ok(()) => Outcome::Respond(out),
            Err(err) => Outcome::close(format!(
                "cannot encode the {api} v{version} response: {err}"
            )),
        }
    }
}
