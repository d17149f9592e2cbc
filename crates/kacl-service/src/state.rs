//! What every connection shares: the configuration, the ACL index and authorizer, the store
//! behind the single ACL writer, the topics the store holds, and the listeners as bound. (What
//! only the I/O shell needs — TLS acceptors, connection limits — stays in the shell.)
//!
//! Beside it, the two things that borrow it and that it holds in turn, so that the three live
//! in one module rather than in a circle of imports: the [`RequestContext`] of one request
//! (who asks, and the one audited way to ask the authorizer), and a gateway node's
//! [`Forwarder`], whose per-connection [`Link`] is handed that context for every forwarded
//! request. Their public paths are [`context`](crate::context) and
//! [`forward`](crate::forward).
//!
//! Reads (authorization, DescribeAcls, Metadata) touch only memory. Writes go through
//! [`AclWriter`](crate::acl_writer::AclWriter), one at a time.

use std::net::SocketAddr;
use std::sync::Arc;

use kacl_acl::{AclOperation, AuthorizationResult, AuthorizerSession, ResourceType};
use kacl_acl::{Authorizer, AuthorizerConfig, SharedAclIndex};
use kacl_protocol::codec::ExactWriter;
use kacl_protocol::frame::{encode_response_frame, encode_response_frame_with_array, RequestFrame};
use kacl_protocol::wire::Cx;
use kacl_protocol::{ApiKey, EncodeError, Message, VersionRange};
use kacl_sasl::TokenValidator;
use kacl_store::{MetadataStore, TopicRecord};

use crate::acl_writer::AclWriter;
use crate::audit::{self, AuditPolicy};
use crate::authorized_ops;
use crate::credentials::ScramCredentials;
use crate::metrics::{Metrics, ResponseErrors};
use crate::outcome::Outcome;
use crate::request_memory::RequestMemoryPool;
use crate::topic_registry::TopicRegistry;
use kacl_server_config::{SecurityProtocol, ServerConfig};

/// One listener as bound: its name and protocol, the local address the OS gave it, and the
/// address Metadata advertises for it (placeholders already filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundListener {
    /// The listener name (`PLAINTEXT`, `INTERNAL`, ...).
    pub name: String,
    /// What the listener speaks.
    pub protocol: SecurityProtocol,
    /// The socket address actually bound (port 0 resolved).
    pub local_addr: SocketAddr,
    /// The host clients are told to connect to.
    pub advertised_host: String,
    /// The port clients are told to connect to.
    pub advertised_port: u16,
    /// In gateway mode, the upstream broker this listener's connections are forwarded to
    /// (one port per upstream broker); `None`: the bootstrap listener, or no gateway.
    pub upstream_node: Option<i32>,
}

/// The server's shared state, behind an `Arc` for every connection.
pub struct ServerState {
    /// The configuration the server was started with.
    pub config: ServerConfig,
    /// The ACLs in memory; the authorizer reads the same set.
    pub acls: SharedAclIndex,
    /// Kafka's StandardAuthorizer rules over `acls`.
    pub authorizer: Authorizer,
    /// The durable store (ACLs, topics, SCRAM credentials).
    pub store: Arc<dyn MetadataStore>,
    /// The one path through which ACL changes reach the store and the index.
    pub acl_writer: AclWriter,
    /// The topics the store holds (loaded at start; topic writes go through it).
    pub topics: TopicRegistry,
    /// The cluster id, generated once by the store.
    pub cluster_id: String,
    /// Every listener as bound, in `listeners` order.
    pub listeners: Vec<BoundListener>,
    /// The SCRAM credentials in memory (logins read them; AlterUserScramCredentials writes
    /// through them to the store).
    pub scram: ScramCredentials,
    /// The client quotas in memory (fed by the store; a gateway node enforces them).
    pub quotas: crate::client_quotas::ClientQuotas,
    /// `queued.max.request.bytes` across all connections (`None`: no bound, Kafka's default).
    pub request_memory: Option<Arc<RequestMemoryPool>>,
    /// What the server counts, for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Permits for encoding large DescribeAcls answers off the connection tasks, one per
    /// core: more at once would only share the cores and hold more answers in memory.
    pub describe_encoders: Arc<tokio::sync::Semaphore>,
    /// In gateway mode, what forwards the data-path APIs to the upstream cluster.
    pub forwarder: Option<Arc<dyn Forwarder>>,
    /// What validates OAUTHBEARER tokens (the identity provider's refreshing JWKS, built by
    /// the server from `sasl.oauthbearer.*`); `None` when OAUTHBEARER is not configured.
    pub oauthbearer: Option<Arc<dyn TokenValidator>>,
}

