//! Kafka's error codes: every code Kafka defines, with the name users see (e.g.
//! `CLUSTER_AUTHORIZATION_FAILED`), Kafka's default message and whether a client may retry.
//!
//! Codes, names and default messages are taken from Kafka's `Errors` table (they are part of
//! the protocol). A code this table does not know is kept as [`ErrorCode::Other`] so that it
//! survives a decode/encode round trip.

/// Declares the [`ErrorCode`] enum and its lookups from one table:
/// `Variant = code, retriable|fatal, "KAFKA_NAME", "default message";`.
macro_rules! error_codes {
    ($( $variant:ident = $code:literal, $kind:ident, $name:literal, $message:literal; )*) => {
        /// A Kafka error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub enum ErrorCode {
            /// No error (code 0).
            #[default]
            None,
            $(
                #[doc = $message]
                $variant,
            )*
            /// A code this table does not know, preserved as received.
            Other(i16),
        }

        impl ErrorCode {
            /// Every known code, `None` first, in code order.
            pub const ALL: &'static [ErrorCode] = &[ErrorCode::None, $(ErrorCode::$variant,)*];

            /// The wire code.
            pub const fn code(self) -> i16 {
                match self {
                    ErrorCode::None => 0,
                    $( ErrorCode::$variant => $code, )*
                    ErrorCode::Other(code) => code,
                }
            }

            /// The error for a wire code; unknown codes become [`ErrorCode::Other`].
            pub const fn from_code(code: i16) -> ErrorCode {
                match code {
                    0 => ErrorCode::None,
                    $( $code => ErrorCode::$variant, )*
                    other => ErrorCode::Other(other),
                }
            }

            /// Kafka's name for the error, e.g. `"CLUSTER_AUTHORIZATION_FAILED"`; `"NONE"` for
            /// code 0 and `"UNKNOWN_ERROR_CODE"` for codes outside the table.
            pub const fn name(self) -> &'static str {
                match self {
                    ErrorCode::None => "NONE",
                    $( ErrorCode::$variant => $name, )*
                    ErrorCode::Other(_) => "UNKNOWN_ERROR_CODE",
                }
            }

            /// Kafka's default message for the error, used when a response carries none.
            pub const fn default_message(self) -> &'static str {
                match self {
                    ErrorCode::None => "",
                    $( ErrorCode::$variant => $message, )*
                    ErrorCode::Other(_) => "Unknown error code.",
                }
            }

            /// Whether Kafka classifies the error as retriable.
            pub const fn is_retriable(self) -> bool {
                match self {
                    $( ErrorCode::$variant => error_codes!(@retriable $kind), )*
                    ErrorCode::None | ErrorCode::Other(_) => false,
                }
            }
        }
    };
    (@retriable retriable) => { true };
    (@retriable fatal) => { false };
}

