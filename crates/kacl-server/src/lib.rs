//! The kacl network server's I/O shell: listeners, TLS, connections (framing, frame limits,
//! request memory leases), connection limits, graceful shutdown and the `/metrics` endpoint,
//! around the socket-free request path of `kacl-service`.
//!
//! - [`server`]: [`Server::start`](server::Server::start) → [`RunningServer`](server::RunningServer)
//!   (open and load the store, bind every listener, graceful shutdown).
//! - [`connection`]: framing and the per-connection loop, generic over the byte stream; each
//!   whole frame goes to `kacl_service::router::dispatch`.
//! - [`tls`]: the handshake of SSL and SASL_SSL listeners and certificate principals.
//! - [`connection_limits`]: `max.connections` and `max.connections.per.ip`.
//! - [`metrics_http`]: the `/metrics` endpoint; [`shutdown`]: the signal every loop waits on.
//! - [`fuzzing`]: the whole connection loop over an in-memory pipe, for the fuzz targets.
//! - [`store_open`]: the one way the configured store (a data directory or etcd) is opened.
#![forbid(unsafe_code)]

pub mod connection;
pub mod connection_limits;
pub mod fuzzing;
pub mod metrics_http;
pub mod server;
pub mod shutdown;
pub mod store_open;
pub mod tls;

pub use server::{RunningServer, Server, ShutdownHandle, StartError, TlsReloader};