impl std::fmt::Debug for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerState")
            .field("cluster_id", &self.cluster_id)
            .field("node_id", &self.config.node_id)
            .field("acls", &self.acls.len())
            .field("listeners", &self.listeners)
            .finish_non_exhaustive()
    }
}

impl ServerState {
    /// Builds the state around an already loaded ACL index and topic list.
    // Each argument is a separately loaded part of the state; a builder would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: ServerConfig,
        store: Arc<dyn MetadataStore>,
        acls: SharedAclIndex,
        topics: Vec<TopicRecord>,
        listeners: Vec<BoundListener>,
        scram: ScramCredentials,
        metrics: Arc<Metrics>,
    ) -> ServerState {
        let authorizer = Authorizer::new(
            AuthorizerConfig {
                super_users: config.super_users.clone(),
                allow_everyone_if_no_acl_found: config.allow_everyone_if_no_acl_found,
            },
            acls.clone(),
        );
        let cluster_id = store.cluster_id();
        let request_memory = config
            .queued_max_request_bytes
            .map(|bytes| Arc::new(RequestMemoryPool::new(bytes)));
        if let Some(pool) = &request_memory {
            metrics.set_request_memory(Arc::clone(pool));
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        ServerState {
            describe_encoders: Arc::new(tokio::sync::Semaphore::new(cores)),
            request_memory,
            quotas: Default::default(),
            scram,
            metrics,
            acl_writer: AclWriter::new(store.clone(), acls.clone()),
            topics: TopicRegistry::new(topics),
            config,
            acls,
            authorizer,
            store,
            cluster_id,
            listeners,
            forwarder: None,
            oauthbearer: None,
        }
    }

    /// Validates OAUTHBEARER tokens with `validator`.
    pub fn with_oauthbearer(mut self, validator: Arc<dyn TokenValidator>) -> ServerState {
        self.oauthbearer = Some(validator);
        self
    }

    /// Makes this a gateway node: the APIs `forwarder` offers are forwarded, not answered.
    pub fn with_forwarder(mut self, forwarder: Arc<dyn Forwarder>) -> ServerState {
        self.forwarder = Some(forwarder);
        self
    }

    /// This node's broker id.
    pub fn node_id(&self) -> i32 {
        self.config.node_id
    }

    /// The listener a connection came in on, by name.
    pub fn listener(&self, name: &str) -> Option<&BoundListener> {
        self.listeners.iter().find(|l| l.name == name)
    }
}

/// A gateway: decides which APIs it forwards and makes one [`Link`] per client connection.
pub trait Forwarder: Send + Sync + std::fmt::Debug {
    /// The versions of `api` a client may use through this gateway: the intersection of the
    /// upstream's range and the range the gateway can authorize. `None`: not offered (left
    /// out of ApiVersions and refused), which is the answer for any API the gateway does not
    /// know how to authorize.
    fn offered_versions(&self, api: ApiKey) -> Option<VersionRange>;

    /// The forwarding side of a new client connection on `listener`.
    fn link(&self, listener: &BoundListener) -> Box<dyn Link>;

    /// Which requests a connection on `listener` hands over once their first part has arrived
    /// ([`Link::forward_head`]): `None` when the gateway relays none that way (splicing off,
    /// or a TLS listener, whose bytes cannot be spliced).
    fn cut_through(&self, _listener: &BoundListener) -> Option<CutThrough> {
        None
    }
}

/// Which requests are offered to [`Link::forward_head`] before they have arrived whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutThrough {
    /// The API whose requests are offered.
    pub api: ApiKey,
    /// The smallest frame offered (size prefix excluded): below it, relaying the rest through
    /// a pipe costs more than the copies it saves.
    pub min_frame: usize,
    /// How much of a frame has arrived (at least) when it is offered: enough for its header
    /// and the fields the decision needs.
    pub first_part: usize,
}