error_codes! {
UnknownServerError = -1, fatal, "UNKNOWN_SERVER_ERROR",
        "The server experienced an unexpected error when processing the request.";
    OffsetOutOfRange = 1, fatal, "OFFSET_OUT_OF_RANGE",
        "The requested offset is not within the range of offsets maintained by the server.";
    CorruptMessage = 2, retriable, "CORRUPT_MESSAGE",
        "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.";
    UnknownTopicOrPartition = 3, retriable, "UNKNOWN_TOPIC_OR_PARTITION",
        "This server does not host this topic-partition.";
    InvalidFetchSize = 4, fatal, "INVALID_FETCH_SIZE",
        "The requested fetch size is invalid.";
    LeaderNotAvailable = 5, retriable, "LEADER_NOT_AVAILABLE",
        "There is no leader for this topic-partition as we are in the middle of a leadership election.";
    NotLeaderOrFollower = 6, retriable, "NOT_LEADER_OR_FOLLOWER",
        "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.";
    RequestTimedOut = 7, retriable, "REQUEST_TIMED_OUT",
        "The request timed out.";
    BrokerNotAvailable = 8, fatal, "BROKER_NOT_AVAILABLE",
        "The broker is not available.";
    ReplicaNotAvailable = 9, retriable, "REPLICA_NOT_AVAILABLE",
        "The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.";
    MessageTooLarge = 10, fatal, "MESSAGE_TOO_LARGE",
        "The request included a message larger than the max message size the server will accept.";
    StaleControllerEpoch = 11, fatal, "STALE_CONTROLLER_EPOCH",
        "The controller moved to another broker.";
    OffsetMetadataTooLarge = 12, fatal, "OFFSET_METADATA_TOO_LARGE",
        "The metadata field of the offset request was too large.";
    NetworkException = 13, retriable, "NETWORK_EXCEPTION",
        "The server disconnected before a response was received.";
    CoordinatorLoadInProgress = 14, retriable, "COORDINATOR_LOAD_IN_PROGRESS",
        "The coordinator is loading and hence can't process requests.";
    CoordinatorNotAvailable = 15, retriable, "COORDINATOR_NOT_AVAILABLE",
        "The coordinator is not available.";
    NotCoordinator = 16, retriable, "NOT_COORDINATOR",
        "This is not the correct coordinator.";
    InvalidTopicException = 17, fatal, "INVALID_TOPIC_EXCEPTION",
        "The request attempted to perform an operation on an invalid topic.";
    RecordListTooLarge = 18, fatal, "RECORD_LIST_TOO_LARGE",
        "The request included message batch larger than the configured segment size on the server.";
    NotEnoughReplicas = 19, retriable, "NOT_ENOUGH_REPLICAS",
        "Messages are rejected since there are fewer in-sync replicas than required.";
    NotEnoughReplicasAfterAppend = 20, retriable, "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
        "Messages are written to the log, but to fewer in-sync replicas than required.";
    InvalidRequiredAcks = 21, fatal, "INVALID_REQUIRED_ACKS",
        "Produce request specified an invalid value for required acks.";
    IllegalGeneration = 22, fatal, "ILLEGAL_GENERATION",
        "Specified group generation id is not valid.";
    InconsistentGroupProtocol = 23, fatal, "INCONSISTENT_GROUP_PROTOCOL",
        "The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.";
    InvalidGroupId = 24, fatal, "INVALID_GROUP_ID",
        "The configured groupId is invalid.";
    UnknownMemberId = 25, fatal, "UNKNOWN_MEMBER_ID",
        "The coordinator is not aware of this member.";
    InvalidSessionTimeout = 26, fatal, "INVALID_SESSION_TIMEOUT",
        "The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).";
    RebalanceInProgress = 27, fatal, "REBALANCE_IN_PROGRESS",
        "The group is rebalancing, so a rejoin is needed.";
    InvalidCommitOffsetSize = 28, fatal, "INVALID_COMMIT_OFFSET_SIZE",
        "The committing offset data size is not valid.";
    TopicAuthorizationFailed = 29, fatal, "TOPIC_AUTHORIZATION_FAILED",
        "Topic authorization failed.";
    GroupAuthorizationFailed = 30, fatal, "GROUP_AUTHORIZATION_FAILED",
        "Group authorization failed.";
    ClusterAuthorizationFailed = 31, fatal, "CLUSTER_AUTHORIZATION_FAILED",
        "Cluster authorization failed.";
    InvalidTimestamp = 32, fatal, "INVALID_TIMESTAMP",
        "The timestamp of the message is out of acceptable range.";
    UnsupportedSaslMechanism = 33, fatal, "UNSUPPORTED_SASL_MECHANISM",
        "The broker does not support the requested SASL mechanism.";
    IllegalSaslState = 34, fatal, "ILLEGAL_SASL_STATE",
        "Request is not valid given the current SASL state.";
    UnsupportedVersion = 35, fatal, "UNSUPPORTED_VERSION",
        "The version of API is not supported.";
    TopicAlreadyExists = 36, fatal, "TOPIC_ALREADY_EXISTS",
        "Topic with this name already exists.";
    InvalidPartitions = 37, fatal, "INVALID_PARTITIONS",
        "Number of partitions is below 1.";
    InvalidReplicationFactor = 38, fatal, "INVALID_REPLICATION_FACTOR",
        "Replication factor is below 1 or larger than the number of available brokers.";
    InvalidReplicaAssignment = 39, fatal, "INVALID_REPLICA_ASSIGNMENT",
        "Replica assignment is invalid.";
    InvalidConfig = 40, fatal, "INVALID_CONFIG",
        "Configuration is invalid.";
    NotController = 41, retriable, "NOT_CONTROLLER",
        "This is not the correct controller for this cluster.";
    InvalidRequest = 42, fatal, "INVALID_REQUEST",
        "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.";
    UnsupportedForMessageFormat = 43, fatal, "UNSUPPORTED_FOR_MESSAGE_FORMAT",
        "The message format version on the broker does not support the request.";
    PolicyViolation = 44, fatal, "POLICY_VIOLATION",
        "Request parameters do not satisfy the configured policy.";
    OutOfOrderSequenceNumber = 45, fatal, "OUT_OF_ORDER_SEQUENCE_NUMBER",
        "The broker received an out of order sequence number.";
    DuplicateSequenceNumber = 46, fatal, "DUPLICATE_SEQUENCE_NUMBER",
        "The broker received a duplicate sequence number.";
    InvalidProducerEpoch = 47, fatal, "INVALID_PRODUCER_EPOCH",
        "Producer attempted to produce with an old epoch.";
    InvalidTxnState = 48, fatal, "INVALID_TXN_STATE",
        "The producer attempted a transactional operation in an invalid state.";
    InvalidProducerIdMapping = 49, fatal, "INVALID_PRODUCER_ID_MAPPING",
        "The producer attempted to use a producer id which is not currently assigned to its transactional id.";
    InvalidTransactionTimeout = 50, fatal, "INVALID_TRANSACTION_TIMEOUT",
        "The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).";
    ConcurrentTransactions = 51, fatal, "CONCURRENT_TRANSACTIONS",
        "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.";
    TransactionCoordinatorFenced = 52, fatal, "TRANSACTION_COORDINATOR_FENCED",
        "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.";
    TransactionalIdAuthorizationFailed = 53, fatal, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
        "Transactional Id authorization failed.";
    SecurityDisabled = 54, fatal, "SECURITY_DISABLED",
        "Security features are disabled.";
    OperationNotAttempted = 55, fatal, "OPERATION_NOT_ATTEMPTED",
        "The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.";
    KafkaStorageError = 56, retriable, "KAFKA_STORAGE_ERROR",
        "Disk error when trying to access log file on the disk.";
    LogDirNotFound = 57, fatal, "LOG_DIR_NOT_FOUND",
        "The user-specified log directory is not found in the broker config.";
    SaslAuthenticationFailed = 58, fatal, "SASL_AUTHENTICATION_FAILED",
        "SASL Authentication failed.";
    UnknownProducerId = 59, fatal, "UNKNOWN_PRODUCER_ID",
        "This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer's records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer's metadata is removed from the broker, and future appends by the producer will return this exception.";
    ReassignmentInProgress = 60, fatal, "REASSIGNMENT_IN_PROGRESS",
        "A partition reassignment is in progress.";
    DelegationTokenAuthDisabled = 61, fatal, "DELEGATION_TOKEN_AUTH_DISABLED",
        "Delegation Token feature is not enabled.";
    DelegationTokenNotFound = 62, fatal, "DELEGATION_TOKEN_NOT_FOUND",
        "Delegation Token is not found on server.";
    DelegationTokenOwnerMismatch = 63, fatal, "DELEGATION_TOKEN_OWNER_MISMATCH",
        "Specified Principal is not valid Owner/Renewer.";
    DelegationTokenRequestNotAllowed = 64, fatal, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED",
        "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.";
    DelegationTokenAuthorizationFailed = 65, fatal, "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
        "Delegation Token authorization failed.";
    DelegationTokenExpired = 66, fatal, "DELEGATION_TOKEN_EXPIRED",
        "Delegation Token is expired.";
    InvalidPrincipalType = 67, fatal, "INVALID_PRINCIPAL_TYPE",
        "Supplied principalType is not supported.";
    NonEmptyGroup = 68, fatal, "NON_EMPTY_GROUP",
        "The group is not empty.";
    GroupIdNotFound = 69, fatal, "GROUP_ID_NOT_FOUND",
        "The group id does not exist.";
    FetchSessionIdNotFound = 70, retriable, "FETCH_SESSION_ID_NOT_FOUND",
        "The fetch session ID was not found.";
    InvalidFetchSessionEpoch = 71, retriable, "INVALID_FETCH_SESSION_EPOCH",
        "The fetch session epoch is invalid.";
    ListenerNotFound = 72, retriable, "LISTENER_NOT_FOUND",
        "There is no listener on the leader broker that matches the listener on which metadata request was processed.";
    TopicDeletionDisabled = 73, fatal, "TOPIC_DELETION_DISABLED",
        "Topic deletion is disabled.";
    FencedLeaderEpoch = 74, retriable, "FENCED_LEADER_EPOCH",
        "The leader epoch in the request is older than the epoch on the broker.";
    UnknownLeaderEpoch = 75, retriable, "UNKNOWN_LEADER_EPOCH",
        "The leader epoch in the request is newer than the epoch on the broker.";
    UnsupportedCompressionType = 76, fatal, "UNSUPPORTED_COMPRESSION_TYPE",
        "The requesting client does not support the compression type of given partition.";
    StaleBrokerEpoch = 77, fatal, "STALE_BROKER_EPOCH",
        "Broker epoch has changed.";
    OffsetNotAvailable = 78, retriable, "OFFSET_NOT_AVAILABLE",
        "The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.";
    MemberIdRequired = 79, fatal, "MEMBER_ID_REQUIRED",
        "The group member needs to have a valid member id before actually entering a consumer group.";
    PreferredLeaderNotAvailable = 80, retriable, "PREFERRED_LEADER_NOT_AVAILABLE",
        "The preferred leader was not available.";
    GroupMaxSizeReached = 81, fatal, "GROUP_MAX_SIZE_REACHED",
        "The consumer group has reached its max size.";
    FencedInstanceId = 82, fatal, "FENCED_INSTANCE_ID",
        "The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.";
    EligibleLeadersNotAvailable = 83, retriable, "ELIGIBLE_LEADERS_NOT_AVAILABLE",
        "Eligible topic partition leaders are not available.";
    ElectionNotNeeded = 84, retriable, "ELECTION_NOT_NEEDED",
        "Leader election not needed for topic partition.";
    NoReassignmentInProgress = 85, fatal, "NO_REASSIGNMENT_IN_PROGRESS",
        "No partition reassignment is in progress.";
    GroupSubscribedToTopic = 86, fatal, "GROUP_SUBSCRIBED_TO_TOPIC",
        "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.";
    InvalidRecord = 87, fatal, "INVALID_RECORD",
        "This record has failed the validation on broker and hence will be rejected.";
    UnstableOffsetCommit = 88, retriable, "UNSTABLE_OFFSET_COMMIT",
        "There are unstable offsets that need to be cleared.";
    ThrottlingQuotaExceeded = 89, retriable, "THROTTLING_QUOTA_EXCEEDED",
        "The throttling quota has been exceeded.";
    ProducerFenced = 90, fatal, "PRODUCER_FENCED",
        "There is a newer producer with the same transactionalId which fences the current one.";
    ResourceNotFound = 91, fatal, "RESOURCE_NOT_FOUND",
        "A request illegally referred to a resource that does not exist.";
    DuplicateResource = 92, fatal, "DUPLICATE_RESOURCE",
        "A request illegally referred to the same resource twice.";
    UnacceptableCredential = 93, fatal, "UNACCEPTABLE_CREDENTIAL",
        "Requested credential would not meet criteria for acceptability.";
    InconsistentVoterSet = 94, fatal, "INCONSISTENT_VOTER_SET",
        "Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters";
    InvalidUpdateVersion = 95, fatal, "INVALID_UPDATE_VERSION",
        "The given update version was invalid.";
    FeatureUpdateFailed = 96, fatal, "FEATURE_UPDATE_FAILED",
        "Unable to update finalized features due to an unexpected server error.";
    PrincipalDeserializationFailure = 97, fatal, "PRINCIPAL_DESERIALIZATION_FAILURE",
        "Request principal deserialization failed during forwarding. This indicates an internal error on the broker cluster security setup.";
    SnapshotNotFound = 98, fatal, "SNAPSHOT_NOT_FOUND",
        "Requested snapshot was not found";
    PositionOutOfRange = 99, fatal, "POSITION_OUT_OF_RANGE",
        "Requested position is not greater than or equal to zero, and less than the size of the snapshot.";
    UnknownTopicId = 100, retriable, "UNKNOWN_TOPIC_ID",
        "This server does not host this topic ID.";
    DuplicateBrokerRegistration = 101, fatal, "DUPLICATE_BROKER_REGISTRATION",
        "This broker ID is already in use.";
    BrokerIdNotRegistered = 102, fatal, "BROKER_ID_NOT_REGISTERED",
        "The given broker ID was not registered.";
    InconsistentTopicId = 103, retriable, "INCONSISTENT_TOPIC_ID",
        "The log's topic ID did not match the topic ID in the request";
    InconsistentClusterId = 104, fatal, "INCONSISTENT_CLUSTER_ID",
        "The clusterId in the request does not match that found on the server";
    TransactionalIdNotFound = 105, fatal, "TRANSACTIONAL_ID_NOT_FOUND",
        "The transactionalId could not be found";
    FetchSessionTopicIdError = 106, retriable, "FETCH_SESSION_TOPIC_ID_ERROR",
        "The fetch session encountered inconsistent topic ID usage";
    IneligibleReplica = 107, fatal, "INELIGIBLE_REPLICA",
        "The new ISR contains at least one ineligible replica.";
    NewLeaderElected = 108, fatal, "NEW_LEADER_ELECTED",
        "The AlterPartition request successfully updated the partition state but the leader has changed.";
    OffsetMovedToTieredStorage = 109, fatal, "OFFSET_MOVED_TO_TIERED_STORAGE",
        "The requested offset is moved to tiered storage.";
    FencedMemberEpoch = 110, fatal, "FENCED_MEMBER_EPOCH",
        "The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.";
    UnreleasedInstanceId = 111, fatal, "UNRELEASED_INSTANCE_ID",
        "The instance ID is still used by another member in the consumer group. That member must leave first.";
    UnsupportedAssignor = 112, fatal, "UNSUPPORTED_ASSIGNOR",
        "The assignor or its version range is not supported by the consumer group.";
    StaleMemberEpoch = 113, fatal, "STALE_MEMBER_EPOCH",
        "The member epoch is stale. The member must retry after receiving its updated member epoch via the ConsumerGroupHeartbeat API.";
    MismatchedEndpointType = 114, fatal, "MISMATCHED_ENDPOINT_TYPE",
        "The request was sent to an endpoint of the wrong type.";
    UnsupportedEndpointType = 115, fatal, "UNSUPPORTED_ENDPOINT_TYPE",
        "This endpoint type is not supported yet.";
    UnknownControllerId = 116, fatal, "UNKNOWN_CONTROLLER_ID",
        "This controller ID is not known.";
    UnknownSubscriptionId = 117, fatal, "UNKNOWN_SUBSCRIPTION_ID",
        "Client sent a push telemetry request with an invalid or outdated subscription ID.";
    TelemetryTooLarge = 118, fatal, "TELEMETRY_TOO_LARGE",
        "Client sent a push telemetry request larger than the maximum size the broker will accept.";
    InvalidRegistration = 119, fatal, "INVALID_REGISTRATION",
        "The controller has considered the broker registration to be invalid.";
    TransactionAbortable = 120, fatal, "TRANSACTION_ABORTABLE",
        "The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID.";
    InvalidRecordState = 121, fatal, "INVALID_RECORD_STATE",
        "The record state is invalid. The acknowledgement of delivery could not be completed.";
    ShareSessionNotFound = 122, retriable, "SHARE_SESSION_NOT_FOUND",
        "The share session was not found.";
    InvalidShareSessionEpoch = 123, retriable, "INVALID_SHARE_SESSION_EPOCH",
        "The share session epoch is invalid.";
    FencedStateEpoch = 124, fatal, "FENCED_STATE_EPOCH",
        "The share coordinator rejected the request because the share-group state epoch did not match.";
    InvalidVoterKey = 125, fatal, "INVALID_VOTER_KEY",
        "The voter key doesn't match the receiving replica's key.";
    DuplicateVoter = 126, fatal, "DUPLICATE_VOTER",
        "The voter is already part of the set of voters.";
    VoterNotFound = 127, fatal, "VOTER_NOT_FOUND",
        "The voter is not part of the set of voters.";
    InvalidRegularExpression = 128, fatal, "INVALID_REGULAR_EXPRESSION",
        "The regular expression is not valid.";
    RebootstrapRequired = 129, fatal, "REBOOTSTRAP_REQUIRED",
        "Client metadata is stale, client should rebootstrap to obtain new metadata.";
    StreamsInvalidTopology = 130, fatal, "STREAMS_INVALID_TOPOLOGY",
        "The supplied topology is invalid.";
    StreamsInvalidTopologyEpoch = 131, fatal, "STREAMS_INVALID_TOPOLOGY_EPOCH",
        "The supplied topology epoch is invalid.";
    StreamsTopologyFenced = 132, fatal, "STREAMS_TOPOLOGY_FENCED",
        "The supplied topology epoch is outdated.";
    ShareSessionLimitReached = 133, retriable, "SHARE_SESSION_LIMIT_REACHED",
        "The limit of share sessions has been reached.";
}

