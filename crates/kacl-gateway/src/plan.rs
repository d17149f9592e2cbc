//! What a rule decides for one request ([`Plan`]) and the owned view of the request a
//! response rewrite needs after the upstream has answered ([`Asker`]).

use std::sync::Arc;

use kacl_protocol::frame::{encode_request_frame, encode_response_frame, RequestFrame};
use kacl_protocol::{ApiKey, Message};
use kacl_service::context::RequestContext;
use kacl_service::{BoundListener, Outcome, ServerState};

/// Turns the upstream's answer (its whole frame: size prefix, correlation id, rest of the
/// header, body) into what the client gets.
pub(crate) type Finish = Box<dyn FnOnce(&Asker, Vec<u8>) -> Outcome + Send>;

/// The decision for one request.
pub(crate) enum Plan {
    /// Answer without the upstream (everything refused, a malformed request, or a refusal
    /// that closes the connection).
    Answer(Outcome),
    /// Send to the upstream.
    Forward {
        /// `None`: the client's own bytes, unchanged; `Some`: a reduced request frame (size
        /// prefix included) with the refused entries taken out.
        request: Option<Vec<u8>>,
        /// False for a Produce with acks=0, which the upstream never answers.
        expects_response: bool,
        /// What to make of the answer; `None`: pass it on unchanged (the fast path, which
        /// needs nothing of the request but its correlation id).
        finish: Option<Finish>,
        /// How the client's bytes go up and the answer comes back on the fast path.
        relay: Relay,
    },
}

/// How a request passed on as the client sent it travels (the fast path).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Relay {
    /// Ask the upstream for this version instead of the client's: one whose request bytes
    /// are the same and whose answer is a valid answer at the client's version.
    pub(crate) upstream_version: Option<i16>,
    /// The answer is passed on unread and may be large (a Fetch's records): over plain TCP
    /// on both sides its body is spliced from socket to socket.
    pub(crate) bulk: bool,
}

impl Plan {
    /// Forward the client's bytes and pass the answer back unchanged.
    pub(crate) fn pass() -> Plan {
        Plan::Forward {
            request: None,
            expects_response: true,
            finish: None,
            relay: Relay::default(),
        }
    }

    /// Forward the client's bytes (at `upstream_version` if given) and pass the possibly large
    /// answer back unchanged and unread.
    pub(crate) fn pass_bulk(upstream_version: Option<i16>) -> Plan {
        Plan::Forward {
            request: None,
            expects_response: true,
            finish: None,
            relay: Relay {
                upstream_version,
                bulk: true,
            },
        }
    }

    /// Forward the client's bytes and rewrite the answer with `finish`.
    pub(crate) fn rewrite(finish: Finish) -> Plan {
        Plan::Forward {
            request: None,
            expects_response: true,
            finish: Some(finish),
            relay: Relay::default(),
        }
    }

    /// Forward `body` in place of the client's request (same header), then `finish`.
    pub(crate) fn reduced<'m, M: Message<'m>>(
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        body: &M,
        finish: Finish,
    ) -> Plan {
        let mut out = Vec::with_capacity(64 + body.encoded_len(frame.version()));
        match encode_request_frame(&mut out, &frame.header, frame.version(), body) {
            Ok(()) => Plan::Forward {
                request: Some(out),
                expects_response: true,
                finish: Some(finish),
                relay: Relay::default(),
            },
            Err(err) => Plan::Answer(Outcome::close(format!(
                "cannot encode the reduced {} v{} request: {err}",
                ctx.api,
                frame.version()
            ))),
        }
    }

    /// Answer with `body` (everything refused).
    pub(crate) fn answer<'m, M: Message<'m>>(ctx: &RequestContext<'_>, body: &M) -> Plan {
        let mut out = Vec::new();
        let encoded = encode_response_frame(&mut out, ctx.correlation_id, ctx.version, body);
        Plan::Answer(Outcome::encoded(ctx.api, ctx.version, out, encoded))
    }
}