/// The part of a request frame still in the client's socket when its first part is offered
/// to [`Link::forward_head`].
pub trait FrameRest: Send {
    /// Bytes of the frame not yet read.
    fn len(&self) -> usize;

    /// Whether nothing of the frame is left to read (never, when offered).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rest, to relay from the client's socket as it arrives; the connection reads nothing
    /// more until the body has ended. `None` when it cannot be relayed (no pipe to be had).
    fn relay(&mut self) -> Option<kacl_splice::SplicedBody>;
}

/// One client connection's forwarding side.
pub trait Link: Send + std::fmt::Debug {
    /// Authorizes one request (already version-checked against
    /// [`Forwarder::offered_versions`], header parsed) and forwards what is allowed. `payload`
    /// is the whole frame without its size prefix, in the buffer it was read into: a request
    /// forwarded as it came is sent from there, never copied.
    fn forward(
        &mut self,
        ctx: &RequestContext<'_>,
        frame: &RequestFrame<'_>,
        payload: &bytes::Bytes,
    ) -> Outcome;

    /// Forwards a request of which only the first part (`head`: the frame without its size
    /// prefix, header parsed into `frame`, whose body is cut short) has arrived, when that part
    /// is enough to decide on it: the link then takes [`FrameRest::relay`] and forwards the
    /// rest as it arrives, or answers itself (a refusal: the rest is then read past).
    /// `None`: the connection reads the whole frame and calls [`Link::forward`], as if never
    /// offered (nothing was authorized or counted).
    fn forward_head(
        &mut self,
        _ctx: &RequestContext<'_>,
        _frame: &RequestFrame<'_>,
        _head: &bytes::Bytes,
        _rest: &mut dyn FrameRest,
    ) -> Option<Outcome> {
        None
    }

    /// Until when the connection must read no further request (a client quota's throttle,
    /// KIP-219), if that is still ahead. The connection checks it before each read.
    fn muted_until(&self) -> Option<std::time::Instant> {
        None
    }

    /// Whether the connection must read no further request until the forwarded ones it has
    /// are answered (a request under a client quota is measured before the next is read, as
    /// Kafka serves a connection one request at a time). Checked before each read.
    fn awaits_answer(&self) -> bool {
        false
    }
}

/// What a handler knows about the request it serves.
#[derive(Debug, Clone, Copy)]
pub struct RequestContext<'a> {
    /// Shared server state.
    pub state: &'a Arc<ServerState>,
    /// The authenticated principal (`Type:name`).
    pub principal: &'a str,
    /// The client's host as the authorizer sees it.
    pub client_host: &'a str,
    /// The listener the request came in on.
    pub listener: &'a BoundListener,
    /// The API.
    pub api: ApiKey,
    /// The request version.
    pub version: i16,
    /// The correlation id to echo.
    pub correlation_id: i32,
}