/// Where kacl deliberately answers differently from Apache Kafka, one sentence each. Each is
/// also commented where it is made; docs/differences-from-kafka.md is rendered from this list
/// (`KACL_BLESS=1 cargo test -p kacl-server --test differences_doc` rewrites it).
pub const DIFFERENCES_FROM_KAFKA: &[&str] = &[
    "DescribeAcls with UNKNOWN (code 0) or an undefined code in resourceTypeFilter, \
     patternTypeFilter, operation or permissionType: INVALID_REQUEST (42) at the top level \
     naming the field; Kafka closes the connection for code 0 and answers an empty success \
     for undefined codes.",
    "CreateAcls entries holding ANY or MATCH: INVALID_REQUEST (42) on that entry naming the \
     field (`Invalid patternType MATCH`); Kafka fails every creation in the request with \
     UNKNOWN_SERVER_ERROR (-1).",
    "DeleteAcls filters holding UNKNOWN (code 0): INVALID_REQUEST `Unknown patternFilter.` / \
     `Unknown entryFilter.` on that filter, Kafka's answer for undefined codes; Kafka closes \
     the connection for code 0.",
    "CreateAcls above kacl.acl.max.batch new ACLs: every valid entry gets POLICY_VIOLATION \
     (44) and nothing is written; entries that failed validation keep their own error.",
    "DeleteAcls above kacl.acl.max.batch removals: filters are taken in order and the filter \
     that would exceed the limit gets POLICY_VIOLATION (44) and deletes nothing while the \
     others proceed; Kafka 3.x/4.0 answer UNKNOWN_SERVER_ERROR and may commit part of that \
     filter's removals.",
    "kacl.describe.self.service.enable=true: a principal without Cluster:Describe gets its \
     own ALLOW ACLs matching the filter instead of CLUSTER_AUTHORIZATION_FAILED (off by \
     default).",
    "ApiVersions of an unsupported version: the v0 error answer lists every served API range; \
     Kafka lists only ApiVersions' own range.",
    "ACL APIs keep v0 (Kafka 4.0 removed it).",
    "A request whose decoded array elements would take more than \
     kacl.request.max.decoded.bytes (64 MiB by default) closes its connection; Kafka bounds \
     only the frame's wire size.",
    "DescribeCluster with endpoint type 2 (controllers) is answered with this node, which is \
     broker and controller at once.",
    "Metadata never auto-creates topics: an unknown named topic is \
     UNKNOWN_TOPIC_OR_PARTITION.",
    "CreatePartitions stores each topic's increase as its own commit; if the store fails on \
     one, it and the topics after it answer UNKNOWN_SERVER_ERROR while those before keep \
     their partitions (Kafka commits a request's increases together).",
    "Metadata v12+ naming a topic with a null name and no id: INVALID_REQUEST on every topic; \
     Kafka fails that request with an internal error.",
    "CreateAcls/DeleteAcls when the store cannot write (disk full, read-only, I/O error): \
     KAFKA_STORAGE_ERROR (56) on each affected entry, with the cause in the message; Kafka's \
     controller answers UNKNOWN_SERVER_ERROR or NOT_CONTROLLER.",
    "AlterUserScramCredentials: an empty salt or salted password is UNACCEPTABLE_CREDENTIAL \
     (93); each change is its own store transaction (Kafka commits the request atomically); \
     results within the success and refusal groups come in request order, not hash-map order.",
    "DescribeUserScramCredentials lists results in request order (all users: by name), \
     SHA-256 before SHA-512.",
    "kacl.scram.bootstrap.credentials creates the first SCRAM credentials at start, in place \
     of `kafka-storage.sh format --add-scram`: once per store, at the first start that sees \
     it on a store without SCRAM credentials, and recorded in the store.",
    "When several ACLs could decide, the audit line's `MatchingAcl(...)` names the first in \
     the order: LITERAL name, PREFIXED prefixes longest first, LITERAL `*`; own principal \
     before `User:*`, own host before `*` before a CIDR range holding it, lowest operation \
     code first. Kafka names the first DENY, or the last ALLOW, of its reverse-name walk. The \
     decision is the same.",
    "A LITERAL `*` ACL applies to every resource name of its type, as Kafka documents, also \
     to a name longer than one character that starts with `*` (a group or transactional id \
     `*x`); Kafka 4.4's StandardAuthorizer skips the wildcard ACL for such names (a quirk of \
     its ordered search). The authorizer differential allows exactly this case.",
    "max.connections: connections over the limit are accepted and closed at once (Kafka \
     leaves them in the listen backlog); per-listener limits are not supported.",
    "After a failed authentication the connection waits (at most 1 s) for the client to close \
     before closing, so that the client reads the error first.",
    "sasl.server.max.receive.size of 0 or below -1 is refused at start (Kafka takes any int, \
     and then no login can succeed); only the global key is read, not listener-prefixed ones.",
    "TLS certificates are rotated by replacing the PEM files and sending SIGHUP; Kafka does \
     it with a dynamic config update (kacl has no dynamic configs).",
    "connections.max.reauth.ms: only the global key is read, not listener- or \
     mechanism-prefixed ones; ssl.principal.mapping.rules likewise (other ssl.* keys may be \
     listener-prefixed).",
    "kacl accepts a SCRAM client-final nonce equal to the combined nonce or to the client \
     nonce followed by it (librdkafka before 2.6.1 sends that); Kafka 3.8.1-3.9 accept any \
     nonce ending with the combined nonce, Kafka 4 only an equal one.",
    "`kacl serve` exits with code 3 when it refuses its data directory (missing, damaged, or \
     of another cluster or node); Kafka exits with 1. A data directory with no \
     `meta.properties` but an existing store (kacl before the identity file) is adopted and \
     the file written.",
    "socket.send.buffer.bytes / socket.receive.buffer.bytes of 0 or below -1 are refused at \
     start; Kafka accepts them and fails on each accepted socket.",
    "Gateway mode: socket.send.buffer.bytes defaults to 409600 (Kafka's default is 102400): a \
     gateway relays each Fetch answer through one more socket than a broker, and with 100 KB \
     there a consumer through it got 0.85x of its direct rate, with 400 KB 1.02x. A value set \
     in the config is taken as given.",
    "At shutdown a response write that makes no progress for 1 s closes its connection \
     instead of holding the grace period.",
    "A DeleteAcls whose answer would exceed socket.request.max.bytes is refused with \
     POLICY_VIOLATION on every filter before anything is deleted; Kafka has no such bound.",
    "Client-controlled strings in log lines are escaped (control and non-printable \
     characters) and bounded to 1,024 characters; Kafka logs them raw.",
    "`kacl acls --remove` with a non-terminal stdin requires `--force`; kafka-acls.sh reads \
     the confirmation from stdin.",
    "Only Kafka's PlainLoginModule and ScramLoginModule are accepted in sasl.jaas.config; \
     OAuthBearer and Kerberos modules are refused at start (an OAuthBearerLoginModule line \
     under listener.name.<l>.oauthbearer.sasl.jaas.config is accepted and not needed: \
     OAUTHBEARER is configured by the sasl.oauthbearer.* keys).",
    "BROKER_LOGGER: DescribeConfigs makes Kafka's broker-id checks but lists no loggers (kacl \
     has none); IncrementalAlterConfigs naming a logger gets INVALID_CONFIG `Logger X does \
     not exist!`.",
    "Every broker config is static: IncrementalAlterConfigs/AlterConfigs setting any broker \
     key gets INVALID_REQUEST `Cannot update these configs dynamically: Set(...)`; \
     DELETE-only changes succeed and change nothing.",
    "AlterConfigs/IncrementalAlterConfigs decide authorization before any other check of a \
     resource (ALTER_CONFIGS on the cluster for BROKER and BROKER_LOGGER, on the topic for \
     TOPIC), so a principal without it gets CLUSTER_/TOPIC_AUTHORIZATION_FAILED and learns \
     nothing about its keys or values; Kafka's broker checks duplicate keys, null values, the \
     broker id and whether a broker key is dynamic first.",
    "DescribeConfigs masks every PASSWORD-typed key of Kafka's broker config (listener-prefixed \
     too, whether kacl uses it or not), the authorizer's `super.users` and \
     `allow.everyone.if.no.acl.found` (as Kafka does) and, of the other keys kacl does not \
     know, those whose names look like secrets; Kafka masks every key whose type it cannot \
     tell.",
    "An error message longer than 4,096 bytes (one echoing a 32 KB config value, or thousands \
     of key names) is cut with `... (N more bytes)`; Kafka fails to serialize a message over \
     32,767 bytes and so the whole response.",
    "DescribeConfigs of this broker lists the keys the server's properties set, the cluster's \
     dynamic default `min.insync.replicas` and the defaults kacl knows, not every KafkaConfig \
     key; their type is UNKNOWN except PASSWORD for secrets, and no documentation is sent.",
    "GROUP and CLIENT_METRICS config resources get INVALID_REQUEST `Unsupported resource \
     type`.",
    "DescribeConfigs lists a topic's configs sorted by name (Kafka's order is its hash \
     map's).",
    "`kacl topics --describe` against a server without DescribeConfigs prints an empty \
     `Configs:`; `kacl configs` with `--entity-name` and `--entity-default` for users and \
     clients together pairs them with the entity types in command-line order, as \
     kafka-configs.sh does, but accepts no `--user`/`--client`/`--user-defaults` shorthands.",
    "`kacl acls plan/apply` read the whole cluster with one DescribeAcls, because no Kafka \
     filter selects names starting with a prefix.",
    "In cluster mode (`kacl.metadata.store=etcd`) an admin write that etcd does not answer \
     within `kacl.etcd.request.timeout.ms` fails with REQUEST_TIMED_OUT, Kafka's answer when \
     the controller does not respond; any kacl node takes writes, so nothing is forwarded.",
    "In cluster mode a DeleteAcls that races a CreateAcls on another node deletes what its \
     filters matched in this node's index; an ACL created elsewhere and not yet applied here \
     is not deleted.",
    "In cluster mode two DeleteAcls racing on different nodes may both list an ACL that both \
     their filters matched (each lists what its filters matched in its own node's index); \
     Kafka's controller lists it in one answer only.",
    "New partitions' leaders follow one fixed order that takes each rack's first node, then \
     each rack's second (A0 B0 A1 B1 ...), starting at a random node per topic and continuing \
     after the last leader on a partition increase, so a topic's leaders are spread exactly \
     evenly; Kafka's StripedReplicaPlacer starts its rack and broker lists at random offsets \
     and balances only on average.",
    "kacl writes `acls.snapshot` (the ACL index, checksummed, tied to the store's cluster id, \
     ACL version and count) beside its store at a clean stop, and while serving once ACL \
     writes have been quiet for `kacl.acl.snapshot.interval.ms`, and starts from it when the \
     store vouches for it, otherwise from the store; Kafka rebuilds the authorizer's ACLs \
     from the metadata log on every start.",
    "With the embedded store, CreateAcls requests arriving together are committed in one \
     store transaction and one fsync; each keeps its own result, limit and atomicity.",
    "Requests a client has pipelined that are already in the connection's read buffer are all \
     answered before writing, and their responses leave together in one write (at most 64 \
     KiB, in request order); Kafka sends each response by itself. Socket reads still wait \
     until earlier responses are handed to the kernel, as Kafka's channel muting does.",
    "`kacl acls --list` prints resources sorted by pattern and entries sorted within each \
     (kafka-acls.sh prints them in its map's order); when a broker's answer names one \
     resource pattern in two resources, kacl describes a second time to merge them.",
    "A DescribeAcls answer whose resources take more than 256 KiB is encoded off the \
     connection's task and written while it is encoded: the same bytes, from one read view of \
     the ACLs, the size prefix first. Kafka builds the whole response before sending any of \
     it. Should the encoding fail part way (a bug, never input), the client sees a partial \
     frame and then the connection close.",
    "A describe with neither a resource name nor a principal lists the resource patterns by \
     type, name and pattern type, and every DescribeAcls answer lists each resource's ACLs by \
     principal, host, operation and permission; Kafka lists both in hash order. Any order is \
     valid on the wire; this one lets a client show the first page of a sorted listing as \
     soon as it arrives.",
    "Gateway mode: Fetch sessions (KIP-227) are not passed on; every forwarded fetch is a \
     full, sessionless one and the answer says session 0, so each fetch names and authorizes \
     every partition it reads (a revoked READ stops the flow on the next fetch); Kafka \
     authorizes only an incremental fetch's changes against the session.",
    "Gateway mode: a Fetch v16 or v17 that the gateway passes on as the client sent it \
     (nothing refused, no fetch session) is sent to the upstream as v15, whose request bytes \
     are the same and whose answer is a v16/v17 answer without KIP-951 node_endpoints (the \
     answer's last field, which the gateway would otherwise have to rewrite after announcing \
     the answer's size): the answer is then relayed unread, its record data spliced from \
     socket to socket. A consumer learns a moved leader from current_leader (v12+) and \
     Metadata instead; Kafka answers v16+ with node_endpoints when a partition's leader \
     moved.",
    "Gateway mode: a Produce of 128 KiB or more for one topic and one partition from a plain \
     TCP client is authorized on its first part (header, the fields before the record data, \
     the record batch's header) and its record data is relayed to the upstream as it arrives \
     (cut-through). Refused, it is answered without its record data being read, so a request \
     malformed only after its batch header gets its refusal where Kafka, which reads every \
     request whole first, closes the connection. Forwarded, its last bytes are checked before \
     they complete it upstream: a request that does not end as its first part announced never \
     reaches the upstream whole, and both connections close.",
    "Gateway mode: Metadata is offered from v4 (the first version that can say \"do not \
     auto-create\"); one requested topic the principal may not create turns auto-creation off \
     for the whole request, and the others are auto-created only on a later request that asks \
     for them alone. Kafka decides auto-creation per topic.",
    "Gateway mode: AddPartitionsToTxn is offered at v0-3 only (v4+ is broker-to-broker), \
     share-group (KIP-932) coordinator keys get INVALID_REQUEST, and an API the gateway has \
     no authorization rule for is left out of ApiVersions and closes the connection.",
    "Gateway mode: when a client's upstream connection fails, the client's connection is \
     closed (a broker gone away, which clients retry); Kafka, being the broker, has no such \
     case.",
    "Gateway mode: a KIP-848 regex subscription is resolved by the upstream, which does not \
     know kacl's ACLs; the topics it assigns are still authorized for READ on every Fetch. \
     Kafka's coordinator filters a regex's topics by DESCRIBE.",
    "Gateway mode: a Metadata answer whose controller the client cannot reach through the \
     gateway (none named, or a broker without a gateway port; librdkafka's mock cluster names \
     none) names the first broker shown instead, as a KRaft broker names any live broker: \
     admin clients would otherwise wait for a controller forever.",
    "Gateway mode: the ApiVersions answer carries no supported or finalized features \
     (KIP-584) of the upstream, so Kafka 4 clients behave as against a broker without them \
     (transactions in version 1: AddPartitionsToTxn before a transaction's first write to a \
     partition; Kafka's server-side checks still apply upstream).",
    "Gateway mode: an upstream broker that joins after the gateway started gets its gateway \
     port (base + node id) when a Metadata or DescribeCluster answer passing through the \
     gateway first names it; until then it is left out of the broker lists clients see and a \
     coordinator there is COORDINATOR_NOT_AVAILABLE (clients retry).",
    "AlterPartitionReassignments completes a reassignment at once: the target replicas are \
     stored before the answer (kacl keeps no partition data, so there is nothing to copy), so \
     ListPartitionReassignments never lists one in progress and cancelling answers \
     NO_REASSIGNMENT_IN_PROGRESS; each topic entry is its own store commit (Kafka commits a \
     request's changes together).",
    "DescribeLogDirs on a standalone node lists one directory, the data directory, with no \
     partitions and its volume's total and usable bytes as -1 (unknown): kacl keeps no \
     partition logs.",
    "A standalone node has no groups or transactions: FindCoordinator names this node for any \
     group or transactional id, ListGroups and ListTransactions answer empty lists, \
     DescribeGroups answers Dead (v6: GROUP_ID_NOT_FOUND), ConsumerGroupDescribe \
     GROUP_ID_NOT_FOUND and DescribeTransactions TRANSACTIONAL_ID_NOT_FOUND, as Kafka does \
     for a group or id it does not know.",
    "FindCoordinator with key type 2 (share groups, KIP-932) is INVALID_REQUEST like an \
     unknown type: kacl has no share coordinator.",
    "Gateway mode: DescribeConfigs of a broker shows every config whose value is an address of the upstream cluster (listeners, advertised.listeners, controller.quorum.voters, controller.quorum.bootstrap.servers, zookeeper.connect, and any config naming a known upstream host:port) as Kafka shows a password: sensitive, value null, synonyms' values null. Kafka shows them to a principal with DESCRIBE_CONFIGS on the cluster; a gateway's clients never learn where the upstream is.",
    "Gateway mode: AddPartitionsToTxn v0-3 with a refused partition answers the partitions of topics no Metadata answer through the gateway has shown (or beyond the partition count it showed) UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED; Kafka decides existence on its own metadata, so a topic created or grown since the gateway last saw it may differ in that code (the request fails either way).",
    "Gateway mode: DeleteTopics by name of a topic the principal may describe but not delete is TOPIC_AUTHORIZATION_FAILED whether or not it exists; Kafka answers UNKNOWN_TOPIC_OR_PARTITION when it does not (the gateway cannot ask without deleting).",
    "Gateway mode: DescribeTopicPartitions is not offered (left out of ApiVersions), so \
     Kafka's clients describe topics with Metadata, which the gateway filters per topic.",
    "AlterClientQuotas: an `ip` entity (connection_creation_rate) is INVALID_REQUEST `kacl \
     does not keep ip quotas`, a value that is not finite is INVALID_REQUEST, and an entity \
     named twice in one request is refused on each of its entries with none of its changes \
     applied (Kafka applies the first one's changes and answers the error once). \
     DescribeClientQuotas with an `ip` filter matches nothing.",
    "Gateway mode, client quotas: enforced per gateway node (Kafka's are per broker); \
     producer_byte_rate counts each Produce request's size and consumer_byte_rate each Fetch \
     answer's size, with Kafka's rate over 11 samples of 1 s, throttle_time_ms set in the \
     Produce and Fetch answers and the connection muted for the throttle time. A throttled \
     Fetch answer still carries its records (Kafka answers a throttled fetch empty, takes its \
     bytes back out of the rate and caps a fetch's size to the quota window); one throttle is \
     at most 11 s.",
    "Gateway mode, client quotas: request_percentage counts the time each forwarded request \
     took from the gateway to the upstream and back (an upper bound of the broker thread time \
     Kafka counts, which a gateway cannot see); its throttle mutes the connection and sets \
     throttle_time_ms only in Produce and Fetch answers (other answers carry the upstream's). \
     controller_mutation_rate is stored and described but not enforced: the upstream's \
     controller answers CreateTopics, DeleteTopics and CreatePartitions.",
    "OAUTHBEARER: one validator for every listener, configured by the top-level \
     sasl.oauthbearer.* keys; Kafka configures one per listener \
     (listener.name.<l>.oauthbearer.*).",
    "OAUTHBEARER: kacl always verifies signed JWTs against the JWKS; Kafka without \
     listener.name.<l>.oauthbearer.sasl.server.callback.handler.class falls back to its \
     unsecured (unsigned-token) validator. Another handler class is named in a start-up \
     warning.",
    "OAUTHBEARER: a token longer than 64 KiB is refused before it is decoded; Kafka bounds it \
     only by sasl.server.max.receive.size.",
    "OAUTHBEARER: a JWKS endpoint that cannot be read at start stops the start after \
     kacl.oauthbearer.jwks.timeout.ms (the fetch is bounded by that time and \
     kacl.oauthbearer.jwks.max.bytes); Kafka's JWKS fetch has jose4j's bounds. https \
     endpoints trust kacl.oauthbearer.jwks.ssl.truststore.location (PEM) or the system \
     bundle, and the org.apache.kafka.sasl.oauthbearer.allowed.urls system property has no \
     kacl counterpart.",
    "OAUTHBEARER: accepted JWS algorithms are RS256/384/512, PS256/384/512, ES256/384 and \
     EdDSA (jose4j also verifies HMAC tokens against symmetric JWKs, which kacl skips).",
];