/// The request a response belongs to, owned so that the rewrite can run after the upstream
/// answered (the request's context borrows from the connection).
#[derive(Debug, Clone)]
pub(crate) struct Asker {
    pub(crate) state: Arc<ServerState>,
    pub(crate) principal: String,
    pub(crate) client_host: String,
    pub(crate) listener: BoundListener,
    pub(crate) api: ApiKey,
    pub(crate) version: i16,
    pub(crate) correlation_id: i32,
}

impl Asker {
    pub(crate) fn of(ctx: &RequestContext<'_>) -> Asker {
        Asker {
            state: ctx.state.clone(),
            principal: ctx.principal.to_owned(),
            client_host: ctx.client_host.to_owned(),
            listener: ctx.listener.clone(),
            api: ctx.api,
            version: ctx.version,
            correlation_id: ctx.correlation_id,
        }
    }

    /// The request's context again, for authorization and encoding.
    pub(crate) fn context(&self) -> RequestContext<'_> {
        RequestContext {
            state: &self.state,
            principal: &self.principal,
            client_host: &self.client_host,
            listener: &self.listener,
            api: self.api,
            version: self.version,
            correlation_id: self.correlation_id,
        }
    }

    /// The upstream's answer frame with the client's correlation id (see [`pass_through`]).
    pub(crate) fn pass_through(&self, frame: Vec<u8>) -> Outcome {
        pass_through(self.correlation_id, frame)
    }

    /// Decodes the upstream's answer frame as `M`, lets `edit` change it, and encodes it for the
    /// client. An answer that does not decode closes the client's connection: the gateway
    /// never passes on what it could not check.
    pub(crate) fn rewrite<'p, M: Message<'p>>(
        &self,
        payload: &'p [u8],
        edit: impl FnOnce(&Asker, &mut M),
    ) -> Outcome {
        match kacl_protocol::frame::decode_broker_response_frame::<M>(
            body_of(payload),
            self.version,
        ) {
            Ok((_, mut body)) => {
                edit(self, &mut body);
                encode_for(self, &body)
            }
            Err(err) => Outcome::close(format!(
                "cannot decode the upstream's {} v{} answer: {err}",
                self.api, self.version
            )),
        }
    }
}

/// Encodes `body` as a complete response frame for `asker`, for answers merged from the
/// upstream's and the gateway's own parts.
pub(crate) fn encode_for<'m, M: Message<'m>>(asker: &Asker, body: &M) -> Outcome {
    let mut out = Vec::new();
    let encoded = encode_response_frame(&mut out, asker.correlation_id, asker.version, body);
    Outcome::encoded(asker.api, asker.version, out, encoded)
}

/// An upstream answer frame without its size prefix.
pub(crate) fn body_of(frame: &[u8]) -> &[u8] {
    frame.get(4..).unwrap_or_default()
}

/// The upstream's answer frame with the client's `correlation_id`, as it came otherwise
/// (patched in place: a Fetch answer's megabytes are never copied).
pub(crate) fn pass_through(correlation_id: i32, mut frame: Vec<u8>) -> Outcome {
    let Some(id) = frame.get_mut(4..8) else {
        return Outcome::close("the upstream sent a response shorter than its header");
    };
    id.copy_from_slice(&correlation_id.to_be_bytes());
    Outcome::Respond(frame)
}

/// [`pass_through`] for an answer whose body comes through a pipe: the id is in its head.
pub(crate) fn pass_through_spliced(
    correlation_id: i32,
    mut frame: kacl_splice::SplicedFrame,
) -> Outcome {
    let Some(id) = frame.head.get_mut(4..8) else {
        return Outcome::close("the upstream sent a response shorter than its header");
    };
    id.copy_from_slice(&correlation_id.to_be_bytes());
    Outcome::Spliced(frame)
}