impl RequestContext<'_> {
    /// Encodes `body` as the response to this request. An encoding failure (a response this
    /// version cannot express) closes the connection rather than sending garbage.
    pub fn respond<'m, M: Message<'m> + ResponseErrors>(&self, body: &M) -> Outcome {
        self.state.metrics.count_errors(self.api, body);
        let mut out = Vec::new();
        let encoded = encode_response_frame(&mut out, self.correlation_id, self.version, body);
        Outcome::encoded(self.api, self.version, out, encoded)
    }

    /// Like [`RequestContext::respond`] for a body whose last array is written element by
    /// element (see [`encode_response_frame_with_array`]): `shell` is the body with that array
    /// empty, `count` its length, `body_len` the exact size of the elements.
    pub fn respond_with_array<'m, M: Message<'m> + ResponseErrors>(
        &self,
        shell: &M,
        count: usize,
        body_len: usize,
        write_elements: impl FnOnce(&mut ExactWriter<'_>, Cx) -> Result<(), EncodeError>,
    ) -> Outcome {
        self.state.metrics.count_errors(self.api, shell);
        let mut out = Vec::new();
        let encoded = encode_response_frame_with_array(
            &mut out,
            self.correlation_id,
            self.version,
            shell,
            count,
            body_len,
            write_elements,
        );
        Outcome::encoded(self.api, self.version, out, encoded)
    }

    /// Who is asking, for the audit log.
    pub fn requester(&self) -> audit::Requester<'_> {
        audit::Requester {
            principal: self.principal,
            host: self.client_host,
            api: self.api,
        }
    }

    /// The one way a handler asks the authorizer: a session for this request's principal and
    /// host whose every decision is counted in the metrics and written to the audit log
    /// (`kacl::authorizer`) by the [`AuditPolicy`] the check names. Holds a read view of the
    /// ACL index until dropped; take it once per request, not per check.
    pub fn authorizer(&self) -> AuditedSession<'_> {
        AuditedSession {
            session: self
                .state
                .authorizer
                .session(self.principal, self.client_host),
            requester: self.requester(),
            metrics: &self.state.metrics,
        }
    }

    /// True if the principal may perform `operation` on the LITERAL resource
    /// `(resource_type, name)`: a check that decides whether the request (or one entry of it)
    /// is served, audited as [`AuditPolicy::ENFORCED`].
    pub fn authorize(
        &self,
        operation: kacl_acl::AclOperation,
        resource_type: kacl_acl::ResourceType,
        name: &str,
    ) -> bool {
        self.authorizer()
            .allows(operation, resource_type, name, AuditPolicy::ENFORCED)
    }

    /// True if the principal may perform `operation` on the cluster resource (audited).
    pub fn cluster_allows(&self, operation: kacl_acl::AclOperation) -> bool {
        self.authorize(
            operation,
            kacl_acl::ResourceType::Cluster,
            kacl_acl::CLUSTER_NAME,
        )
    }

    /// Kafka's text for a denied cluster operation. Kafka embeds its internal request
    /// description here; clients match the code, not the text.
    pub fn cluster_denied_message(&self) -> String {
        format!(
            "Principal {} is not authorized to perform this {} request on the cluster",
            self.principal, self.api
        )
    }
}

/// An authorizer session of one request: every decision goes through [`AuditedSession::allows`],
/// which counts it and logs it as Kafka's authorizer does (`AclAuthorizer.logAuditMessage`: a
/// denial at info when the check asks for it, a grant at debug when it asks for that).
pub struct AuditedSession<'c> {
    session: AuthorizerSession<'c>,
    requester: audit::Requester<'c>,
    metrics: &'c Metrics,
}

impl AuditedSession<'_> {
    /// May the principal perform `operation` on the LITERAL resource `(resource_type, name)`?
    /// `policy` is Kafka's `logIfAllowed`/`logIfDenied` of the check.
    pub fn allows(
        &self,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
        policy: AuditPolicy,
    ) -> bool {
        let result = self.session.authorize(operation, resource_type, name);
        self.metrics.authorization(result);
        audit::decision(
            self.requester,
            operation,
            resource_type,
            name,
            result,
            policy,
            || {
                self.session
                    .explain(
                        self.requester.principal,
                        self.requester.host,
                        operation,
                        resource_type,
                        name,
                    )
                    .rule
            },
        );
        result == AuthorizationResult::Allowed
    }

    /// May the principal perform `operation` on some resource of `resource_type`, as Kafka's
    /// `authorizeByResourceType` decides (KIP-679: an idempotent producer with WRITE on any
    /// topic)? Counted and audited like [`AuditedSession::allows`], naming no resource.
    pub fn allows_any_of_type(
        &self,
        operation: AclOperation,
        resource_type: ResourceType,
        policy: AuditPolicy,
    ) -> bool {
        let result = self
            .session
            .authorize_by_resource_type(operation, resource_type)
            .unwrap_or(AuthorizationResult::Denied);
        self.metrics.authorization(result);
        audit::decision(
            self.requester,
            operation,
            resource_type,
            "*any*",
            result,
            policy,
            || match result {
                AuthorizationResult::Allowed => kacl_acl::DecidingRule::DefaultAllow,
                _ => kacl_acl::DecidingRule::DefaultDeny {
                    resource_has_acls: false,
                },
            },
        );
        result == AuthorizationResult::Allowed
    }

    /// Kafka's authorized-operations bit field (KIP-430) of `(resource_type, name)`. Not audited
    /// and not counted: Kafka computes it with `logIfAllowed = logIfDenied = false`.
    pub fn authorized_operations(&self, resource_type: ResourceType, name: &str) -> i32 {
        authorized_ops::authorized_operations(&self.session, resource_type, name)
    }
}