impl ErrorCode {
    /// Whether this is code 0.
    pub const fn is_ok(self) -> bool {
        matches!(self, ErrorCode::None)
    }
}

impl From<i16> for ErrorCode {
    fn from(code: i16) -> Self {
        ErrorCode::from_code(code)
    }
}

impl From<ErrorCode> for i16 {
    fn from(error: ErrorCode) -> i16 {
        error.code()
    }
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ErrorCode::Other(code) => write!(f, "UNKNOWN_ERROR_CODE({code})"),
            known => f.write_str(known.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn every_known_code_round_trips_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        for &error in ErrorCode::ALL {
            assert!(seen.insert(error.code()), "duplicate code {}", error.code());
            assert_eq!(ErrorCode::from_code(error.code()), error);
            assert!(!matches!(error, ErrorCode::Other(_)));
        }
        assert!(seen.len() > 130);
    }

    #[test]
    fn names_messages_and_retriability_match_kafka() {
        let e = ErrorCode::from_code(31);
        assert_eq!(e, ErrorCode::ClusterAuthorizationFailed);
        assert_eq!(e.name(), "CLUSTER_AUTHORIZATION_FAILED");
        assert_eq!(e.default_message(), "Cluster authorization failed.");
        assert!(!e.is_retriable());
        assert_eq!(ErrorCode::from_code(-1).name(), "UNKNOWN_SERVER_ERROR");
        assert_eq!(ErrorCode::from_code(17).name(), "INVALID_TOPIC_EXCEPTION");
        assert!(ErrorCode::from_code(3).is_retriable());
        assert_eq!(ErrorCode::from_code(35).name(), "UNSUPPORTED_VERSION");
        assert_eq!(ErrorCode::from_code(0).name(), "NONE");
    }

    #[test]
    fn unknown_codes_are_preserved() {
        let e = ErrorCode::from_code(9999);
        assert_eq!(e, ErrorCode::Other(9999));
        assert_eq!(e.code(), 9999);
        assert_eq!(e.to_string(), "UNKNOWN_ERROR_CODE(9999)");
    }
}
